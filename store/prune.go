package store

import (
	"errors"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/pack"
	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// Prune drops turns chosen by o — older than the newest Keep, or older
// than OlderThan — and deletes the blobs nothing refers to any more. Blobs
// named by operations' steps stay, so every kept rewind can be undone;
// turns of the seed's index.json are never dropped (ckpt does not rewrite
// that file).
func (s *Store) Prune(o PruneOptions) (*PruneResult, error) {
	unlock, err := s.lockAll()
	if err != nil {
		return nil, err
	}
	defer unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	res := &PruneResult{}
	drop := map[string]bool{}
	n := len(v.turns)
	for i, t := range v.turns {
		old := (o.Keep > 0 && i < n-o.Keep) ||
			(o.OlderThan > 0 && time.Since(time.Unix(0, t.at)) > o.OlderThan)
		if old && !t.seed {
			drop[t.id] = true
			res.Turns = append(res.Turns, t.id)
		}
	}
	return res, s.pruneDrop(v, drop, res, o.DryRun, newFailpoint("prune"))
}

// pruneDrop removes the turns in drop and every blob nothing else names.
// Caller holds both locks exclusively and s.mu.
func (s *Store) pruneDrop(v *view, drop map[string]bool, res *PruneResult, dryRun bool, fp *failpoint) error {
	o := PruneOptions{DryRun: dryRun}
	live, err := s.liveBlobs(v, drop)
	if err != nil {
		return err
	}
	if !o.DryRun && len(drop) > 0 {
		// A load from before lists the turns anew.
		s.changeTurn(anyTurn)
	}
	if !o.DryRun {
		// Records go first: a crash then leaves unreferenced blobs, never
		// records naming deleted ones.
		for id := range drop {
			name := turnFileName(id)
			if err := s.dir.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return errf("prune: remove %s: %w", s.path(name), err)
			}
			_ = s.dir.Remove(turnIndexName(id)) // a cache: one left behind is of another file
			if err := s.dropConversation(id); err != nil {
				return errf("prune: %w", err)
			}
			fp.hit()
		}
	}
	return s.pruneBlobs(live, res, o, fp)
}

// liveBlobs is every blob a record outside drop, an operation's steps or
// the baseline names.
func (s *Store) liveBlobs(v *view, drop map[string]bool) (map[BlobID]bool, error) {
	live := map[BlobID]bool{}
	keep := func(img *Image) {
		if img != nil && img.Kind == ImageContent {
			if sum, err := blobOf(*img); err == nil {
				live[sum] = true
			}
		}
	}
	for _, t := range v.turns {
		if drop[t.id] {
			continue
		}
		keep(t.index) // git's index as the turn began
		if t.gitEnd != nil {
			keep(t.gitEnd.index) // and as it ended
		}
		for _, f := range t.list() {
			keep(&f.pre)
			keep(f.post)
		}
		if t.seed {
			continue
		}
		// A seal that a later one replaced still names its blob in the
		// file, and verify holds every blob a record names to be there.
		if data, err := s.dir.ReadFile(turnFileName(t.id)); err == nil {
			record.Each(data, func(r *record.Line) { keep(neededImage(r)) })
		}
	}
	// The baseline's blobs are the pre-images of the next shell command;
	// a newer pack's blobs, or a newer baseline's, are beyond judging.
	b, err := s.loadBaseline()
	if errors.Is(err, ErrNewerFormat) {
		return nil, errf("prune: %w", err)
	}
	_, bad := s.packs.list(s)
	for _, err := range bad {
		if errors.Is(err, ErrNewerFormat) {
			return nil, errf("prune: %w", err)
		}
	}
	if b != nil {
		for i := range b.entries {
			if b.entries[i].kind == baseFile {
				live[b.entries[i].sum] = true
			}
		}
	}
	// git's index as noted for a turn whose first record is still to
	// come (a hook's command is running; ckpt watch is between turns):
	// that record will name the copy.
	for _, name := range []string{gitBeforeFile, gitBeforeWatchFile} {
		if g, ok := s.readGitBefore(name); ok {
			keep(g.Index)
		}
	}
	for _, op := range v.ops {
		keep(op.indexWas)
		keep(op.indexSet)
		recs, err := s.steps(op.id)
		if err != nil {
			return nil, errf("prune: %w", err)
		}
		for i := range recs {
			keep(recs[i].Img)
			keep(recs[i].Want)
			keep(recs[i].Back)
		}
	}
	return live, nil
}

// pruneBlobs deletes the blobs not in live, loose and packed, packs the
// live loose ones kept as they are, and merges the packs left.
func (s *Store) pruneBlobs(live map[BlobID]bool, res *PruneResult, o PruneOptions, fp *failpoint) error {
	ents, err := fs.ReadDir(s.dir.FS(), "blobs")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errf("prune: read %s: %w", s.path("blobs"), err)
	}
	packed, freed, err := s.packStored(ents, func(sum BlobID) bool { return live[sum] }, o.DryRun, fp)
	if err != nil {
		return errf("prune: %w", err)
	}
	res.Packed += len(packed)
	res.BytesFreed += freed
	for _, e := range ents {
		sum, err := ParseBlobID(strings.TrimSuffix(e.Name(), ".zst"))
		if err != nil {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if live[sum] {
			// A loose copy of a blob a pack holds too (a small capture
			// keeps one without reading the packs' indexes) goes, once the
			// packed copy reads back whole.
			if src, ok := s.packs.find(s, sum, false); ok && s.checkSource(sum, -1, src) == nil {
				res.BytesFreed += fi.Size()
				if !o.DryRun {
					if err := s.dir.Remove("blobs/" + e.Name()); err != nil {
						return errf("prune: remove %s: %w", s.path("blobs/"+e.Name()), err)
					}
				}
			}
			continue
		}
		res.Blobs++
		res.BytesFreed += fi.Size()
		if !o.DryRun {
			if err := s.dir.Remove("blobs/" + e.Name()); err != nil {
				return errf("prune: remove %s: %w", s.path("blobs/"+e.Name()), err)
			}
		}
	}
	if err := s.prunePacks(live, res, o.DryRun, fp); err != nil {
		return err
	}
	if !o.DryRun {
		// Merge what is left and index it: blobs.lock, held exclusively,
		// keeps every other writer of packs out.
		if _, err := s.repackLocked(false, false, fp); err != nil {
			return errf("prune: %w", err)
		}
	}
	return nil
}

// prunePacks drops the blobs nothing refers to from the packs: a pack
// holding none that are live is removed; one holding some is rewritten
// with only those (frames copied as they are), and the new pack is made
// durable before the old one goes, so a crash at any point leaves every
// live blob in at least one pack. Leftovers of killed writers (.tmp-
// files) go too: the caller holds blobs.lock exclusively, so no capture
// is writing.
func (s *Store) prunePacks(live map[BlobID]bool, res *PruneResult, dry bool, fp *failpoint) error {
	if !dry {
		for _, dir := range []string{"blobs", "packs"} {
			list, _ := storefs.Names(s.dir, dir)
			for _, n := range list {
				if strings.HasPrefix(n, ".tmp-") && s.dir.Remove(dir+"/"+n) == nil {
					fp.hit()
				}
			}
		}
	}
	packs, _ := s.packs.list(s)
	sort.Slice(packs, func(i, j int) bool { return packs[i].name < packs[j].name })
	changed := false
	for _, p := range packs {
		var keep []pack.Entry
		for _, e := range p.ents {
			if live[e.Sum] {
				keep = append(keep, e)
				continue
			}
			res.Blobs++
			res.BytesFreed += e.ZLen
		}
		if len(keep) == len(p.ents) || dry {
			continue
		}
		changed = true
		name := "packs/" + p.name
		if len(keep) > 0 {
			w := s.newPackWriter(fp)
			for _, e := range keep {
				z := make([]byte, e.ZLen)
				if _, err := p.f.ReadAt(z, e.Off); err != nil {
					w.abort()
					return errf("prune: read %s: %w", s.path(name), err)
				}
				if err := w.add(e.Sum, z, e.Size); err != nil {
					w.abort()
					return errf("prune: %w", err)
				}
			}
			if err := w.commit(); err != nil {
				return errf("prune: %w", err)
			}
			if err := storefs.SyncFS(s.dir); err != nil {
				return errf("prune: sync %s: %w", s.path("packs"), err)
			}
			fp.hit()
		}
		if err := s.dir.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errf("prune: remove %s: %w", s.path(name), err)
		}
		fp.hit()
	}
	if changed {
		s.packs.forget()
		if err := storefs.SyncDir(s.dir, "packs"); err != nil {
			return errf("prune: sync %s: %w", s.path("packs"), err)
		}
	}
	return nil
}
