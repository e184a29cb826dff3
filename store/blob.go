package store

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
	"github.com/klauspost/compress/zstd"
)

// inMemMax is the size up to which a file or a blob is held whole in
// memory; larger ones stream (hashing, compressing, restoring), so memory
// stays bounded whatever a file's size.
const inMemMax = 8 << 20

// maxWindow bounds the memory a streaming zstd decoder may ask for: a
// frame wanting a larger window is refused as damaged rather than
// allocated. ckpt's own encoder uses far smaller windows.
const maxWindow = 32 << 20

// The codecs are made on first use, each on its own: a hook that only
// keeps bytes never pays for a decoder, nor a listing for an encoder.
// EncodeAll and DecodeAll are safe for concurrent use; one of each serves
// every goroutine.
var (
	// zstdEncoder is at the fastest level, which keeps Go source at about a
	// quarter of its size at ~185 MB/s a core. Its lower-memory mode
	// compresses the same and halves what its first use allocates (a hook
	// keeping one small file pays that whole).
	zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
		enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
		return enc
	})
	// zstdPackEncoder serves a batch that writes a pack. EncodeAll holds
	// one of an encoder's states for the whole call, so this one has a
	// state per core: with one, the batch's workers would take turns.
	zstdPackEncoder = sync.OnceValue(func() *zstd.Encoder {
		enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithLowerEncoderMem(true))
		return enc
	})
	// zstdDecoder serves only blobs whose record says they fit in memory,
	// so its limit is that size: a small blob that expands further (a zstd
	// bomb) fails cleanly instead of exhausting memory.
	zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
		dec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(inMemMax+1<<10), zstd.WithDecoderMaxWindow(maxWindow))
		return dec
	})
)

// hashHex is the id of b as an Image names it.
func hashHex(b []byte) string { return blob.Of(b).String() }

// blobIDOf is the id of the blob holding b.
func blobIDOf(b []byte) BlobID { return blob.Of(b) }

// blobDir opens the blobs folder once; seed stores without one have no
// blobs.
func (s *Store) blobDir() (*storefs.Dir, error) {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	if s.blobs != nil {
		return s.blobs, nil
	}
	r, err := s.dir.Sub("blobs")
	if err != nil {
		return nil, err
	}
	s.blobs = r
	return r, nil
}

// hasBlob reports whether a blob (packed, loose, or a seed's raw one)
// exists.
func (s *Store) hasBlob(sum BlobID) bool {
	if s.hasBlobNear(sum) {
		return true
	}
	_, ok := s.packs.find(s, sum, true)
	return ok
}

// hasBlobNear is hasBlob without reading a pack index not read yet: a
// loose blob, or one in the packs already loaded. A capture of a few
// files asks it before keeping a blob: a false answer costs a loose
// duplicate of a packed blob (prune folds it), a full lookup the parsing
// of every pack's index, which in a store with a swept tree is most of a
// hook's work.
func (s *Store) hasBlobNear(sum BlobID) bool {
	if _, ok := s.packs.findLoaded(s, sum); ok {
		return true
	}
	if b, err := s.blobDir(); err == nil {
		if _, err := b.Lstat(sum.String() + ".zst"); err == nil {
			return true
		}
		if _, err = b.Lstat(sum.String()); err == nil {
			return true
		}
	}
	return false
}

// putBlob keeps data under its hash unless a blob of that hash exists
// (asked of the packs known now and of loose names): into pack when not nil,
// else as a loose blob. It reports whether it wrote a loose blob; the
// caller makes the batch durable. The compressed frame is built in
// *scratch, which is kept for the caller's next blob.
func (s *Store) putBlob(sum BlobID, data []byte, pack *packWriter, scratch *[]byte) (bool, error) {
	if pack.has(sum) || s.hasBlobNear(sum) {
		return false, nil // a copy of a file the batch already holds costs no compressing
	}
	var z []byte
	if len(data) > 0 && (len(data) <= storedMax || pack == nil && len(data) <= looseStoredMax) {
		z = storedFrame((*scratch)[:0], data)
	} else {
		enc := zstdEncoder()
		if pack != nil {
			enc = zstdPackEncoder()
		}
		z = enc.EncodeAll(data, (*scratch)[:0])
	}
	*scratch = keepBuf(z)
	if pack != nil {
		return false, pack.add(sum, z, int64(len(data)))
	}
	b, err := s.blobDir()
	if err != nil {
		return false, errf("keep blob: open %s: %w", s.path("blobs"), err)
	}
	name := sum.String() + ".zst"
	if err := storefs.WriteAtomic(b, name, z, 0o600, false); err != nil {
		return false, errf("keep blob %s: %w", s.path("blobs/"+name), err)
	}
	return true, nil
}

// storedMax is the size up to which a blob is kept as it is, in a zstd
// frame of one raw block: compressing so few bytes costs more time a byte
// than any larger file, to save a few hundred bytes. Source trees hold
// many such files (two in five of Go's own), which together are under 2%
// of the bytes but 5% of the time spent compressing.
const storedMax = 1 << 10

// looseStoredMax is the size up to which a loose blob (a small capture's,
// a hook's: see looseMax) is kept as it is too. In a process that lives
// for one hook, compressing a few KiB costs more than the rest of its
// work, the encoder's tables being fresh memory to fault in; prune packs
// such blobs later, compressed (see packStored).
const looseStoredMax = 64 << 10

// storedFrame appends a zstd frame holding data (1 to 65791 bytes) as one
// raw block: the frame header (single segment, its content size, no
// checksum, which the blob's hash makes needless), then the block.
func storedFrame(dst, data []byte) []byte {
	n := len(data)
	dst = append(dst, 0x28, 0xb5, 0x2f, 0xfd) // magic, little-endian
	if n < 256 {
		dst = append(dst, 0x20, byte(n)) // single segment, 1-byte size
	} else {
		dst = append(dst, 0x60, byte(n-256), byte((n-256)>>8)) // 2-byte size, less 256
	}
	hdr := uint32(n)<<3 | 1 // raw block (type 0), the last
	dst = append(dst, byte(hdr), byte(hdr>>8), byte(hdr>>16))
	return append(dst, data...)
}

// storedPayload returns the bytes of a frame storedFrame wrote, or false
// for any other frame.
func storedPayload(z []byte) ([]byte, bool) {
	if len(z) < 4+2+3 || string(z[:4]) != "\x28\xb5\x2f\xfd" {
		return nil, false
	}
	var n, at int
	switch z[4] {
	case 0x20:
		n, at = int(z[5]), 6
	case 0x60:
		if len(z) < 4+3+3 {
			return nil, false
		}
		n, at = (int(z[5])|int(z[6])<<8)+256, 7
	default:
		return nil, false
	}
	hdr := int(z[at]) | int(z[at+1])<<8 | int(z[at+2])<<16
	if hdr != n<<3|1 || len(z) != at+3+n {
		return nil, false
	}
	return z[at+3:], true
}

// keepBuf returns b for reuse as a scratch buffer, or nil when it grew
// past 1 MiB: a few large files must not pin their size in every worker.
func keepBuf(b []byte) []byte {
	if cap(b) > 1<<20 {
		return nil
	}
	return b
}

// putBlobStream keeps the bytes read from src as a loose blob, hashing
// and compressing them as they stream, and returns their hash and length.
// Memory stays bounded whatever the length. The caller makes it durable.
func (s *Store) putBlobStream(src io.Reader) (BlobID, int64, error) {
	b, err := s.blobDir()
	if err != nil {
		return BlobID{}, 0, errf("keep blob: open %s: %w", s.path("blobs"), err)
	}
	tmp := ".tmp-" + storefs.RandHex(8)
	f, err := b.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return BlobID{}, 0, errf("keep blob: %w", err)
	}
	h := sha256.New()
	zw, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<22))
	var n int64
	if err == nil {
		n, err = io.Copy(zw, io.TeeReader(src, h))
		if cerr := zw.Close(); err == nil {
			err = cerr
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	sum := BlobID(h.Sum(nil))
	if err == nil && s.hasBlob(sum) {
		_ = b.Remove(tmp)
		return sum, n, nil
	}
	if err == nil {
		err = b.Rename(tmp, sum.String()+".zst")
	}
	if err != nil {
		_ = b.Remove(tmp)
		return BlobID{}, 0, errf("keep blob %s: %w", s.path("blobs"), err)
	}
	return sum, n, nil
}

// openRegular opens name inside r for reading only if it is a regular
// file: a FIFO or a device named like a blob must neither hang the open
// (O_NONBLOCK) nor be read.
func openRegular(r storefs.Root, name string) (*os.File, int64, error) {
	f, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, errf("%s is a %s, not a file: %w", name, kindWord(fi.Mode()), ErrCorrupt)
	}
	return f, fi.Size(), nil
}

// blobSource is where a blob's bytes are: a byte range of a file, raw or
// one zstd frame.
type blobSource struct {
	f     *os.File
	close bool // f is the blob's own file, closed after reading
	off   int64
	n     int64 // stored length
	zstd  bool
	where string // for messages: the store file holding it
}

// locate finds the blob named sum: in a pack, as blobs/<sum>.zst, or as a
// seed store's raw blobs/<sum>.
func (s *Store) locate(sum BlobID) (blobSource, error) {
	if src, ok := s.packs.findLoaded(s, sum); ok {
		return src, nil
	}
	b, err := s.blobDir()
	if err == nil {
		for _, name := range []string{sum.String() + ".zst", sum.String()} {
			f, size, err := openRegular(b, name)
			if err == nil {
				return blobSource{f: f, close: true, n: size, zstd: strings.HasSuffix(name, ".zst"), where: "blobs/" + name}, nil
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return blobSource{}, errf("read blob %s: %w", s.path("blobs/"+name), err)
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		// The blobs folder cannot be opened: a pack may still hold it.
		if src, ok := s.packs.find(s, sum, true); ok {
			return src, nil
		}
		return blobSource{}, errf("read blob %s: %w", sum.Short(), err)
	}
	if src, ok := s.packs.find(s, sum, true); ok {
		return src, nil
	}
	return blobSource{}, errf("blob %s is missing: %w", sum.Short(), fs.ErrNotExist)
}

// readBlob returns the bytes named sum, checked against the name. size is
// the length the record gives (-1 when it gives none): a compressed blob
// that decodes to anything else is damaged, and decoding stops there. It
// reads only inside the store and only names of 64 hex digits.
func (s *Store) readBlob(sum BlobID, size int64) ([]byte, error) {
	src, err := s.locate(sum)
	if err != nil {
		return nil, err
	}
	data, err := s.readFrom(sum, size, src)
	if err != nil && src.close {
		// A damaged loose copy: a pack may hold the same bytes whole (a
		// small capture keeps a loose copy without looking in the packs).
		if p, ok := s.packs.find(s, sum, true); ok {
			if d, perr := s.readFrom(sum, size, p); perr == nil {
				return d, nil
			}
		}
	}
	return data, err
}

// readBlobOf returns the kept bytes img names, checked against their
// hash; a name that is not a blob's is ErrCorrupt.
func (s *Store) readBlobOf(img Image) ([]byte, error) {
	sum, err := blobOf(img)
	if err != nil {
		return nil, err
	}
	return s.readBlob(sum, img.Size)
}

func (s *Store) readFrom(sum BlobID, size int64, src blobSource) ([]byte, error) {
	if src.close {
		defer src.f.Close()
	}
	bad := func(why string) error {
		return errf("blob %s in %s %s: %w", sum.Short(), s.path(src.where), why, ErrCorrupt)
	}
	var data []byte
	if src.zstd && size >= 0 && size <= inMemMax && src.n <= 2*inMemMax+1024 {
		z := make([]byte, src.n)
		if _, err := src.f.ReadAt(z, src.off); err != nil {
			return nil, errf("read blob %s: %w", s.path(src.where), err)
		}
		dec := zstdDecoder()
		data, err := dec.DecodeAll(z, make([]byte, 0, size))
		if err != nil {
			return nil, bad("does not decompress (or holds more than its record says)")
		}
		if int64(len(data)) != size {
			return nil, bad(fmt.Sprintf("holds %d bytes, not the %d its record says", len(data), size))
		}
		if blob.Of(data) != sum {
			return nil, bad("does not match its hash")
		}
		return data, nil
	}
	r := s.streamFrom(sum, size, src)
	defer r.Close()
	var buf bytes.Buffer
	if size >= 0 {
		buf.Grow(int(min(size, 1<<30)))
	}
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, err
	}
	data = buf.Bytes()
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// openBlob streams the bytes named sum. The reader fails with ErrCorrupt
// (in place of io.EOF) when the bytes do not match the name or run past
// size (when size >= 0), so a caller that writes them somewhere commits
// only after a clean io.EOF. Memory stays bounded whatever the size.
func (s *Store) openBlob(sum BlobID, size int64) (io.ReadCloser, error) {
	src, err := s.locate(sum)
	if err != nil {
		return nil, err
	}
	return s.streamFrom(sum, size, src), nil
}

// checkBlob reads the blob named sum through, checking it against its
// name, without holding it in memory.
func (s *Store) checkBlob(sum BlobID, size int64) error {
	r, err := s.openBlob(sum, size)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = io.Copy(io.Discard, r)
	return err
}

func (s *Store) streamFrom(sum BlobID, size int64, src blobSource) io.ReadCloser {
	v := &verifying{s: s, sum: sum, size: size, src: src, h: sha256.New()}
	var r io.Reader = io.NewSectionReader(src.f, src.off, src.n)
	if src.zstd {
		d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(maxWindow))
		if err != nil {
			v.err = v.bad("does not decompress")
			return v
		}
		v.dec = d
		r = d
	}
	v.r = r
	return v
}

// verifying hashes a blob's bytes as they are read and turns io.EOF into
// ErrCorrupt when they do not match.
type verifying struct {
	s    *Store
	sum  BlobID
	size int64
	src  blobSource
	r    io.Reader
	dec  *zstd.Decoder
	h    hash.Hash
	n    int64
	err  error
}

func (v *verifying) bad(why string) error {
	return errf("blob %s in %s %s: %w", v.sum.Short(), v.s.path(v.src.where), why, ErrCorrupt)
}

func (v *verifying) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	n, err := v.r.Read(p)
	v.h.Write(p[:n])
	v.n += int64(n)
	switch {
	case v.size >= 0 && v.n > v.size && v.src.zstd:
		v.err = v.bad(fmt.Sprintf("holds more than the %d bytes its record says", v.size))
		return 0, v.err
	case err == io.EOF:
		if BlobID(v.h.Sum(nil)) != v.sum {
			v.err = v.bad("does not match its hash")
			return n, v.err
		}
		v.err = io.EOF
	case err != nil && v.dec != nil:
		v.err = v.bad("does not decompress: " + err.Error())
		return n, v.err
	case err != nil:
		v.err = errf("read blob %s: %w", v.s.path(v.src.where), err)
		return n, v.err
	}
	return n, v.err
}

func (v *verifying) Close() error {
	if v.dec != nil {
		v.dec.Close()
		v.dec = nil
	}
	if v.src.close {
		v.src.close = false
		return v.src.f.Close()
	}
	return nil
}

// blobSize is the length a record gives for img's bytes.
func blobSize(img Image) int64 { return img.Size }

// restoreStream writes the blob of want to name inside r as it streams,
// through a temporary file beside it renamed over it only once every byte
// has matched the blob's hash: a damaged blob leaves the file untouched.
func (s *Store) restoreStream(r *os.Root, name string, want Image, perm fs.FileMode) error {
	sum, err := blobOf(want)
	if err != nil {
		return err
	}
	src, err := s.openBlob(sum, want.Size)
	if err != nil {
		return err
	}
	defer src.Close()
	return storefs.WriteReplaceFrom(r, name, src, perm)
}

// checkLoose checks the loose blob blobs/name against its name.
func (s *Store) checkLoose(name string, size int64) error {
	b, err := s.blobDir()
	if err != nil {
		return err
	}
	f, n, err := openRegular(b, name)
	if err != nil {
		return err
	}
	sum, err := ParseBlobID(strings.TrimSuffix(name, ".zst"))
	if err != nil {
		f.Close()
		return err
	}
	return s.checkSource(sum, size, blobSource{f: f, close: true, n: n, zstd: strings.HasSuffix(name, ".zst"), where: "blobs/" + name})
}

// checkSource reads one stored copy of a blob through, checking it.
func (s *Store) checkSource(sum BlobID, size int64, src blobSource) error {
	r := s.streamFrom(sum, size, src)
	defer r.Close()
	_, err := io.Copy(io.Discard, r)
	return err
}
