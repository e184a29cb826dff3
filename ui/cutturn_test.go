package ui

import (
	"errors"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestCutTurnKey: T cuts a turn through the option ckpt ui --watch
// gives, from a command (Update does no I/O), and says so; without the
// option the key is not offered and does nothing.
func TestCutTurnKey(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 30)
	if m.bindings().CutTurn.Enabled() {
		t.Fatal("T is offered with no ckpt watch running")
	}
	press(t, m, kp("T"))

	cuts := 0
	m = New(f, Options{Now: testNow, Poll: -1, NoWatch: true, CutTurn: func() error { cuts++; return nil }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	drive(t, m, m.Init())
	if !m.bindings().CutTurn.Enabled() {
		t.Fatal("T is not offered under ckpt ui --watch")
	}
	_, cmd := m.Update(kp("T"))
	if cuts != 0 {
		t.Fatal("Update cut the turn itself, not from a command")
	}
	drive(t, m, cmd)
	if cuts != 1 {
		t.Fatalf("T cut %d turns", cuts)
	}
	mustContain(t, plain(m), "turn cut")

	m.opt.CutTurn = func() error { return errors.New("no ckpt watch runs") }
	press(t, m, kp("T"))
	mustContain(t, plain(m), "no ckpt watch runs")
}
