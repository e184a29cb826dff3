package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// Writing git's index under git's own lock, crash-safe. Git takes
// .git/index.lock by creating it exclusively, writes the new index into
// it and renames it over .git/index; while it exists no other git
// command writes the index. ckpt does the same, in steps a crash at any
// point leaves recoverable:
//
//  1. the store notes, durably, the operation and the name of a file of
//     ckpt's own beside the index (index-lock in the store; the file is
//     .git/index.ckpt-<op>, a name git never uses);
//  2. the new bytes go to that file, synced;
//  3. the file is linked to index.lock: a link, like an exclusive
//     create, fails when index.lock exists, so git and ckpt never both
//     hold it;
//  4. the operation is logged, index.lock is renamed over the index, and
//     ckpt's own name and the note are removed.
//
// The next ckpt command that opens the store finds the note. An
// index.lock is ckpt's only when it is the very file ckpt's own name
// still names (the same device and inode): then it is renamed over the
// index if the operation was logged (carrying it forward, as for the
// files), and removed otherwise (the operation never happened). Any
// other index.lock is git's, and is never touched; ckpt's own name is
// removed either way.

// indexLockNote is the store's note of an index.lock ckpt is taking.
const indexLockNote = "index-lock"

type indexLock struct {
	Op     string  `json:"op"`
	GitDir string  `json:"gitdir"` // ".git" in the root, or a worktree's absolute gitdir
	Temp   string  `json:"temp"`   // ckpt's own name for the file, beside the index
	Want   blob.ID `json:"want"`   // what the file holds
}

// devIno is a file's device and inode, to know it again.
func devIno(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true // Dev is an int32 on macOS
}

// sameGitFile says whether names a and b in g are one file (links of it).
func sameGitFile(g gitRepo, a, b string) bool {
	fa, err := g.stat(a)
	if err != nil || !fa.Mode().IsRegular() {
		return false
	}
	fb, err := g.stat(b)
	if err != nil || !fb.Mode().IsRegular() {
		return false
	}
	da, ia, ok := devIno(fa)
	db, ib, ok2 := devIno(fb)
	return ok && ok2 && da == db && ia == ib
}

// lockIndex takes git's index.lock holding step's bytes (steps 1 to 3
// above) for operation op. It returns the index's bytes before (kept as
// a blob) for the operation's record, and unlock, which renames the lock
// over the index (commit) or removes it, then drops ckpt's own name and
// the note.
func (s *Store) lockIndex(op string, step *IndexStep, fp *failpoint) (was Image, unlock func(commit bool) error, err error) {
	g, ok := openGit(s.root)
	if !ok {
		return Image{}, nil, errf("git's index: the project is not a git repository")
	}
	data, err := s.readBlobOf(step.Want)
	if err != nil {
		return Image{}, nil, errf("git's index: read its kept bytes: %w", err)
	}
	lockName := g.name("index.lock")
	locked := func() error {
		return errf("%s: %w (is git running? if not, remove it); nothing was changed", lockName, ErrIndexLocked)
	}
	if _, err := g.stat("index.lock"); err == nil {
		return Image{}, nil, locked()
	}
	n := &indexLock{Op: op, GitDir: g.dir, Temp: "index.ckpt-" + op, Want: blob.Of(data)}
	b, err := json.Marshal(n)
	if err == nil {
		err = storefs.WriteAtomic(s.dir, indexLockNote, b, 0o600, true)
	}
	if err != nil {
		return Image{}, nil, errf("git's index: note the lock in %s: %w", s.path(indexLockNote), err)
	}
	fp.hit()
	done := func() error { // ckpt's name and the note go, in that order
		if err := g.remove(n.Temp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errf("git's index: remove %s: %w", g.name(n.Temp), err)
		}
		return s.dir.Remove(indexLockNote)
	}
	abandon := func() error {
		if sameGitFile(g, n.Temp, "index.lock") {
			if err := g.remove("index.lock"); err != nil {
				return errf("git's index: remove %s: %w", lockName, err)
			}
		}
		return done()
	}
	_ = g.remove(n.Temp) // a leftover of this very op id, which was never logged
	f, err := g.create(n.Temp)
	if err != nil {
		_ = done()
		return Image{}, nil, errf("git's index: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = done()
		return Image{}, nil, errf("git's index: write %s: %w", g.name(n.Temp), err)
	}
	fp.hit()
	if err := g.link(n.Temp, "index.lock"); err != nil {
		_ = done()
		if errors.Is(err, fs.ErrExist) {
			return Image{}, nil, locked()
		}
		return Image{}, nil, errf("git's index: take %s: %w; nothing was changed", lockName, err)
	}
	fp.hit()
	// Under the lock, the index cannot change: keep it as it is now, for
	// the undo.
	cur, _, err := s.keepIndexBytes(g)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		_ = abandon()
		return Image{}, nil, errf("git's index: keep its bytes: %w", err)
	}
	if err == nil && cur.SHA256 != step.Now.SHA256 {
		_ = abandon()
		return Image{}, nil, errf("git's index: %w (it changed since the plan was made; nothing was changed)", ErrPlanChanged)
	}
	return cur, func(commit bool) error {
		if !commit {
			return abandon()
		}
		if err := g.rename("index.lock", "index"); err != nil {
			_ = abandon()
			return errf("git's index: put it in place: %w", err)
		}
		fp.hit()
		return done()
	}, nil
}

// takeIndex takes git's index.lock for q's write of the index, if it has
// one, for operation op: the images of the index before and after for
// the operation's record, and commit, which puts the new index in place
// (true) or drops the lock (false).
func (s *Store) takeIndex(op string, q *Plan, fp *failpoint) (was, set *Image, commit func(bool) error, err error) {
	if q.Index == nil {
		return nil, nil, func(bool) error { return nil }, nil
	}
	before, unlock, err := s.lockIndex(op, q.Index, fp)
	if err != nil {
		return nil, nil, nil, err
	}
	want := q.Index.Want
	return &before, &want, unlock, nil
}

// hasIndexLockNote says whether a write of git's index may have been
// interrupted.
func (s *Store) hasIndexLockNote() bool {
	_, err := s.dir.Lstat(indexLockNote)
	return err == nil
}

// recoverIndexLock finishes or rolls back a write of git's index that a
// killed process left (see the top of this file). Caller holds both
// locks.
func (s *Store) recoverIndexLock() error {
	b, err := s.dir.ReadFile(indexLockNote)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var n indexLock
	if err == nil {
		err = json.Unmarshal(b, &n)
	}
	if err != nil || n.Op == "" || n.GitDir == "" || !strings.HasPrefix(n.Temp, "index.ckpt-") || strings.ContainsRune(n.Temp, '/') {
		// Unreadable: nothing in .git can be known by it, so nothing
		// there is touched.
		s.LogError("git's index: %s cannot be read (%v); .git is left as it is", s.path(indexLockNote), err)
		return s.dir.Remove(indexLockNote)
	}
	g := gitRepo{root: s.root, dir: n.GitDir}
	ops, err := s.readOps()
	if err != nil {
		return err
	}
	logged := false
	for _, o := range ops {
		logged = logged || o.id == n.Op
	}
	var msg string
	if sameGitFile(g, n.Temp, "index.lock") {
		if data, err := g.readFile("index.lock"); logged && err == nil && blob.Of(data) == n.Want {
			if err := g.rename("index.lock", "index"); err != nil {
				return errf("finish writing git's index for %s: %w", n.Op, err)
			}
			msg = fmt.Sprintf("finished writing git's index for %s, which was interrupted", n.Op)
		} else {
			if err := g.remove("index.lock"); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return errf("remove the index.lock ckpt took for %s: %w", n.Op, err)
			}
			msg = fmt.Sprintf("removed the %s ckpt took for %s, which was interrupted before it changed anything", g.name("index.lock"), n.Op)
			if logged {
				msg = fmt.Sprintf("removed the %s ckpt took for %s, which was interrupted: it does not hold what it was to write, so git's index was not put back", g.name("index.lock"), n.Op)
			}
		}
	}
	if err := g.remove(n.Temp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errf("remove %s: %w", g.name(n.Temp), err)
	}
	if err := s.dir.Remove(indexLockNote); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errf("remove %s: %w", s.path(indexLockNote), err)
	}
	if msg != "" {
		s.LogError("%s", msg)
		if s.notify != nil {
			s.notify(msg)
		}
	}
	return nil
}
