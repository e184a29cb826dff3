package store

import (
	"os"
	"path"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
	"golang.org/x/sys/unix"
)

// Write captures path, writes data to it (keeping its mode, or 0644 for a
// new file), and seals it. It returns the turn id used.
func (s *Store) Write(turn TurnID, meta TurnMeta, p string, data []byte) (TurnID, error) {
	// Held across capture, write and seal, so a rewind waits for all three
	// rather than landing between them.
	if err := s.ensureDirs(); err != nil {
		return "", err
	}
	bl, err := s.flock("blobs.lock", unix.LOCK_SH)
	if err != nil {
		return "", err
	}
	defer bl.unlock()
	id, err := s.Capture(turn, meta, []string{p})
	if err != nil {
		return "", err
	}
	rel, _ := s.Rel(p)
	perm := os.FileMode(0o644)
	if fi, err := s.root.Lstat(rel); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	if d := path.Dir(rel); d != "." {
		if err := s.root.MkdirAll(d, 0o755); err != nil {
			return id, errf("write %s: %w", rel, err)
		}
	}
	if err := storefs.WriteAtomic(s.root, rel, data, perm, true); err != nil {
		return id, errf("write %s: %w", rel, err)
	}
	_ = s.root.Chmod(rel, perm)
	return id, s.Seal(id, []string{rel})
}

// Remove captures paths, deletes them, and seals them. As for Capture,
// each path stands alone: the error is a *BatchError naming those that
// could not be captured, removed or sealed.
func (s *Store) Remove(turn TurnID, meta TurnMeta, paths []string) (TurnID, error) {
	if err := s.ensureDirs(); err != nil {
		return "", err
	}
	bl, err := s.flock("blobs.lock", unix.LOCK_SH)
	if err != nil {
		return "", err
	}
	defer bl.unlock()
	if err := turn.check(); err != nil {
		return "", errf("rm: %w", err)
	}
	rels, bad := s.rels(paths)
	id, err := s.capture(string(turn), meta, rels, &bad)
	if err != nil || id == "" {
		if err == nil {
			err = batchError("rm", bad)
		}
		return TurnID(id), err
	}
	failed := map[string]bool{}
	for _, b := range bad {
		failed[b.Path] = true
	}
	var gone []string
	for _, rel := range rels {
		if failed[rel] {
			continue
		}
		if err := s.root.Remove(rel); err != nil {
			bad = append(bad, PathError{Path: rel, Err: errf("remove: %w", err)})
		}
		// Sealed either way: the seal records what is there now.
		gone = append(gone, rel)
	}
	if err := s.seal(id, gone, &bad); err != nil {
		return TurnID(id), err
	}
	return TurnID(id), batchError("rm", bad)
}
