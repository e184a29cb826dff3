package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ckpt-dev/ckpt/store"
)

// TestNoStoreYet: opened before any hook made the store, the UI says it
// waits, asks for the store on each tick, and shows the turns once it
// exists, with no store of its own in between.
func TestNoStoreYet(t *testing.T) {
	f := sample()
	ready, asked := false, 0
	open := func() (Store, error) {
		asked++
		if !ready {
			return nil, fmt.Errorf("open /home/dev/shop: %w", store.ErrNoStore)
		}
		return f, nil
	}
	m := New(nil, Options{Root: "/home/dev/shop", Open: open, Now: testNow, Poll: -1, NoWatch: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	drive(t, m, m.Init())
	mustContain(t, plain(m), "waiting for the agent", "/home/dev/shop")
	press(t, m, keys("r", "u", "ctrl+r", "x", "tab", "enter")...) // nothing to act on, nothing breaks
	if m.dlg != nil || f.count() != 0 {
		t.Fatalf("keys with no store: dialog %v, %d store calls", m.dlg != nil, f.count())
	}
	_, cmd := m.Update(tickMsg{})
	drive(t, m, cmd)
	if asked < 2 {
		t.Fatalf("asked for the store %d times, want one per tick", asked)
	}
	mustContain(t, plain(m), "waiting for the agent")
	ready = true
	_, cmd = m.Update(tickMsg{})
	drive(t, m, cmd)
	mustContain(t, plain(m), "read the port from config", "3 turns")
	n := asked
	_, cmd = m.Update(tickMsg{})
	drive(t, m, cmd)
	if asked != n {
		t.Fatal("asked for the store again once it was open")
	}
}

// TestWaitingAfterInstall: opened just after `ckpt install`, the UI says
// there is no store yet and asks to start the agent, not to install it.
func TestWaitingAfterInstall(t *testing.T) {
	open := func() (Store, error) { return nil, fmt.Errorf("open: %w", store.ErrNoStore) }
	m := New(nil, Options{Root: "/home/dev/shop", Open: open, Installed: []string{"claude"}, Now: testNow, Poll: -1, NoWatch: true})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 24})
	drive(t, m, m.Init())
	s := plain(m)
	mustContain(t, s, "No ckpt store in /home/dev/shop yet", "installed for claude", "its turns appear here")
	if strings.Contains(s, "ckpt install") {
		t.Fatalf("asks for the install it just saw:\n%s", s)
	}
}

// TestWaitingWhileWatching: under ckpt ui --watch, before the first turn,
// the UI says it watches the folder and asks for no install.
func TestWaitingWhileWatching(t *testing.T) {
	open := func() (Store, error) { return nil, fmt.Errorf("open: %w", store.ErrNoStore) }
	m := New(nil, Options{Root: "/home/dev/shop", Open: open, CutTurn: func() error { return nil }, Now: testNow, Poll: -1, NoWatch: true})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 24})
	drive(t, m, m.Init())
	s := plain(m)
	mustContain(t, s, "Watching this folder", "T cuts a new turn now")
	if strings.Contains(s, "ckpt install") {
		t.Fatalf("asks for an install while watching:\n%s", s)
	}
}

// TestWatcherOnceTheStoreAppears: opened before the store exists, the UI
// asks for the background watcher once the store appears, from a command,
// never from Update; while the store's gate wants none it asks again as
// the log changes, at most every watcherEvery, and once one runs, no more.
func TestWatcherOnceTheStoreAppears(t *testing.T) {
	f := sample()
	ready, wanted := false, false
	var tries []Store
	open := func() (Store, error) {
		if !ready {
			return nil, fmt.Errorf("open: %w", store.ErrNoStore)
		}
		return f, nil
	}
	start := func(st Store) bool {
		tries = append(tries, st)
		return wanted
	}
	now := testNow()
	m := New(nil, Options{Root: "/p", Open: open, StartWatcher: start, Now: func() time.Time { return now }, Poll: -1, NoWatch: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	drive(t, m, m.Init())
	_, cmd := m.Update(tickMsg{})
	drive(t, m, cmd)
	if len(tries) != 0 {
		t.Fatalf("asked for a watcher %d times with no store", len(tries))
	}
	ready = true
	_, cmd = m.Update(tickMsg{})
	drive(t, m, cmd)
	if len(tries) != 1 || tries[0] != Store(f) {
		t.Fatalf("asked for a watcher %d times once the store appeared, want once for it", len(tries))
	}
	reload := func() tea.Cmd {
		t.Helper()
		n := len(tries)
		_, cmd := m.Update(loadLog(f, false, m.hand)())
		if len(tries) != n {
			t.Fatal("Update asked for the watcher itself")
		}
		return cmd
	}
	drive(t, m, reload())
	if len(tries) != 1 {
		t.Fatalf("asked again %d times within %v", len(tries)-1, watcherEvery)
	}
	now = now.Add(watcherEvery)
	wanted = true
	drive(t, m, reload())
	if len(tries) != 2 {
		t.Fatalf("asked %d times after %v with the gate saying no, want 2", len(tries), watcherEvery)
	}
	now = now.Add(watcherEvery)
	drive(t, m, reload())
	if len(tries) != 2 {
		t.Fatal("asked for a watcher again once one ran")
	}
}
