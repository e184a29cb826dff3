package cli

import (
	"github.com/ckpt-dev/ckpt/store"
)

// startWatcherBesideUI starts the background watcher (ckpt watch
// --serve, by running exe) for the UI's project when its shell sweeps
// would use one and nothing listens on the watcher's socket, as a hook's
// shell step does. It never makes the UI wait: it runs in a goroutine of
// its own, asks no watcher anything (a hung one only has to hold the
// socket), and the watcher it starts is detached (store.StartWatcher).
// A person who opens the UI as a session begins so has the watcher
// watching before the agent's next shell call, not from it on.
//
// done is closed once it is through, errors logged in the store.
func startWatcherBesideUI(s *store.Store, exe string) (done <-chan struct{}) {
	c := make(chan struct{})
	go func() {
		defer close(c)
		if exe == "" || !s.WatcherWanted() || s.WatcherListening() {
			return
		}
		if err := s.StartWatcher(exe); err != nil {
			s.LogError("ui: %v", err)
		}
	}()
	return c
}
