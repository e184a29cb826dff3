package store

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// PurgedReason is the reason of an image whose bytes ckpt purge removed:
// such an image is of kind "skipped" (so a reader older than purge also
// reports it as not restorable) with exactly this reason.
const PurgedReason = record.PurgedReason

// StatusPurged is the status of a path whose kept bytes were purged.
const StatusPurged Status = "purged"

func purgedImage(img *Image) *Image {
	if img == nil || img.Kind == ImageAbsent || img.Purged() {
		return img
	}
	return &Image{Kind: ImageSkipped, Reason: PurgedReason, Mode: img.Mode}
}

// purgeFile is the journal of a purge under way: the paths, a line each.
// A purge killed part way is finished by the next Open that takes the
// lock (see Open), so no copy it was asked to remove outlives it.
const purgeFile = "purging"

// PurgeResult says what Purge removed.
type PurgeResult struct {
	Turns []string // turns whose records held a purged path
	Ops   []string // operations whose steps held one
	Blobs int      // blobs deleted, loose or packed
	// Shared counts the blobs that stay because records of other paths
	// hold the same bytes (those are the other paths' copies).
	Shared int
	// Conversations counts the conversation files the purged bytes were
	// redacted from (or removed, when one did not decode).
	Conversations int
}

// retryable reports whether running an undo or redo again could put
// back one of the paths it failed: not when every one was purged (its
// bytes are gone for good), so the next undo (redo) goes on down the
// stack instead of trying them again and again.
func retryable(fails []Failure) bool {
	for _, f := range fails {
		if !strings.HasSuffix(f.Reason, PurgedReason) {
			return true
		}
	}
	return false
}

// inPurge reports whether p is one of paths or lies under one.
func inPurge(paths []string, p string) bool {
	for _, x := range paths {
		if p == x || strings.HasPrefix(p, x+"/") {
			return true
		}
	}
	return false
}

// Purge removes every kept copy of paths (root-relative; a folder takes
// everything under it): their images in turn files and operations'
// steps become purged (a rewind, undo or redo reports them as purged,
// never restores them), the baseline and the stat cache forget them, and
// every blob only they named is deleted, loose or from the packs that
// held it; what those blobs held is redacted from the conversation files
// (see purgeConversations). It takes both locks. Crash-safe: the paths are journaled
// durably first, each record file is replaced whole, records go before
// blobs, and an interrupted purge is carried forward by the next Open.
func (s *Store) Purge(paths []string) (*PurgeResult, error) {
	unlock, err := s.lockAll()
	if err != nil {
		return nil, err
	}
	defer unlock()
	fp := newFailpoint("purge")
	var journal []byte
	for _, p := range paths {
		if p == "" || strings.ContainsAny(p, "\n\x00") {
			return nil, errf("purge: %q is not a path to purge", p)
		}
		journal = append(journal, record.EscName(p)+"\n"...)
	}
	// The blobs go in the journal too: once the records are rewritten,
	// they no longer say which blobs were the paths'.
	gone := map[BlobID]bool{}
	s.mu.Lock()
	_, err = s.purgeScan(paths, gone, false, fp)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	journal = append(journal, '\n')
	for sum := range gone {
		journal = append(journal, sum.String()+"\n"...)
	}
	if err := storefs.WriteAtomic(s.dir, purgeFile, journal, 0o600, true); err != nil {
		return nil, errf("purge: write %s: %w", s.path(purgeFile), err)
	}
	if err := storefs.SyncDir(s.dir, "."); err != nil {
		return nil, errf("purge: sync %s: %w", s.path("."), err)
	}
	fp.hit()
	return s.purgeLocked(paths, gone, fp)
}

// finishPurgeLocking is finishPurge taking the locks first.
func (s *Store) finishPurgeLocking() error {
	unlock, err := s.lockAll()
	if err != nil {
		return err
	}
	defer unlock()
	return s.finishPurge()
}

// finishPurge carries forward a purge a killed process left journaled.
// Caller holds both locks.
func (s *Store) finishPurge() error {
	data, err := s.dir.ReadFile(purgeFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return errf("read %s: %w", s.path(purgeFile), err)
	}
	var paths []string
	gone := map[BlobID]bool{}
	head, sums, _ := strings.Cut(string(data), "\n\n")
	for _, l := range strings.Split(head, "\n") {
		if l != "" {
			paths = append(paths, record.UnescName(l))
		}
	}
	for _, l := range strings.Split(sums, "\n") {
		if sum, err := ParseBlobID(l); err == nil {
			gone[sum] = true
		}
	}
	_, err = s.purgeLocked(paths, gone, &failpoint{})
	if err == nil && s.notify != nil {
		s.notify("finished purging " + strings.Join(paths, ", ") + ", which an interrupted ckpt purge left half done")
	}
	return err
}

func (s *Store) purgeLocked(paths []string, gone map[BlobID]bool, fp *failpoint) (*PurgeResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res, err := s.purgeScan(paths, gone, true, fp)
	if err != nil {
		return nil, err
	}
	if err := s.purgeConversations(gone, res, fp); err != nil {
		return nil, err
	}
	s.cache = cache{}
	s.loadStats()
	for p := range s.stats.entries {
		if inPurge(paths, p) {
			delete(s.stats.entries, p)
			s.stats.dirty = true
		}
	}
	s.saveStats()
	if err := s.purgeBlobs(gone, res, fp); err != nil {
		return nil, err
	}
	if err := s.dir.Remove(purgeFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, errf("purge: remove %s: %w", s.path(purgeFile), err)
	}
	fp.hit()
	sort.Strings(res.Turns)
	sort.Strings(res.Ops)
	return res, nil
}

// purgeScan finds the records of paths in turn files, operations' steps
// and the baseline, adding the blobs they name to gone; with write it
// replaces each file holding one (see purgeRecords). Caller holds s.mu.
func (s *Store) purgeScan(paths []string, gone map[BlobID]bool, write bool, fp *failpoint) (*PurgeResult, error) {
	res := &PurgeResult{}
	note := func(img *Image) {
		if img == nil || img.SHA256.IsZero() || (img.Kind != ImageContent && img.Kind != ImageSkipped) {
			return
		}
		if sum, err := blobOf(*img); err == nil {
			gone[sum] = true
		}
	}
	for _, dir := range []string{"turns", "ops"} {
		list, err := storefs.Names(s.dir, dir)
		if err != nil {
			return nil, errf("purge: read %s: %w", s.path(dir), err)
		}
		for _, n := range list {
			if !strings.HasSuffix(n, ".log") && !strings.HasSuffix(n, ".steps") {
				continue
			}
			id, changed, err := s.purgeRecords(dir+"/"+n, paths, note, write, fp)
			if err != nil {
				return nil, err
			}
			switch {
			case changed && dir == "turns":
				res.Turns = append(res.Turns, id)
			case changed:
				res.Ops = append(res.Ops, strings.TrimSuffix(n, ".steps"))
			}
		}
	}
	if err := s.purgeBaseline(paths, note, write, fp); err != nil {
		return nil, err
	}
	return res, nil
}

// purgeRecords replaces the record file name with one whose records of
// paths hold purged images, when any does; other lines are kept byte for
// byte (a damaged one too), a torn last one is cut. It returns the turn
// id of a turn file.
func (s *Store) purgeRecords(name string, paths []string, note func(*Image), write bool, fp *failpoint) (string, bool, error) {
	data, err := s.dir.ReadFile(name)
	if err != nil {
		return "", false, errf("purge: read %s: %w", s.path(name), err)
	}
	var out []byte
	id, changed := "", false
	var r record.Line
	for len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			break // a torn last record: cut, as the next writer would
		}
		line := data[:nl+1]
		data = data[nl+1:]
		if !record.DecodeLine(line[:nl], &r) {
			out = append(out, line...)
			continue
		}
		if r.R == "turn" && id == "" {
			id = r.ID
		}
		if (r.R == "pre" || r.R == "post" || r.R == "step") && inPurge(paths, r.Path) {
			for _, img := range []**Image{&r.Img, &r.Want, &r.Back} {
				if p := purgedImage(*img); p != *img {
					note(*img)
					*img = p
					changed = true
				}
			}
			out = record.Append(out, &r)
			continue
		}
		out = append(out, line...)
	}
	if !changed || !write {
		return id, changed, nil
	}
	if strings.HasPrefix(name, "turns/") {
		s.changeTurn(name)
	}
	if err := storefs.WriteAtomic(s.dir, name, out, 0o600, true); err != nil {
		return "", false, errf("purge: write %s: %w", s.path(name), err)
	}
	if idx, ok := strings.CutSuffix(name, ".log"); ok {
		// Its records moved: the turn's path index (which names the file
		// it indexes, so would not be trusted anyway) goes.
		_ = s.dir.Remove(idx + ".idx") // a cache: one that stays is of another file
	}
	fp.hit()
	return id, true, nil
}

// purgeBaseline drops paths from the baseline, so no sweep takes their
// kept bytes as a pre-image again; the next sweep reads them afresh.
func (s *Store) purgeBaseline(paths []string, note func(*Image), write bool, fp *failpoint) error {
	b, err := s.loadBaseline()
	if err != nil || b == nil {
		return nil // none, or damaged: a sweep reads every file anyway
	}
	kept := b.entries[:0]
	n := len(b.entries)
	parents := map[string]bool{}
	for _, e := range b.entries {
		if inPurge(paths, e.path) {
			if e.kind == baseFile || e.kind == baseSkipped {
				gone := Image{Kind: ImageContent, SHA256: e.sum}
				note(&gone)
			}
			parents[path.Dir(e.path)] = true
			continue
		}
		kept = append(kept, e)
	}
	if len(kept) == n || !write {
		return nil
	}
	// A sweep reuses the listing of a folder whose times it knows: the
	// folders that held a purged path lose theirs, so the next sweep lists
	// them and finds the path again.
	for i := range kept {
		if e := &kept[i]; e.kind == baseDir && parents[e.path] {
			e.mtime, e.ctime, e.ino = 0, 0, 0
		}
	}
	b.entries = kept
	// What stands at a purged path now is no turn's change: the next
	// sweep takes it as a hand edit, into no turn, even within the turn
	// of the last sweep (which would record its bytes as the command's).
	b.turn, b.cmd = "", ""
	if err := s.saveBaseline(b); err != nil {
		return errf("purge: %w", err)
	}
	fp.hit()
	return nil
}

// purgeBlobs deletes the blobs in gone that no record left names: loose
// files, and their frames from the packs (each such pack rewritten
// without them, durable before the old one goes).
func (s *Store) purgeBlobs(gone map[BlobID]bool, res *PurgeResult, fp *failpoint) error {
	v, err := s.load()
	if err != nil {
		return err
	}
	live, err := s.liveBlobs(v, nil)
	if err != nil {
		return err
	}
	doomed := map[BlobID]bool{}
	for sum := range gone {
		if live[sum] {
			res.Shared++
			continue
		}
		doomed[sum] = true
	}
	if len(doomed) == 0 {
		return nil
	}
	if b, err := s.blobDir(); err == nil {
		for sum := range doomed {
			for _, n := range []string{sum.String() + ".zst", sum.String()} {
				if err := b.Remove(n); err == nil {
					res.Blobs++
					fp.hit()
				} else if !errors.Is(err, fs.ErrNotExist) {
					return errf("purge: remove %s: %w", s.path("blobs/"+n), err)
				}
			}
		}
	}
	// Every packed blob but the doomed stays.
	keep := map[BlobID]bool{}
	packs, _ := s.packs.list(s)
	for _, p := range packs {
		for _, e := range p.ents {
			if !doomed[e.Sum] {
				keep[e.Sum] = true
			}
		}
	}
	var pr PruneResult
	if err := s.prunePacks(keep, &pr, false, fp); err != nil {
		return err
	}
	res.Blobs += pr.Blobs
	if _, err := s.repackLocked(false, false, fp); err != nil {
		return errf("purge: %w", err)
	}
	return nil
}

// PurgeTargets lists the turns whose records hold a kept copy of paths
// (what Purge would change), and how many of those entries there are.
func (s *Store) PurgeTargets(paths []string) ([]string, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, 0, err
	}
	var turns []string
	n := 0
	for _, t := range v.turns {
		hit := false
		for _, f := range t.list() {
			if inPurge(paths, f.path) && (purgedImage(&f.pre) != &f.pre || purgedImage(f.post) != f.post) {
				hit = true
				n++
			}
		}
		if hit {
			turns = append(turns, t.id)
		}
	}
	return turns, n, nil
}
