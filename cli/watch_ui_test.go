package cli

import (
	"sync"
	"testing"
)

// gateFake is a store's watcher gate whose WatcherWanted waits until
// released, and which fails the test if used once closed.
type gateFake struct {
	t        *testing.T
	mu       sync.Mutex
	closed   bool
	wanted   bool
	asked    chan struct{} // WatcherWanted was called
	release  chan struct{} // lets WatcherWanted answer
	started  int
	listened int
}

func (g *gateFake) use(what string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		g.t.Errorf("%s on a closed store", what)
	}
}

func (g *gateFake) WatcherWanted() bool {
	g.use("WatcherWanted")
	g.asked <- struct{}{}
	<-g.release
	g.use("WatcherWanted, answering")
	return g.wanted
}

func (g *gateFake) WatcherListening() bool {
	g.use("WatcherListening")
	g.listened++
	return false
}

func (g *gateFake) StartWatcher(string) error {
	g.use("StartWatcher")
	g.started++
	return nil
}

func (g *gateFake) LogError(string, ...any) { g.use("LogError") }

func (g *gateFake) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
}

// TestWatcherStarterLifetime: the UI quitting (stop) while a try of the
// watcher's start is under way waits for that try, which then starts
// nothing, so the store is closed only after it; a try after stop does
// not touch the store. While the gate wants no watcher, try says to ask
// again; once it wants one, try starts it once and says to ask no more.
func TestWatcherStarterLifetime(t *testing.T) {
	t.Setenv("CKPT_WATCHER", "")
	g := &gateFake{t: t, asked: make(chan struct{}), release: make(chan struct{})}
	w := newWatcherStarter("/bin/ckpt")

	go func() { <-g.asked; g.release <- struct{}{} }()
	if w.try(g) {
		t.Fatal("the gate wanted no watcher, yet try says to ask no more")
	}
	g.wanted = true
	go func() { <-g.asked; g.release <- struct{}{} }()
	if !w.try(g) || g.started != 1 {
		t.Fatalf("the gate wanted a watcher: started %d", g.started)
	}
	if !w.try(g) || g.started != 1 {
		t.Fatalf("a try after the start started again: %d", g.started)
	}

	// Quit mid-try: stop waits for it, and it starts nothing.
	g2 := &gateFake{t: t, wanted: true, asked: make(chan struct{}), release: make(chan struct{})}
	w2 := newWatcherStarter("/bin/ckpt")
	tried := make(chan bool)
	go func() { tried <- w2.try(g2) }()
	<-g2.asked // the try is in the gate
	stopped := make(chan struct{})
	go func() { w2.stop(); close(stopped) }()
	<-w2.ctx.Done() // the UI has quit
	select {
	case <-stopped:
		t.Fatal("stop returned while a try was still using the store")
	case <-tried:
		t.Fatal("the try returned before the gate answered")
	default:
	}
	g2.release <- struct{}{}
	if done := <-tried; !done {
		t.Fatal("a try ended by the UI's quit says to ask again")
	}
	<-stopped
	g2.close() // the store is closed once stop returned
	if g2.started != 0 || g2.listened != 0 {
		t.Fatalf("a try ended by the UI's quit went on: started %d, listened %d", g2.started, g2.listened)
	}
	if !w2.try(g2) {
		t.Fatal("a try after stop says to ask again")
	}
}
