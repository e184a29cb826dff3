package store

import (
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// A hook keeps the few blobs of each call loose and as they are (see
// looseMax and looseStoredMax): a long session leaves thousands of them,
// a file and a disk block each, in one folder. The background pass packs
// them once packLooseAt have piled up, as git's gc packs loose objects,
// so a store holds at most about that many loose blobs whatever its
// history. Tests lower it.
var packLooseAt = 1024

// looseDue reports whether at least packLooseAt loose blobs that packLoose
// can pack wait for it: those kept as they are (packStored), not the
// compressed copies of big files, which stay loose, so that a store full
// of those is never due at every turn's end for a pass that packs nothing.
// It looks at most at 8×packLooseAt names, so a hook can ask it.
func (s *Store) looseDue() bool {
	f, err := s.dir.Open("blobs")
	if err != nil {
		return false
	}
	defer f.Close()
	n, seen := 0, 0
	for n < packLooseAt && seen < 8*packLooseAt {
		ents, err := f.ReadDir(packLooseAt)
		seen += len(ents)
		for _, e := range ents {
			if packable(e) {
				n++
			}
		}
		if err != nil || len(ents) == 0 {
			break
		}
	}
	return n >= packLooseAt
}

// packable reports whether packStored would pack the loose blob e: a
// regular file named for its hash, kept as it is (looseStoredMax).
func packable(e fs.DirEntry) bool {
	name := e.Name()
	if !strings.HasSuffix(name, ".zst") {
		return false
	}
	if _, err := ParseBlobID(strings.TrimSuffix(name, ".zst")); err != nil {
		return false
	}
	fi, err := e.Info()
	return err == nil && fi.Mode().IsRegular() && fi.Size() <= looseStoredMax+16
}

// packLoose is repack's first step: with packLooseAt loose blobs or more
// (any, with all), it packs those kept as they are (packStored) and
// returns every loose blob a pack now holds, to be removed once the
// lookup index is written (removeLoose). It leaves alone a blob that
// does not hash to its name, for verify to name. The caller holds
// blobs.lock, shared or exclusive, and repack.lock.
func (s *Store) packLoose(all bool, fp *failpoint) ([]string, int, error) {
	ents, err := fs.ReadDir(s.dir.FS(), "blobs")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, errf("repack: read %s: %w", s.path("blobs"), err)
	}
	n := 0
	for _, e := range ents {
		if _, err := ParseBlobID(strings.TrimSuffix(e.Name(), ".zst")); err == nil {
			n++
		}
	}
	if n == 0 || n < packLooseAt && !all {
		return nil, 0, nil
	}
	packed, _, err := s.packStored(ents, nil, false, fp)
	if err != nil {
		return nil, 0, errf("repack: %w", err)
	}
	var inPack []string
	for _, e := range ents {
		sum, err := ParseBlobID(strings.TrimSuffix(e.Name(), ".zst"))
		if err != nil {
			continue
		}
		if _, ok := s.packs.find(s, sum, false); ok {
			inPack = append(inPack, e.Name())
		}
	}
	return inPack, len(packed), nil
}

// removeLoose removes the loose copies named of blobs a pack holds, each
// once the packed copy reads back whole. A capture running beside it (it
// holds blobs.lock shared) that finds the loose copy gone finds the
// packed one: the pack is durable before any loose copy goes.
func (s *Store) removeLoose(names []string, fp *failpoint) error {
	for _, name := range names {
		sum, err := ParseBlobID(strings.TrimSuffix(name, ".zst"))
		if err != nil {
			continue
		}
		src, ok := s.packs.find(s, sum, false)
		if !ok || s.checkSource(sum, -1, src) != nil {
			continue
		}
		if err := s.dir.Remove("blobs/" + name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errf("repack: remove %s: %w", s.path("blobs/"+name), err)
		}
		fp.hit()
	}
	return nil
}

// packStored puts the loose blobs kept as they are (see looseStoredMax)
// that want accepts (every one, when want is nil) and no pack holds into
// one pack, compressed past storedMax (a small file's whole disk block
// saved either way), and makes it durable; the caller then removes each
// loose copy once the packed one reads back whole, so a crash at any
// point leaves every blob somewhere. A loose blob that does not hash to
// its name is left for verify to name. It returns the blobs packed and
// the bytes the pack takes, negative (with dry, which writes nothing,
// what packing would save, the loose copies' sizes counted).
func (s *Store) packStored(ents []fs.DirEntry, want func(BlobID) bool, dry bool, fp *failpoint) ([]BlobID, int64, error) {
	b, err := s.blobDir()
	if err != nil {
		return nil, 0, nil // no blobs folder: nothing loose
	}
	var w *packWriter
	var z []byte
	var packed []BlobID
	var freed int64
	for _, e := range ents {
		if !packable(e) {
			continue
		}
		sum, _ := ParseBlobID(strings.TrimSuffix(e.Name(), ".zst"))
		if want != nil && !want(sum) {
			continue
		}
		if _, ok := s.packs.find(s, sum, false); ok {
			continue
		}
		data, frame, ok := readStored(b, e.Name(), sum)
		if !ok {
			continue
		}
		if len(data) <= storedMax {
			z = append(z[:0], frame...) // kept as it is in a pack too
		} else {
			z = zstdPackEncoder().EncodeAll(data, z[:0])
		}
		packed = append(packed, sum)
		freed -= int64(len(z)) // the loose copy's removal counts its size
		if dry {
			freed += int64(len(frame))
			continue
		}
		if w == nil {
			w = s.newPackWriter(fp)
		}
		if err := w.add(sum, z, int64(len(data))); err != nil {
			w.abort()
			return nil, 0, err
		}
	}
	if w == nil {
		return packed, freed, nil
	}
	if err := w.commit(); err != nil {
		return nil, 0, err
	}
	if err := storefs.SyncFS(s.dir); err != nil {
		return nil, 0, errf("sync %s: %w", s.path("packs"), err)
	}
	fp.hit()
	s.packs.forget()
	return packed, freed, nil
}

// readStored reads the loose blob name, a frame storedFrame wrote, and
// returns its bytes and the frame; false when it is not one or does not
// hash to sum.
func readStored(b storefs.Root, name string, sum BlobID) ([]byte, []byte, bool) {
	f, n, err := openRegular(b, name)
	if err != nil {
		return nil, nil, false
	}
	frame := make([]byte, n)
	_, err = io.ReadFull(f, frame)
	f.Close()
	if err != nil {
		return nil, nil, false
	}
	data, ok := storedPayload(frame)
	if !ok || BlobID(sha256.Sum256(data)) != sum {
		return nil, nil, false
	}
	return data, frame, true
}
