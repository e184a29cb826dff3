package store

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"os"
	"syscall"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
	"golang.org/x/sys/unix"
)

// readDisk returns what rel holds now, with a file's bytes. A symlink is
// read as a link, never followed.
func (s *Store) readDisk(rel string) (Image, []byte, error) {
	return s.readInWith(s.root, rel, rel, nil)
}

// bigFile takes over reading a regular file larger than inMemMax, opened
// and checked: it streams f and returns its image, so its bytes are never
// held whole.
type bigFile func(f *os.File, size int64) (Image, error)

// hashOnly is the bigFile that only hashes.
func hashOnly(f *os.File, size int64) (Image, error) {
	h := sha256.New()
	n, err := io.CopyBuffer(h, struct{ io.Reader }{f}, make([]byte, 1<<20))
	return Image{Kind: ImageContent, SHA256: BlobID(h.Sum(nil)), Size: n}, err
}

// readIn reads name inside r; rel names it in errors. A file larger than
// inMemMax is hashed as it streams and its bytes are not returned.
func (s *Store) readIn(r *os.Root, name, rel string) (Image, []byte, error) {
	return s.readInWith(r, name, rel, hashOnly)
}

// readInWith reads name inside r, handing a file larger than inMemMax to
// big (nil reads every file whole); rel names it in errors. An os.Root follows
// a final symlink that stays inside it even with O_NOFOLLOW, so the path is
// looked at with Lstat first, and the file opened is checked to be the one
// looked at (else it was replaced in between, and is read again). A file
// its owner, ckpt, may not read is opened for it (openUnread).
func (s *Store) readInWith(r *os.Root, name, rel string, big bigFile) (Image, []byte, error) {
	for try := 0; ; try++ {
		fi, err := r.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return Image{Kind: ImageAbsent}, nil, nil
		}
		if err != nil {
			return Image{}, nil, errf("%s: %w", rel, err)
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := r.Readlink(name)
			if err != nil {
				return Image{}, nil, errf("%s: %w", rel, err)
			}
			return Image{Kind: ImageLink, Link: target}, nil, nil
		case fi.IsDir():
			return Image{Kind: ImageDir, Mode: permMode(fi.Mode())}, nil, nil
		case !fi.Mode().IsRegular():
			if k := specialKind(fi.Mode()); k != "" {
				return Image{Kind: k, Mode: permMode(fi.Mode())}, nil, nil
			}
			return Image{Kind: ImageOther, Reason: fmt.Sprintf("is a %s, not a file", kindWord(fi.Mode()))}, nil, nil
		}
		img, data, same, err := s.readOpen(r, name, rel, fi, big)
		if err != nil || same || try == 3 {
			if err == nil && !same {
				err = errf("%s: keeps changing while being read", rel)
			}
			return img, data, err
		}
	}
}

// readOpen reads the regular file name, reporting whether the file opened
// is the one fi describes.
func (s *Store) readOpen(r *os.Root, name, rel string, fi fs.FileInfo, big bigFile) (Image, []byte, bool, error) {
	f, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrPermission) {
		f, err = s.openUnread(r, name, rel, fi, err)
	}
	if err != nil {
		return Image{}, nil, false, errf("%s: %w", rel, err)
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil {
		return Image{}, nil, false, errf("%s: %w", rel, err)
	}
	if !os.SameFile(fi, ofi) {
		return Image{}, nil, false, nil
	}
	if big != nil && ofi.Size() > inMemMax {
		img, err := big(f, ofi.Size())
		if err != nil {
			return Image{}, nil, false, errf("%s: %w", rel, err)
		}
		img.Mode = permMode(ofi.Mode())
		return img, nil, true, nil
	}
	data := make([]byte, 0, ofi.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return Image{}, nil, false, errf("%s: %w", rel, err)
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	img := Image{Kind: ImageContent, SHA256: blob.Of(data), Size: int64(len(data)), Mode: permMode(ofi.Mode())}
	return img, data, true, nil
}

// readRegularAt reads name inside the folder dfd when it is a regular
// file of at most inMemMax bytes, into buf when it has room. It reports
// false for anything else, and for any error: the caller then reads the
// path the careful way, which words the error. It opens the name without
// following a link and without waiting (a FIFO must not hang it), and
// reads only what fstat then says is a regular file, as openRegular does
// for blobs: one call fewer than looking first.
func readRegularAt(dfd int, name string, buf []byte) (Image, []byte, bool) {
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return Image{}, nil, false
	}
	defer unix.Close(fd)
	var ost unix.Stat_t
	if unix.Fstat(fd, &ost) != nil || ost.Mode&unix.S_IFMT != unix.S_IFREG || ost.Size > inMemMax {
		return Image{}, nil, false
	}
	size := int(ost.Size)
	data := buf[:0]
	if cap(data) < size+1 {
		// In powers of two, so a worker's buffer (kept up to 1 MiB) settles
		// after a few files rather than growing at each larger one.
		c := size + 1
		if c <= 1<<20 {
			c = max(16<<10, 1<<bits.Len(uint(size)))
		}
		data = make([]byte, 0, c)
	}
	for {
		n, err := unix.Read(fd, data[len(data):cap(data)])
		if err == unix.EINTR {
			continue
		}
		if err != nil || n < 0 {
			return Image{}, nil, false
		}
		data = data[:len(data)+n]
		// Asked for more than the size fstat gave: getting exactly that
		// size means the read met the end. Fewer or more (the file is
		// changing) read on to the end.
		if n == 0 || len(data) == size && len(data) < cap(data) {
			break
		}
		if len(data) > inMemMax {
			return Image{}, nil, false
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	sum := blob.Of(data)
	img := Image{Kind: ImageContent, SHA256: sum, Size: int64(len(data)), Mode: record.PermMode(uint32(ost.Mode) & 0o777)}
	return img, data, true
}

// reasonOf words an error met while looking at a path so that it reads
// after "it", as in "not touched: it <reason> now"; the path itself is
// named by the caller, so it is not repeated.
func reasonOf(err error) string {
	inner := err
	for {
		var pe *fs.PathError
		if !errors.As(inner, &pe) {
			break
		}
		inner = pe.Err
	}
	switch {
	case inner.Error() == "path escapes from parent":
		return "lies behind a symbolic link that leads out of the root"
	case errors.Is(err, syscall.ELOOP):
		return "lies behind a loop of symbolic links"
	case errors.Is(err, fs.ErrPermission):
		return permDenied
	}
	return "cannot be read (" + inner.Error() + ")"
}

// permMode is the Mode an image gives a file or folder of mode m: its
// permission bits, ModeZero for none (0 would say unknown).
func permMode(m fs.FileMode) uint32 { return record.PermMode(uint32(m.Perm())) }

// specialKind is the image kind of a special file of mode m: a named
// pipe, a socket, a device node; "" for anything else.
func specialKind(m fs.FileMode) ImageKind {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return ImageFifo
	case m&fs.ModeSocket != 0:
		return ImageSocket
	case m&fs.ModeDevice != 0:
		return ImageDevice
	}
	return ""
}

func kindWord(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "folder"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "device"
}

// ReadDisk returns what the root-relative path holds now, and its bytes.
func (s *Store) ReadDisk(rel string) (Image, []byte, error) {
	rel, err := s.Rel(rel)
	if err != nil {
		return Image{}, nil, err
	}
	return s.readDisk(rel)
}

// sameBytes reports whether two images hold the same thing, ignoring the
// mode (a mode change alone is not a change of bytes).
func sameBytes(a, b Image) bool {
	bytesKind := func(k ImageKind) bool { return k == ImageContent || k == ImageSkipped }
	if bytesKind(a.Kind) && bytesKind(b.Kind) {
		// A skipped image still carries the hash of what it did not keep.
		return !a.SHA256.IsZero() && a.SHA256 == b.SHA256
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case ImageLink:
		return a.Link == b.Link
	case ImageAbsent, ImageDir, ImageFifo, ImageSocket, ImageDevice:
		return true
	}
	return false
}

// notFile reports whether img is something ckpt never writes over as a
// file: a folder, a named pipe, a socket, a device, a path it could not
// look at. (An operation removes a special file a turn made, and writes
// what it wants in its place: see decide.)
func notFile(img Image) bool {
	return img.Kind == ImageOther || img.Kind == ImageDir || img.Kind.Special()
}

// otherReason says what stands at a path that is not a file.
func otherReason(img Image) string {
	switch img.Kind {
	case ImageDir:
		return "is a folder, not a file"
	case ImageFifo:
		return "is a named pipe, not a file"
	case ImageSocket:
		return "is a socket, not a file"
	case ImageDevice:
		return "is a device, not a file"
	}
	return img.Reason
}

// statEntry is what the stat cache remembers of one path.
type statEntry struct {
	Size  int64  `json:"s"`
	Mtime int64  `json:"m"`
	Ctime int64  `json:"c"`
	Ino   uint64 `json:"i"`
	Mode  uint32 `json:"o"`
	SHA   BlobID `json:"h"`
	When  int64  `json:"w"` // when the bytes were hashed
}

// statCache spares hashing unchanged files on every log. An entry is
// trusted when size, mtime, ctime, inode and mode match and the file was
// last modified and last changed (mtime and ctime) well before it was
// hashed: as in git's racy-clean rule, a file written in the same clock
// tick as its hashing could change without its stat changing — and a
// tool can set mtime back — so such entries are hashed again.
type statCache struct {
	loaded  bool
	entries map[string]statEntry
	dirty   bool
}

// racyWindow covers coarse file-system timestamps.
const racyWindow = int64(2 * time.Second)

const statCacheFile = "statcache.json"

func (s *Store) loadStats() {
	if s.stats.loaded {
		return
	}
	s.stats.loaded = true
	s.stats.entries = map[string]statEntry{}
	data, err := s.dir.ReadFile(statCacheFile)
	if err == nil {
		// A damaged cache is only a slower log: start afresh.
		if json.Unmarshal(data, &s.stats.entries) != nil {
			s.stats.entries = map[string]statEntry{}
		}
	}
}

// saveStats writes the cache if it changed. Last writer wins; it is a
// cache, so a lost update costs only hashing again.
func (s *Store) saveStats() {
	if !s.stats.dirty {
		return
	}
	data, err := json.Marshal(s.stats.entries)
	if err == nil && storefs.WriteAtomic(s.dir, statCacheFile, data, 0o600, false) == nil {
		s.stats.dirty = false
	}
}

// diskState returns what rel holds now without its bytes, hashing only
// when the stat cache cannot vouch for it. Caller holds s.mu.
func (s *Store) diskState(rel string, dirs *dirCache) Image {
	s.loadStats()
	r, name := dirs.in(rel)
	fi, err := r.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || dirs.behindLink(rel) {
		img, _, err := dirs.read(rel)
		if err != nil {
			return Image{Kind: ImageOther, Reason: reasonOf(err)}
		}
		delete(s.stats.entries, rel)
		return img
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	e := statEntry{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: uint32(fi.Mode().Perm())}
	if st != nil {
		e.Ino = uint64(st.Ino)
		e.Ctime = ctimeOf(st)
	}
	if c, ok := s.stats.entries[rel]; ok && c.Size == e.Size && c.Mtime == e.Mtime &&
		c.Ctime == e.Ctime && c.Ino == e.Ino && c.Mode == e.Mode &&
		c.When-e.Mtime > racyWindow && c.When-e.Ctime > racyWindow {
		return Image{Kind: ImageContent, SHA256: c.SHA, Size: c.Size, Mode: record.PermMode(c.Mode)}
	}
	e.When = time.Now().UnixNano()
	img, _, err := s.readIn(r, name, rel)
	if err != nil {
		return Image{Kind: ImageOther, Reason: reasonOf(err)}
	}
	if img.Kind == ImageContent && img.Size == e.Size {
		e.SHA = img.SHA256
		s.stats.entries[rel] = e
		s.stats.dirty = true
	}
	return img
}

var _ = os.ModePerm
