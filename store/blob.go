package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
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

// hasBlob reports whether a blob (ours or a seed's raw one) exists.
func (s *Store) hasBlob(sum string) bool {
	if !isHex64(sum) {
		return false
	}
	if _, err := s.dir.Lstat("blobs/" + sum + ".zst"); err == nil {
		return true
	}
	_, err := s.dir.Lstat("blobs/" + sum)
	return err == nil
}

// putBlob keeps data under its hash unless a blob of that hash exists. It
// reports whether it wrote a file; the caller makes the batch durable.
func (s *Store) putBlob(sum string, data []byte) (bool, error) {
	if s.hasBlob(sum) {
		return false, nil
	}
	enc, _ := zstdCodecs()
	z := enc.EncodeAll(data, make([]byte, 0, len(data)/3+64))
	name := "blobs/" + sum + ".zst"
	if err := writeFileAtomic(s.dir, name, z, 0o600, false); err != nil {
		return false, errf("keep blob %s: %w", s.path(name), err)
	}
	return true, nil
}

// readBlob returns the bytes named sum, checked against the name. It reads
// only inside blobs/ and only names of 64 hex digits.
func (s *Store) readBlob(sum string) ([]byte, error) {
	if !isHex64(sum) {
		return nil, errf("blob name %q is not 64 hex digits: %w", sum, ErrCorrupt)
	}
	name := "blobs/" + sum + ".zst"
	z, err := s.dir.ReadFile(name)
	var data []byte
	switch {
	case err == nil:
		_, dec := zstdCodecs()
		data, err = dec.DecodeAll(z, nil)
		if err != nil {
			return nil, errf("blob %s does not decompress: %w", s.path(name), ErrCorrupt)
		}
	case errors.Is(err, fs.ErrNotExist):
		name = "blobs/" + sum
		data, err = s.dir.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errf("blob %s is missing: %w", sum[:12], fs.ErrNotExist)
		}
		if err != nil {
			return nil, errf("read blob %s: %w", s.path(name), err)
		}
	default:
		return nil, errf("read blob %s: %w", s.path(name), err)
	}
	if hashHex(data) != sum {
		return nil, errf("blob %s does not match its hash: %w", s.path(name), ErrCorrupt)
	}
	return data, nil
}
