package cli

import (
	"context"
	"sync"

	"github.com/ckpt-dev/ckpt/store"
)

// watcherGate is what a watcherStarter asks of a store (a *store.Store).
type watcherGate interface {
	WatcherWanted() bool
	WatcherListening() bool
	StartWatcher(exe string) error
	LogError(format string, args ...any)
}

var _ watcherGate = (*store.Store)(nil)

// watcherStarter starts the background watcher (ckpt watch --serve, by
// running exe) for the UI's project when its shell sweeps would use one
// (the store's gate, WatcherWanted) and nothing listens on the watcher's
// socket, as a hook's shell step does. The UI calls try from a command:
// at start, once a store appears in a project that had none, and again as
// the log changes until a watcher runs. try asks no watcher anything (a
// hung one only has to hold the socket), and the watcher it starts is
// detached (store.StartWatcher). A person who opens the UI as a session
// begins so has the watcher watching before the agent's next shell call,
// not from it on.
//
// Its lifetime is the UI's: stop, called once the UI has quit and before
// the store is closed, ends it and waits for a try under way, so none
// touches a store after it is closed; a try after stop does nothing.
type watcherStarter struct {
	exe    string
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	wg     sync.WaitGroup
	// done: a watcher runs, or none will be started (no executable,
	// watchers turned off): try asks no more.
	done bool
}

func newWatcherStarter(exe string) *watcherStarter {
	ctx, cancel := context.WithCancel(context.Background())
	return &watcherStarter{exe: exe, ctx: ctx, cancel: cancel}
}

// try starts the watcher for s if its gate says so and none listens; it
// says whether to ask no more. Errors go to the store's error log.
func (w *watcherStarter) try(s watcherGate) (done bool) {
	w.mu.Lock()
	if w.done || w.ctx.Err() != nil || w.exe == "" {
		w.mu.Unlock()
		return true
	}
	w.wg.Add(1) // under mu, so stop never waits on a try it let pass
	w.mu.Unlock()
	defer w.wg.Done()
	ended := func() bool { return w.ctx.Err() != nil } // the UI quit meanwhile
	switch {
	case store.WatcherOff():
		done = true
	case ended() || !s.WatcherWanted():
		// Not yet (the tree is small, or no shell sweep ran): a later try
		// asks again.
	case ended():
	case s.WatcherListening():
		done = true
	case ended():
	default:
		if err := s.StartWatcher(w.exe); err != nil {
			s.LogError("ui: %v", err)
		}
		done = true // or failed: asking again would only log it again
	}
	w.mu.Lock()
	w.done = w.done || done
	w.mu.Unlock()
	return done || ended()
}

// stop ends the starter and waits for a try under way.
func (w *watcherStarter) stop() {
	w.mu.Lock()
	w.cancel()
	w.mu.Unlock()
	w.wg.Wait()
}
