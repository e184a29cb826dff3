package store

import (
	"errors"
	"io/fs"
	"os"

	"github.com/ckpt-dev/ckpt/store/internal/pack"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// midxFile is the lookup index across packs (see pack.Midx and the
// package doc, "Packs").
const midxFile = pack.MidxFile

// midxMax bounds the file read into memory (about 2 million blobs).
const midxMax = 128 << 20

type midx = pack.Midx

// loadMidx reads the store's multi-pack index whole, checking all of it
// (verify's); nil when there is none. One that cannot be read is ignored
// (every pack's own index still serves), unless it is of a newer version.
func (s *Store) loadMidx() (*midx, error) {
	f, size, err := openRegular(s.dir, midxFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	if size > midxMax {
		return nil, errf("%s is %d bytes: %w", midxFile, size, ErrCorrupt)
	}
	b := make([]byte, size)
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, err
	}
	return pack.DecodeMidx(b)
}

// openMidx opens the store's multi-pack index for lookups, reading its
// head alone (see pack.Midx: a hook's lookup reads one bucket of it, not
// the 60 bytes of every blob of the store); nil when there is none. The
// file stays open for the lookups: the caller closes it.
func (s *Store) openMidx() (*midx, *os.File, error) {
	f, size, err := openRegular(s.dir, midxFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	if size > midxMax {
		f.Close()
		return nil, nil, errf("%s is %d bytes: %w", midxFile, size, ErrCorrupt)
	}
	m, err := pack.OpenMidx(f, size)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return m, f, nil
}

// midxNames is the names of the packs the store's multi-pack index
// covers, read from its head alone (see counts); none when there is no
// index or its head cannot be read.
func (s *Store) midxNames() []string {
	f, size, err := openRegular(s.dir, midxFile)
	if err != nil {
		return nil
	}
	defer f.Close()
	names, err := pack.MidxNames(f, size)
	if err != nil {
		return nil
	}
	return names
}

// writeMidx replaces the multi-pack index with one naming packs, durably:
// written beside it, synced, and renamed over it.
func (s *Store) writeMidx(packs []*packFile, fp *failpoint) error {
	named := make([]pack.Named, len(packs))
	for i, p := range packs {
		named[i] = pack.Named{Name: p.name, Ents: p.ents}
	}
	data := pack.EncodeMidx(named)
	if err := storefs.WriteAtomic(s.dir, midxFile, data, 0o600, true); err != nil {
		return errf("write %s: %w", s.path(midxFile), err)
	}
	fp.hit()
	if err := storefs.SyncDir(s.dir, "."); err != nil {
		return errf("sync %s: %w", s.path("."), err)
	}
	return nil
}
