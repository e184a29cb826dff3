package store

import (
	"testing"
	"time"
)

// TestSweepSeesSealBeforeItsRecords: B's edit tool rewrites y.txt while
// A's command runs, and B's seal lands while A's closing sweep is under
// way, after the sweep read the tree and before it recorded what it
// found. The seal's note is in edits.log before any record of the sweep
// is written, so the sweep sees it: y.txt is B's alone, and a revert of
// A's turn keeps B's edit, with no conflict. B's capture is noted (made
// while A's command ran), or not (made before A's command began, the
// last sweep being B's own), and the seal alone tells the sweep.
func TestSweepSeesSealBeforeItsRecords(t *testing.T) {
	for _, tc := range []struct {
		name  string
		noted bool // B's capture is made while A's command runs
	}{
		{"capture while the command runs", true},
		{"capture before the command", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tempRoot(t)
			put(t, root, "x.txt", "x before\n", 0o644)
			put(t, root, "y.txt", "y before\n", 0o644)
			s := openStore(t, root)
			a, _ := s.NewTurn(TurnMeta{Label: "A", Source: &Source{Agent: "claude", Session: "sa"}})
			b, _ := s.NewTurn(TurnMeta{Label: "B", Source: &Source{Agent: "codex", Session: "sb"}})
			for _, sweep := range []func(TurnID, TurnMeta, string) (*SweepResult, error){s.SweepBefore, s.SweepAfter} {
				if _, err := sweep(b, TurnMeta{}, "true"); err != nil {
					t.Fatal(err)
				}
			}
			y := []string{root + "/y.txt"}
			capture := func() {
				if _, err := s.Capture(b, TurnMeta{}, y); err != nil {
					t.Fatal(err)
				}
			}
			if !tc.noted {
				capture()
			}
			if _, err := s.SweepBefore(a, TurnMeta{}, "make gen"); err != nil {
				t.Fatal(err)
			}
			put(t, root, "x.txt", "x by A's command\n", 0o644)
			if tc.noted {
				capture()
			}
			put(t, root, "y.txt", "y by B's edit\n", 0o644)
			s.sweepRead = func() {
				s.sweepRead = nil
				if err := s.Seal(b, y); err != nil {
					t.Error(err)
				}
			}
			if _, err := s.SweepAfter(a, TurnMeta{}, "make gen"); err != nil {
				t.Fatal(err)
			}
			if s.sweepRead != nil {
				t.Fatal("the sweep never reached the point between its read and its records")
			}
			sameShares(t, "A's turn", turnShares(t, s, a), map[string][]string{"x.txt": nil})
			sameShares(t, "B's turn", turnShares(t, s, b), map[string][]string{"y.txt": nil})
			r := revertTurn(t, s, a)
			if got := rd(t, root, "y.txt"); got != "y by B's edit\n" {
				t.Fatalf("y.txt after reverting A's turn: %q (result %+v)", got, r)
			}
			if got := rd(t, root, "x.txt"); got != "x before\n" {
				t.Fatalf("x.txt after reverting A's turn: %q", got)
			}
			if len(r.Conflicts) != 0 {
				t.Fatalf("reverting A's turn: conflicts %+v, want none", r.Conflicts)
			}
		})
	}
}

// TestEndTurnForgetsItsEdits: the notes of a turn's file tools, an
// unsealed capture among them (a call the user refused), go when the
// turn ends while nothing of another turn runs, so edits.log does not
// grow with a session that runs no command; while another session's
// command runs they stay, for its closing sweep.
func TestEndTurnForgetsItsEdits(t *testing.T) {
	for _, running := range []bool{false, true} {
		root := tempRoot(t)
		put(t, root, "y.txt", "y before\n", 0o644)
		s := openStore(t, root)
		a, _ := s.NewTurn(TurnMeta{Label: "A", Source: &Source{Agent: "claude", Session: "sa"}})
		b, _ := s.NewTurn(TurnMeta{Label: "B", Source: &Source{Agent: "codex", Session: "sb"}})
		commandIn(t, s, b, "true", nil)
		if running {
			if _, err := s.SweepBefore(a, TurnMeta{}, "make gen"); err != nil {
				t.Fatal(err)
			}
		}
		editIn(t, s, root, b, "y.txt", "y by B's edit\n")
		if _, err := s.Capture(b, TurnMeta{}, []string{root + "/z.txt"}); err != nil {
			t.Fatal(err)
		}
		if n := len(s.loadEdits(time.Now().UnixNano()).notes); n != 3 {
			t.Fatalf("running %v: %d notes before the turn's end, want 3", running, n)
		}
		if err := s.EndTurn(b); err != nil {
			t.Fatal(err)
		}
		want := map[bool]int{false: 0, true: 3}[running]
		if n := len(s.loadEdits(time.Now().UnixNano()).notes); n != want {
			t.Fatalf("running %v: %d notes after the turn's end, want %d", running, n, want)
		}
	}
}
