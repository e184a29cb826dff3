package store

import (
	"errors"
	"io/fs"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// Repacking (see the package doc, "Packs"): every shell step or bulk
// capture that keeps more than a few blobs writes a pack of its own, so
// packs pile up. A repack merges the small ones, keeping the packs'
// sizes a geometric progression (each at least twice all smaller ones
// together), so a store holds a few dozen packs at most whatever its
// history, and each byte is copied a logarithmic number of times.
const (
	// repackUncovered is the number of packs packs.idx does not cover
	// at which a repack is due.
	repackUncovered = 4
	// packsMax is the most packs a repack leaves: past it every pack is
	// merged into one.
	packsMax = 16
)

// RepackDue reports whether a repack would do anything worth its cost:
// enough packs the lookup index does not cover, or too many packs.
func (s *Store) RepackDue() bool {
	packs, uncovered := s.packs.counts(s)
	return uncovered >= repackUncovered || packs > packsMax || uncovered > 0 && packs > packsMax/2 || s.looseDue()
}

// RepackResult says what a repack did.
type RepackResult struct {
	Merged int // packs merged
	Packs  int // packs left
	Loose  int // loose blobs packed (see packLoose)
	Busy   bool
}

// Repack packs the loose blobs once enough have piled up (see
// packLooseAt; every one, with all), merges small packs (every pack,
// with all) and writes the lookup index across them. It holds blobs.lock shared, so captures go on while it works and prune
// (which takes it exclusively) waits, and repack.lock exclusively, so one
// repack runs at a time; when another holds it, Repack returns at once
// with Busy set. Crash-safe at every step: the merged pack is durable
// before the index naming it is written, and the index before the packs
// it replaces are removed, so a blob is in some pack throughout (a pack
// the index does not cover is read by its own index); a loose blob is
// removed only once a durable pack holds it whole.
func (s *Store) Repack(all bool) (*RepackResult, error) {
	return s.repack(all, all)
}

// repack is Repack; allLoose packs the loose blobs however few they are
// (maintain --now).
func (s *Store) repack(all, allLoose bool) (*RepackResult, error) {
	bl, err := s.flock("blobs.lock", unix.LOCK_SH)
	if err != nil {
		return nil, err
	}
	defer bl.unlock()
	rl, err := s.flock("repack.lock", unix.LOCK_EX|unix.LOCK_NB)
	if err != nil {
		if errorsIsWouldBlock(err) {
			return &RepackResult{Busy: true}, nil
		}
		return nil, err
	}
	defer rl.unlock()
	return s.repackLocked(all, allLoose, newFailpoint("repack"))
}

// repackLocked is Repack for a caller that keeps other writers of packs
// out (Repack, or prune holding blobs.lock exclusively).
func (s *Store) repackLocked(all, allLoose bool, fp *failpoint) (*RepackResult, error) {
	inPack, loose, err := s.packLoose(allLoose, fp)
	if err != nil {
		return nil, err
	}
	packs, bad := s.packs.list(s)
	for _, err := range bad {
		if errors.Is(err, ErrNewerFormat) {
			return nil, errf("repack: %w", err)
		}
	}
	merge := geometricMerge(packs)
	if all && len(packs) > 1 {
		merge = packs
	}
	res := &RepackResult{Merged: len(merge), Loose: loose}
	keep := packs
	var gone []*packFile
	if len(merge) > 1 {
		p, err := s.mergePacks(merge, fp)
		if err != nil {
			return nil, err
		}
		keep = []*packFile{p}
		for _, q := range packs {
			if q.name == p.name {
				continue
			}
			if containsPack(merge, q) {
				gone = append(gone, q)
			} else {
				keep = append(keep, q)
			}
		}
	} else {
		res.Merged = 0
	}
	if err := s.writeMidx(keep, fp); err != nil {
		return nil, errf("repack: %w", err)
	}
	for _, q := range gone {
		name := "packs/" + q.name
		if err := s.dir.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, errf("repack: remove %s: %w", s.path(name), err)
		}
		fp.hit()
	}
	if len(gone) > 0 {
		if err := storefs.SyncDir(s.dir, "packs"); err != nil {
			return nil, errf("repack: sync %s: %w", s.path("packs"), err)
		}
	}
	s.packs.forget()
	if err := s.removeLoose(inPack, fp); err != nil {
		return nil, err
	}
	res.Packs = len(keep)
	return res, nil
}

func containsPack(list []*packFile, p *packFile) bool {
	for _, q := range list {
		if q == p {
			return true
		}
	}
	return false
}

// geometricMerge chooses the packs to merge: the smallest ones, as few
// as leave every larger pack at least twice the size of all smaller ones
// together (the merged one included). Past packsMax packs, all of them.
func geometricMerge(packs []*packFile) []*packFile {
	bySize := append([]*packFile(nil), packs...)
	sort.Slice(bySize, func(i, j int) bool { return bySize[i].size < bySize[j].size })
	k := 0
	var prefix int64
	for j, p := range bySize {
		if p.size < 2*prefix {
			k = j + 1
		}
		prefix += p.size
	}
	if k == 1 {
		k = 0
	}
	if len(bySize)-k+min(k, 1) > packsMax {
		k = len(bySize)
	}
	return bySize[:k]
}

// mergePacks writes one pack holding every blob of packs (frames copied
// as they are, each blob once) and makes it durable.
func (s *Store) mergePacks(packs []*packFile, fp *failpoint) (*packFile, error) {
	w := s.newPackWriter(fp)
	for _, p := range packs {
		for _, e := range p.ents {
			if w.has(e.Sum) {
				continue
			}
			z := make([]byte, e.ZLen)
			if _, err := p.f.ReadAt(z, e.Off); err != nil {
				w.abort()
				return nil, errf("repack: read %s: %w", s.path("packs/"+p.name), err)
			}
			if err := w.add(e.Sum, z, e.Size); err != nil {
				w.abort()
				return nil, errf("repack: %w", err)
			}
		}
	}
	if err := w.commit(); err != nil {
		return nil, errf("repack: %w", err)
	}
	if err := storefs.SyncFS(s.dir); err != nil {
		return nil, errf("repack: sync %s: %w", s.path("packs"), err)
	}
	fp.hit()
	p, err := openPack(s.dir, strings.TrimPrefix(w.name, "packs/"))
	if err != nil {
		return nil, errf("repack: read back %s: %w", s.path(w.name), err)
	}
	return p, nil
}

// PackCounts returns the number of packs and of loose blobs in the store,
// for verify and doctor.
func (s *Store) PackCounts() (packs, loose int) {
	packs, _ = s.packs.counts(s)
	list, _ := storefs.Names(s.dir, "blobs")
	for _, n := range list {
		if _, err := ParseBlobID(strings.TrimSuffix(n, ".zst")); err == nil {
			loose++
		}
	}
	return packs, loose
}
