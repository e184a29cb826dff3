package ui

import (
	"strings"
	"testing"
)

// cliApply is the CLI changing the store behind the UI's back: it plans
// and applies an undo (or redo) through the store, and the UI learns of it
// from a refresh, as from its watch.
func cliApply(t *testing.T, f *fakeStore, undo bool) {
	t.Helper()
	plan := f.PlanRedo
	if undo {
		plan = f.PlanUndo
	}
	p, err := plan(false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Apply(p, nil); err != nil {
		t.Fatal(err)
	}
}

// TestStatusAfterCLIChange: each status line about an operation is
// recomputed when the store changes under it.
func TestStatusAfterCLIChange(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 30)
	press(t, m, keys("j", "r", "y")...)
	mustContain(t, plain(m), "— u to undo")
	cliApply(t, f, true) // ckpt undo
	drive(t, m, m.refresh(true))
	if s := plain(m); strings.Contains(s, "rewound 2 turns · 3 files — u to undo") {
		t.Fatalf("after a CLI undo the status still invites u:\n%s", s)
	}
	press(t, m, keys("ctrl+r", "y")...) // redo in the UI
	mustContain(t, plain(m), "— u to undo")
	cliApply(t, f, true)
	drive(t, m, m.refresh(true))
	if strings.Contains(m.status, "u to undo") {
		t.Fatalf("status %q after a CLI undo", m.status)
	}
	press(t, m, keys("ctrl+r", "y", "u", "y")...) // redo, then undo in the UI
	mustContain(t, plain(m), "— ctrl+r to redo")
	cliApply(t, f, false) // ckpt redo
	drive(t, m, m.refresh(true))
	if strings.Contains(m.status, "ctrl+r to redo") {
		t.Fatalf("status %q after a CLI redo", m.status)
	}
}

// TestStatusAfterSelectionChange: hints about the selection go when it
// moves.
func TestStatusAfterSelectionChange(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 30)
	press(t, m, kp("G"), kp("f"))
	mustContain(t, plain(m), "following the newest turn")
	press(t, m, kp("j"))
	if strings.Contains(plain(m), "following the newest turn") {
		t.Fatal("'following' stayed after a move")
	}
	press(t, m, keys("g", "j", "r", "y")...) // rewind to turn 2: turns 2 and 3
	press(t, m, keys("g", "j", "r")...)      // turn 3, already rewound
	mustContain(t, plain(m), "that turn is already rewound")
	press(t, m, keys("j", "j", "r")...) // turn 1: a preview of its own
	if m.dlg == nil {
		t.Fatal("no preview for turn 1")
	}
	if strings.Contains(plain(m), "already rewound") {
		t.Fatalf("another turn's hint carried into the preview:\n%s", plain(m))
	}
	press(t, m, kp("esc"))
	press(t, m, keys("k", "r")...) // turn 2, rewound
	mustContain(t, plain(m), "already rewound")
	press(t, m, kp("k"))
	if strings.Contains(plain(m), "already rewound") {
		t.Fatal("the hint stayed after the cursor moved")
	}
}

// TestCountsAgree: the status line after an operation counts its files as
// the operation's row does.
func TestCountsAgree(t *testing.T) {
	f := sample()
	m := testModel(t, f, 140, 30)
	press(t, m, keys("j", "r", "space", "y")...) // keep the first file
	s := plain(m)
	mustContain(t, s, "op-1 ↶ rewound 2 turns · 3 files", "rewound 2 turns · 3 files — u to undo · 1 kept as it was")
}
