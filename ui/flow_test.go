package ui

import (
	"context"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/ckpt-dev/ckpt/store"
)

var anySeq = regexp.MustCompile("\x1b(\\[[0-9;?<=>]*[ -/]*[@-~]|\\][^\x07\x1b]*(\x07|\x1b\\\\)|[()][0-9A-Za-z]|[=>78])")

// waitText waits until the program has drawn every token. Tokens are
// single words: the renderer redraws only changed cells, so a phrase can
// arrive in pieces.
func waitText(t *testing.T, tm *teatest.TestModel, tokens ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		s := anySeq.ReplaceAllString(string(b), "")
		for _, tok := range tokens {
			if !strings.Contains(s, tok) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

func send(tm *teatest.TestModel, ks ...string) {
	for _, k := range ks {
		tm.Send(kp(k))
	}
}

// TestFlowRewindUndoRedo drives the whole program: rewind turn 2 from the
// preview, undo it, redo it, quit.
func TestFlowRewindUndoRedo(t *testing.T) {
	f := sample()
	m := New(f, Options{Now: fixedNow, Poll: -1, NoWatch: true})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(110, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.ASCII)))
	waitText(t, tm, "Turns", "legacy", "⚠1")

	send(tm, "j", "r")
	waitText(t, tm, "Undoes", "y/enter")
	send(tm, "y")
	waitText(t, tm, "op-1", "↶")

	send(tm, "u")
	waitText(t, tm, "Brings")
	send(tm, "enter")
	waitText(t, tm, "ctrl+r", "↺")

	send(tm, "ctrl+r")
	waitText(t, tm, "Redo")
	send(tm, "y")
	waitText(t, tm, "redid", "↷")

	send(tm, "q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	if f.applyN != 3 {
		t.Fatalf("%d operations applied, want 3", f.applyN)
	}
	if !strings.Contains(final.status, "redid op-1") {
		t.Fatalf("status %q", final.status)
	}
	if _, ok := f.disk["src/config.js"]; ok {
		t.Fatal("after the redo src/config.js is back")
	}
}

// TestFlowLiveTurn runs the UI on a real store while another handle on
// the same folder records a turn: it appears with no key pressed.
func TestFlowLiveTurn(t *testing.T) {
	root := t.TempDir()
	s := openReal(t, root)
	if _, err := s.Write("1", store.TurnMeta{Label: "first turn"}, filepath.Join(root, "a.txt"), []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The polling tick is slow: the store's watch must bring the turn.
	m := New(realStore{s}, Options{Context: ctx, Poll: time.Minute})
	t.Cleanup(m.Close) // before the store closes: a command may still be reading it
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 24))
	waitText(t, tm, "first", "a.txt")

	other, err := store.Open(root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Write("2", store.TurnMeta{Label: "arrived-while-watching"}, filepath.Join(root, "b.txt"), []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	waitText(t, tm, "arrived-while-watching")
	send(tm, "q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
}

// notify tells the UI's watch that the store changed.
func (f *fakeStore) notify() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.watch != nil {
		select {
		case f.watch <- struct{}{}:
		default:
		}
	}
}

func snapshot(f *fakeStore) map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for p, b := range f.disk {
		out[p] = string(b)
	}
	return out
}

// TestFlowKeepUndoAndLateTurn: r, j, space, y leave the kept file as it
// is and restore the rest; u puts back exactly what was there; a turn
// that arrives while a preview is open is shown before y can apply it.
func TestFlowKeepUndoAndLateTurn(t *testing.T) {
	f := sample()
	before := snapshot(f)
	m := New(f, Options{Now: fixedNow, Poll: -1})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.ASCII)))
	waitText(t, tm, "Turns", "legacy")

	send(tm, "j", "r") // turn 2: legacy.js, src/config.js, server.js
	waitText(t, tm, "Undoes", "legacy.js", "after", "rewind")
	send(tm, "j", "space")
	waitText(t, tm, "kept", "left")
	send(tm, "y")
	waitText(t, tm, "rewound", "undo")

	after := snapshot(f)
	if after["src/config.js"] != before["src/config.js"] {
		t.Fatal("the kept file was changed")
	}
	if _, ok := after["legacy.js"]; !ok {
		t.Fatal("legacy.js was not restored")
	}

	send(tm, "u")
	waitText(t, tm, "Brings")
	send(tm, "y")
	waitText(t, tm, "undid", "redo")
	if got := snapshot(f); !reflect.DeepEqual(got, before) {
		t.Fatalf("undo is not exact:\n got %v\nwant %v", got, before)
	}

	// A preview of turn 3; turn 4 arrives while it is open.
	send(tm, "g", "j", "r") // turn 3, under the operations' row
	waitText(t, tm, "Undoes", "config.js")
	f.write("4", "late turn", t0.Add(9*time.Minute), "late.txt", []byte("late\n"))
	f.notify()
	waitText(t, tm, "late.txt")
	n := f.applyN
	send(tm, "y")
	waitText(t, tm, "rewound")
	if f.applyN != n+1 {
		t.Fatalf("applied %d plans, want 1", f.applyN-n)
	}
	if _, ok := snapshot(f)["late.txt"]; ok {
		t.Fatal("the plan on screen deletes late.txt; it is still there")
	}
	send(tm, "q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
}
