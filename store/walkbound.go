package store

import (
	"path/filepath"
	"time"
)

// Bounds of one walk; variables so tests can lower them.
var (
	walkMaxEntries int64 = 5_000_000
	walkMaxTime          = 45 * time.Second
)

// over checks the walk's bounds after rel listed n entries.
func (w *walker) over(rel string, n int) bool {
	total := w.seen.Add(int64(n))
	if total <= walkMaxEntries && time.Now().Before(w.deadline) {
		return false
	}
	if total > walkMaxEntries && total-int64(n) > walkMaxEntries {
		return true // crossed in another folder, which the error names
	}
	w.mu.Lock()
	if w.tooBig == nil || total > walkMaxEntries {
		where := filepath.Join(w.root, rel)
		if total > walkMaxEntries {
			w.tooBig = errf("sweep: stopped in %s after %d entries: the tree is too large to sweep (a pseudo file system or a loop of mounts?); add the folder to .ckptignore", where, total)
		} else {
			w.tooBig = errf("sweep: stopped in %s after %s and %d entries: the tree takes too long to sweep (a pseudo file system or a slow mount?); add the folder to .ckptignore", where, walkMaxTime, total)
		}
	}
	w.mu.Unlock()
	return true
}
