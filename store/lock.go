package store

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// Two flock files order the store's writers. "lock" is taken exclusively
// by every writer of records. "blobs.lock" is held shared by captures from
// before they read the files until their records are written, and
// exclusively by prune (so it never deletes a blob a capture is about to
// name) and by rewind, undo and redo (so they wait for captures in
// flight). Whoever takes both takes blobs.lock first.
type lockFile struct {
	f *os.File
	w *writerNote // the store lock's: what its holder journals (clock_journal.go)
}

func (s *Store) flock(name string, how int) (*lockFile, error) {
	f, err := s.dir.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, errf("lock %s: %w", s.path(name), err)
	}
	return s.flockFile(f, name, how)
}

// flockShared takes a shared lock on name, made only when it is not
// there: a reader changes nothing in a store that has its lock files
// (every store this version made), even one a newer ckpt wrote.
func (s *Store) flockShared(name string) (*lockFile, error) {
	f, err := s.dir.OpenFile(name, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return s.flock(name, unix.LOCK_SH)
	}
	if err != nil {
		return nil, errf("lock %s: %w", s.path(name), err)
	}
	return s.flockFile(f, name, unix.LOCK_SH)
}

func (s *Store) flockFile(f *os.File, name string, how int) (*lockFile, error) {
	var err error
	for {
		err = unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, errf("lock %s: %w", s.path(name), err)
	}
	return &lockFile{f: f}, nil
}

// lock takes the store's exclusive lock, waiting for it.
func (s *Store) lock() (*lockFile, error) {
	l, err := s.flock("lock", unix.LOCK_EX)
	if err == nil {
		s.hold(l)
	}
	return l, err
}

// lockAll takes blobs.lock and the lock, both exclusively and in that
// order: what prune, rewind, undo, redo and recovery need.
func (s *Store) lockAll() (unlock func(), err error) {
	bl, err := s.flock("blobs.lock", unix.LOCK_EX)
	if err != nil {
		return nil, err
	}
	l, err := s.lock()
	if err != nil {
		bl.unlock()
		return nil, err
	}
	return func() { l.unlock(); bl.unlock() }, nil
}

// lockRead takes blobs.lock and repack.lock, both shared and in that
// order: what verify holds so that no writer removes or rewrites a file
// while it reads, and hooks still capture. Repack takes repack.lock
// without waiting, so one due while verify runs is put off, not queued.
func (s *Store) lockRead() (unlock func(), err error) {
	bl, err := s.flockShared("blobs.lock")
	if err != nil {
		return nil, err
	}
	rl, err := s.flockShared("repack.lock")
	if err != nil {
		bl.unlock()
		return nil, err
	}
	return func() { rl.unlock(); bl.unlock() }, nil
}

// readLocked reads a store file under the store lock, so no record is
// being appended to it meanwhile; the lock is held for the read alone.
func (s *Store) readLocked(name string) ([]byte, error) {
	l, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer l.unlock()
	return s.dir.ReadFile(name)
}

// LockSessions takes the store's hook.lock exclusively, waiting for it,
// and returns its release: hooks hold it while they look up and open a
// session's turn, so two parallel tool calls of one prompt open one turn.
// Like every store file it is never followed if a link.
func (s *Store) LockSessions() (unlock func(), err error) {
	l, err := s.flock("hook.lock", unix.LOCK_EX)
	if err != nil {
		return nil, err
	}
	return l.unlock, nil
}

// tryLock takes the exclusive lock without waiting; ok is false if
// another process holds it.
func (s *Store) tryLock() (*lockFile, bool, error) {
	l, err := s.flock("lock", unix.LOCK_EX|unix.LOCK_NB)
	if err != nil {
		if errorsIsWouldBlock(err) {
			return nil, false, nil
		}
		return nil, false, err
	}
	s.hold(l)
	return l, true, nil
}

func errorsIsWouldBlock(err error) bool {
	for e := err; e != nil; {
		if e == unix.EWOULDBLOCK {
			return true
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		e = u.Unwrap()
	}
	return false
}

func (l *lockFile) unlock() {
	if l == nil {
		return
	}
	if l.w != nil {
		l.w.flush()
	}
	_ = unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	l.f.Close()
}
