package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
)

var (
	zenc     *zstd.Encoder
	zdec     *zstd.Decoder
	zsetOnce sync.Once
)

func zstdCodecs() (*zstd.Encoder, *zstd.Decoder) {
	zsetOnce.Do(func() {
		// EncodeAll and DecodeAll are safe for concurrent use; one of each
		// serves every goroutine. The fastest level keeps Go source at about
		// a quarter of its size at ~185 MB/s a core.
		zenc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		zdec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<34))
	})
	return zenc, zdec
}

func hashHex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// blobDir opens the blobs folder once; seed stores without one have no
// blobs.
func (s *Store) blobDir() (*os.Root, error) {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	if s.blobs != nil {
		return s.blobs, nil
	}
	r, err := s.dir.OpenRoot("blobs")
	if err != nil {
		return nil, err
	}
	s.blobs = r
	return r, nil
}

// hasBlob reports whether a blob (ours or a seed's raw one) exists.
func (s *Store) hasBlob(sum string) bool {
	if !isHex64(sum) {
		return false
	}
	b, err := s.blobDir()
	if err != nil {
		return false
	}
	if _, err := b.Lstat(sum + ".zst"); err == nil {
		return true
	}
	_, err = b.Lstat(sum)
	return err == nil
}

// blobNames lists the blobs present, for a batch that would otherwise
// look each one up.
func (s *Store) blobNames() map[string]bool {
	have := map[string]bool{}
	list, _ := names(s.dir, "blobs")
	for _, n := range list {
		have[strings.TrimSuffix(n, ".zst")] = true
	}
	return have
}

// putBlob keeps data under its hash unless a blob of that hash exists
// (known, when not nil, lists those present). It reports whether it wrote
// a file; the caller makes the batch durable.
func (s *Store) putBlob(sum string, data []byte, known map[string]bool) (bool, error) {
	if known != nil && known[sum] || known == nil && s.hasBlob(sum) {
		return false, nil
	}
	b, err := s.blobDir()
	if err != nil {
		return false, errf("keep blob: open %s: %w", s.path("blobs"), err)
	}
	enc, _ := zstdCodecs()
	z := enc.EncodeAll(data, make([]byte, 0, len(data)/3+64))
	name := sum + ".zst"
	if err := writeFileAtomic(b, name, z, 0o600, false); err != nil {
		return false, errf("keep blob %s: %w", s.path("blobs/"+name), err)
	}
	return true, nil
}

// readBlob returns the bytes named sum, checked against the name. It reads
// only inside blobs/ and only names of 64 hex digits.
func (s *Store) readBlob(sum string) ([]byte, error) {
	if !isHex64(sum) {
		return nil, errf("blob name %q is not 64 hex digits: %w", sum, ErrCorrupt)
	}
	b, err := s.blobDir()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errf("blob %s is missing: %w", sum[:12], fs.ErrNotExist)
	}
	if err != nil {
		return nil, errf("read blob %s: %w", sum[:12], err)
	}
	name := sum + ".zst"
	z, err := b.ReadFile(name)
	var data []byte
	switch {
	case err == nil:
		_, dec := zstdCodecs()
		data, err = dec.DecodeAll(z, nil)
		if err != nil {
			return nil, errf("blob %s does not decompress: %w", s.path("blobs/"+name), ErrCorrupt)
		}
	case errors.Is(err, fs.ErrNotExist):
		name = sum
		data, err = b.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errf("blob %s is missing: %w", sum[:12], fs.ErrNotExist)
		}
		if err != nil {
			return nil, errf("read blob %s: %w", s.path("blobs/"+name), err)
		}
	default:
		return nil, errf("read blob %s: %w", s.path("blobs/"+name), err)
	}
	if hashHex(data) != sum {
		return nil, errf("blob %s does not match its hash: %w", s.path("blobs/"+name), ErrCorrupt)
	}
	return data, nil
}
