package ui

import (
	"fmt"
	"strings"
	"testing"

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
