package store

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// WatcherMinEntries is the tree size from which a shell step, or the UI,
// starts the background watcher when none runs: below it a full sweep
// costs about a millisecond, and a watcher would save nothing.
const WatcherMinEntries = 2000

// WatcherWanted says whether the background watcher is worth starting
// for this project, by what its sweeps found: a baseline worth watching
// (see worthWatching), watchers not turned off, and none refused within
// the hour. A project no shell sweep has run in has no baseline, and no
// use for one.
func (s *Store) WatcherWanted() bool {
	if WatcherOff() || s.WatcherRefused() != "" {
		return false
	}
	b, err := s.openBaseline(true) // its table's index and log, not its entries
	if b == nil || err != nil {
		return false
	}
	defer b.close()
	return worthWatching(b.size())
}

// WatcherWanted says whether, after the sweep that gave r, the
// background watcher is worth starting: none fed the sweep, the sweep
// looked at the tree (it was not skipped), and the tree it saw is worth
// watching, as Store.WatcherWanted asks of the baseline. It costs a
// hook's shell step no store call; Store.StartWatcher itself starts
// nothing while watchers are off or one was refused.
func (r *SweepResult) WatcherWanted() bool {
	return r.Feed == FeedNone && !r.Skipped && worthWatching(r.Seen)
}

// worthWatching is the watcher's size gate: a tree of n entries is worth
// watching from WatcherMinEntries on, and any with $CKPT_WATCHER=always.
func worthWatching(n int) bool {
	return n >= WatcherMinEntries || os.Getenv("CKPT_WATCHER") == "always"
}

// WatcherListening says whether something listens on the store's
// watcher socket, by connecting to it and asking nothing: a watcher
// that is hung still counts (starting another would only see it and
// exit), and the answer never waits on one.
func (s *Store) WatcherListening() bool {
	fi, err := s.dir.Lstat(WatchSocket)
	if err != nil || CheckSocket(fi) != nil {
		return err == nil // a socket that is not ckpt's own: start nothing beside it
	}
	dirFd := -1
	if len(s.path(WatchSocket)) >= 100 {
		d, err := os.Open(s.path(""))
		if err != nil {
			return false
		}
		defer d.Close()
		dirFd = int(d.Fd())
	}
	fd, err := dialWatcher(s.path(""), dirFd, 50*time.Millisecond)
	if err != nil {
		return !errors.Is(err, ErrNoWatcher)
	}
	unix.Close(fd)
	return true
}
