package store

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// numbered is a file of n lines, "line i", with the lines named in set
// replaced: set[i] is line i's text (1-based).
func numbered(n int, set map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		l, ok := set[i]
		if !ok {
			l = "line " + string(rune('0'+i))
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// TestRevertSessionEarliestSeen: session A's newer turn (A2) edits p
// first, B's edit follows on another line, and only then does A's older
// turn (A1) run a command that writes A2's line again, recorded against
// a baseline taken after both edits. In turn order A1's pre-image holds
// both edits; observed first is A2's, before any. A revert of session A
// takes A1's change out first, then A2's: the line both changed goes
// back to what it was before A, and B's line stays. Its undo gives back
// the folder as it was.
func TestRevertSessionEarliestSeen(t *testing.T) {
	root, s, _, _, _ := twoTurns(t, "x.txt")
	put(t, root, "p.txt", numbered(7, nil), 0o644)
	commandIn(t, s, "0", "true", nil) // p.txt in the baseline
	sa := &Source{Agent: "claude", Session: "sa"}
	a1, _ := s.NewTurn(TurnMeta{Label: "A1", Source: sa})
	b, _ := s.NewTurn(TurnMeta{Label: "B", Source: &Source{Agent: "codex", Session: "sb"}})
	a2, _ := s.NewTurn(TurnMeta{Label: "A2", Source: sa})
	editIn(t, s, root, a2, "p.txt", numbered(7, map[int]string{1: "by A2"}))
	editIn(t, s, root, b, "p.txt", numbered(7, map[int]string{1: "by A2", 7: "by B"}))
	commandIn(t, s, a1, "gen", func() {
		put(t, root, "p.txt", numbered(7, map[int]string{1: "by A1", 7: "by B"}), 0o644)
	})
	after := tree(t, root)
	p, err := s.PlanRevert("", RevertOptions{Session: "sa"})
	r := apply(t, s, p, err)
	if want := numbered(7, map[int]string{7: "by B"}); rd(t, root, "p.txt") != want || len(r.Failed) > 0 {
		t.Fatalf("p.txt after reverting session A: %q, want %q (result %+v)", rd(t, root, "p.txt"), want, r)
	}
	undo(t, s)
	sameTree(t, "after undoing the revert", after, tree(t, root))
}

// TestRevertSessionMadeAndRemoved: session A's newer turn (A2) makes
// p.txt, A's older turn (A1) starts a command, A2 removes the file again
// (A2 made and removed it: no path of A2's) and A1's command writes it,
// recorded against the baseline that held A2's file. Before A the file
// was not there: a revert of session A removes it, where A1's record
// alone would give back A2's file. Its undo gives back the folder.
func TestRevertSessionMadeAndRemoved(t *testing.T) {
	root, s, _, _, before := twoTurns(t, "x.txt")
	sa := &Source{Agent: "claude", Session: "sa"}
	a1, _ := s.NewTurn(TurnMeta{Label: "A1", Source: sa})
	a2, _ := s.NewTurn(TurnMeta{Label: "A2", Source: sa})
	editIn(t, s, root, a2, "p.txt", "p by A2\n")
	if _, err := s.SweepBefore(a1, TurnMeta{}, "gen"); err != nil {
		t.Fatal(err)
	}
	p := root + "/p.txt"
	if _, err := s.Capture(a2, TurnMeta{}, []string{p}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := s.Seal(a2, []string{p}); err != nil {
		t.Fatal(err)
	}
	put(t, root, "p.txt", "p by A1's command\n", 0o644)
	if _, err := s.SweepAfter(a1, TurnMeta{}, "gen"); err != nil {
		t.Fatal(err)
	}
	after := tree(t, root)
	pl, err := s.PlanRevert("", RevertOptions{Session: "sa"})
	if r := apply(t, s, pl, err); len(r.Failed) > 0 {
		t.Fatalf("reverting session A: %+v", r)
	}
	sameTree(t, "after reverting session A", before, tree(t, root))
	undo(t, s)
	sameTree(t, "after undoing the revert", after, tree(t, root))
}

// TestRevertSessionMadeAndRemovedBefore: session A's older turn (A1)
// makes p.txt and removes it again, B makes it since, A's newer turn
// (A2) edits B's file, and a hand edit changes A2's line again. A1's
// records are no change of A's: a revert of session A finds the
// conflict on A2's line alone, and leaves the file as it is.
func TestRevertSessionMadeAndRemovedBefore(t *testing.T) {
	root, s, _, _, _ := twoTurns(t, "x.txt")
	sa := &Source{Agent: "claude", Session: "sa"}
	a1, _ := s.NewTurn(TurnMeta{Label: "A1", Source: sa})
	b, _ := s.NewTurn(TurnMeta{Label: "B", Source: &Source{Agent: "codex", Session: "sb"}})
	a2, _ := s.NewTurn(TurnMeta{Label: "A2", Source: sa})
	commandIn(t, s, a1, "gen", func() { put(t, root, "p.txt", "p by A1\n", 0o644) })
	commandIn(t, s, a1, "clean", func() {
		if err := os.Remove(root + "/p.txt"); err != nil {
			t.Fatal(err)
		}
	})
	editIn(t, s, root, b, "p.txt", numbered(7, nil))
	editIn(t, s, root, a2, "p.txt", numbered(7, map[int]string{4: "by A2"}))
	hand := numbered(7, map[int]string{4: "by hand"})
	put(t, root, "p.txt", hand, 0o644)
	pl, err := s.PlanRevert("", RevertOptions{Session: "sa"})
	r := apply(t, s, pl, err)
	if got := rd(t, root, "p.txt"); got != hand {
		t.Fatalf("p.txt after reverting session A: %q, want %q", got, hand)
	}
	if len(r.Conflicts) != 1 || fmt.Sprint(r.Conflicts[0].Lines) != "[{4 4}]" {
		t.Fatalf("reverting session A: conflicts %+v, want p.txt's line 4", r.Conflicts)
	}
}

// TestRevertEditDuringEdit: B's edit tool writes y.txt while A's edit of
// it is under way (captured before B's capture, sealed after B's seal),
// or between two edits of A's turn. The change A's turn recorded holds
// B's: a revert of A's turn leaves y.txt as it is, a conflict naming B's
// turn, where it took B's edit out with A's; a revert of B's turn takes
// out B's edit alone. Undoing what each changed gives back the folder,
// and rewinding both turns the folder before both.
func TestRevertEditDuringEdit(t *testing.T) {
	for _, again := range []bool{false, true} {
		t.Run(fmt.Sprint("A writes again: ", again), func(t *testing.T) {
			root, s, a, b, before := twoTurns(t, "x.txt", "y.txt")
			y := root + "/y.txt"
			if again {
				editIn(t, s, root, a, "y.txt", "y by A\n")
			} else {
				if _, err := s.Capture(a, TurnMeta{}, []string{y}); err != nil {
					t.Fatal(err)
				}
				put(t, root, "y.txt", "y by A\n", 0o644)
			}
			editIn(t, s, root, b, "y.txt", "y by A\ny by B\n")
			if again {
				editIn(t, s, root, a, "x.txt", "x by A\n")
				if _, err := s.Capture(a, TurnMeta{}, []string{y}); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Seal(a, []string{y}); err != nil {
				t.Fatal(err)
			}
			after := tree(t, root)
			r := revertTurn(t, s, a)
			leftAsConflict(t, root, r, "y.txt", "y by A\ny by B\n")
			if !strings.Contains(r.Failed[0].Reason, "turn "+string(b)) {
				t.Fatalf("the conflict does not name B's turn: %+v", r.Failed)
			}
			if again { // x.txt reverted: an operation to undo
				undo(t, s)
			}
			sameTree(t, "after undoing the revert of A's turn", after, tree(t, root))
			revertTurn(t, s, b)
			if got := rd(t, root, "y.txt"); got != "y by A\n" {
				t.Fatalf("y.txt after reverting B's turn: %q", got)
			}
			undo(t, s)
			sameTree(t, "after undoing the revert of B's turn", after, tree(t, root))
			rewoundToBefore(t, s, root, a, before)
		})
	}
}

// TestRevertEditDuringEditReverted: B's edit tool writes y.txt while A's
// edit of it is under way, and B's turn is reverted (its edit taken out).
// B's change is no longer in y.txt: a revert of A's turn takes A's out
// and gives back y.txt as before A, where it left it as a conflict
// naming B's turn. Its undo gives back the folder as it was; with B's
// revert undone too, the revert of A's turn names B's again.
func TestRevertEditDuringEditReverted(t *testing.T) {
	root, s, a, b, before := twoTurns(t, "x.txt", "y.txt")
	y := root + "/y.txt"
	if _, err := s.Capture(a, TurnMeta{}, []string{y}); err != nil {
		t.Fatal(err)
	}
	put(t, root, "y.txt", "y by A\n", 0o644)
	editIn(t, s, root, b, "y.txt", "y by A\ny by B\n")
	if err := s.Seal(a, []string{y}); err != nil {
		t.Fatal(err)
	}
	revertTurn(t, s, b)
	after := tree(t, root)
	if r := revertTurn(t, s, a); len(r.Failed) > 0 {
		t.Fatalf("reverting A's turn after B's: %+v", r.Failed)
	}
	sameTree(t, "after reverting both turns", before, tree(t, root))
	undo(t, s)
	sameTree(t, "after undoing the revert of A's turn", after, tree(t, root))
	undo(t, s) // B's edit back: a conflict naming B's turn again
	r := revertTurn(t, s, a)
	leftAsConflict(t, root, r, "y.txt", "y by A\ny by B\n")
	if !strings.Contains(r.Failed[0].Reason, "turn "+string(b)) {
		t.Fatalf("the conflict does not name B's turn: %+v", r.Failed)
	}
}
