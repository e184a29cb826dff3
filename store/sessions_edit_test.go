package store

import (
	"slices"
	"testing"
)

// revertTurn plans and applies a revert of turn alone.
func revertTurn(t *testing.T, s *Store, turn TurnID) *Result {
	t.Helper()
	p, err := s.PlanRevert(string(turn), RevertOptions{})
	return apply(t, s, p, err)
}

// leftAsConflict checks that r, the revert of A's turn, left path alone,
// its one conflict, and that path holds want.
func leftAsConflict(t *testing.T, root string, r *Result, path, want string) {
	t.Helper()
	if got := rd(t, root, path); got != want {
		t.Fatalf("%s after reverting A's turn: %q, want %q (result %+v)", path, got, want, r)
	}
	if len(r.Conflicts) != 1 || r.Conflicts[0].Path != path {
		t.Fatalf("reverting A's turn: conflicts %+v, want %s alone", r.Conflicts, path)
	}
}

// rewoundToBefore rewinds turn a, the older of two sessions' turns, and
// with it every turn after it, and checks that the folder under root is
// before again, as it was before both.
func rewoundToBefore(t *testing.T, s *Store, root string, a TurnID, before map[string]string) {
	t.Helper()
	rewind(t, s, string(a))
	sameTree(t, "after rewinding both sessions' turns", before, tree(t, root))
}

// TestOtherSessionEditDuringCommand: while A's shell command runs, B's
// edit tool writes a new file and an old one, captured and sealed in B's
// turn, and B runs a command of its own. Those writes are B's alone: no
// sweep gives them to A's turn, so reverting A's turn keeps them. What
// B's command made while A's ran is owned by neither alone (shared, a
// conflict for a revert), and rewinding both turns gives back the
// folder before them.
func TestOtherSessionEditDuringCommand(t *testing.T) {
	root, s, a, b, before := twoRunning(t)
	editIn(t, s, root, b, "b.txt", "b by B's edit\n")
	editIn(t, s, root, b, "y.txt", "y by B's edit\n")
	commandIn(t, s, b, "touch c.txt", func() { put(t, root, "c.txt", "c by B\n", 0o644) })
	res, err := s.SweepAfter(a, TurnMeta{}, "make gen")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(res.Changed, "b.txt") || slices.Contains(res.Changed, "y.txt") {
		t.Fatalf("A's closing sweep recorded B's edits: %+v", res)
	}
	sameShares(t, "A's turn", turnShares(t, s, a), map[string][]string{"x.txt": nil, "c.txt": {string(b)}})
	sameShares(t, "B's turn", turnShares(t, s, b), map[string][]string{"b.txt": nil, "y.txt": nil, "c.txt": {string(a)}})
	sameAsFull(t, s, "after A's closing sweep")

	r := revertTurn(t, s, a)
	if got := rd(t, root, "b.txt"); got != "b by B's edit\n" {
		t.Fatalf("b.txt after reverting A's turn: %q (result %+v)", got, r)
	}
	if got := rd(t, root, "y.txt"); got != "y by B's edit\n" {
		t.Fatalf("y.txt after reverting A's turn: %q (result %+v)", got, r)
	}
	if got := rd(t, root, "x.txt"); got != "x.txt before\n" {
		t.Fatalf("x.txt after reverting A's turn: %q", got)
	}
	leftAsConflict(t, root, r, "c.txt", "c by B\n")
	undo(t, s)
	rewoundToBefore(t, s, root, a, before)
}

// TestOtherSessionEditChangedByCommand: B's edit tool rewrites a file
// A's running command changed before it, or that A's command changes
// again after it: the change is owned by neither alone, so A's turn
// holds it shared with B's and a revert of A's turn leaves it as it is,
// a conflict, never silently taking B's edit out.
func TestOtherSessionEditChangedByCommand(t *testing.T) {
	for _, after := range []bool{false, true} {
		name := map[bool]string{false: "A first", true: "A after B"}[after]
		t.Run(name, func(t *testing.T) {
			root, s, a, b, before := twoRunning(t)
			want := "y by B's edit\n"
			if !after {
				put(t, root, "y.txt", "y by A\n", 0o644)
			}
			editIn(t, s, root, b, "y.txt", "y by B's edit\n")
			if after {
				put(t, root, "y.txt", "y by A after B\n", 0o644)
				want = "y by A after B\n"
			}
			if _, err := s.SweepAfter(a, TurnMeta{}, "make gen"); err != nil {
				t.Fatal(err)
			}
			sameShares(t, "A's turn", turnShares(t, s, a), map[string][]string{"x.txt": nil, "y.txt": {string(b)}})
			leftAsConflict(t, root, revertTurn(t, s, a), "y.txt", want)
			undo(t, s)
			rewoundToBefore(t, s, root, a, before)
		})
	}
}

// TestOtherSessionEditThenCommand: B's edit tool rewrites y.txt while
// A's command runs, B's sweep before its own command finds it (B's
// alone), and then A's command writes y.txt again. A's turn holds y.txt
// as it was before both, shared with B's, so rewinding A's turn (and
// B's, after it) gives back the folder before both; a revert of A's
// turn leaves y.txt, a conflict.
func TestOtherSessionEditThenCommand(t *testing.T) {
	root, s, a, b, before := twoRunning(t)
	editIn(t, s, root, b, "y.txt", "y by B's edit\n")
	editIn(t, s, root, b, "n.txt", "n by B's edit\n")
	commandIn(t, s, b, "true", nil)
	put(t, root, "y.txt", "y by A after B\n", 0o644)
	put(t, root, "n.txt", "n by A after B\n", 0o644)
	if _, err := s.SweepAfter(a, TurnMeta{}, "make gen"); err != nil {
		t.Fatal(err)
	}
	sameShares(t, "A's turn", turnShares(t, s, a), map[string][]string{"x.txt": nil, "y.txt": {string(b)}, "n.txt": {string(b)}})
	files, err := s.Files(string(a), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == "n.txt" && f.Pre.Kind != ImageAbsent || f.Path == "y.txt" && f.Pre.Kind != ImageContent {
			t.Fatalf("A's turn, %s: pre %s", f.Path, f.Pre.Kind)
		}
	}
	sameAsFull(t, s, "after A's closing sweep")
	rewoundToBefore(t, s, root, a, before)
}

// TestOtherSessionEditBetweenCommands: B's edit tool writes y.txt while
// no command runs, between two commands of A's turn (the second's sweep
// before is skipped: the turn swept last) and before the sweep at A's
// turn's end. Neither of A's later sweeps gives B's edit to A's turn.
func TestOtherSessionEditBetweenCommands(t *testing.T) {
	root, s, a, b, _ := twoRunning(t)
	if _, err := s.SweepAfter(a, TurnMeta{}, "make gen"); err != nil {
		t.Fatal(err)
	}
	editIn(t, s, root, b, "y.txt", "y by B's edit\n")
	res, err := s.SweepBefore(a, TurnMeta{}, "make test")
	if err != nil || !res.Skipped {
		t.Fatalf("A's second sweep before: %+v %v; want it skipped", res, err)
	}
	if _, err := s.SweepAfter(a, TurnMeta{}, "make test"); err != nil {
		t.Fatal(err)
	}
	editIn(t, s, root, b, "z.txt", "z by B's edit\n")
	if _, err := s.SweepAfter(a, TurnMeta{}, "(the turn's end)"); err != nil {
		t.Fatal(err)
	}
	sameShares(t, "A's turn", turnShares(t, s, a), map[string][]string{"x.txt": nil})
	revertTurn(t, s, a)
	if got := rd(t, root, "y.txt") + rd(t, root, "z.txt"); got != "y by B's edit\nz by B's edit\n" {
		t.Fatalf("B's edits after reverting A's turn: %q", got)
	}
}

// TestOtherSessionLateSeal: B's edit tool captures y.txt while no
// command runs and B's own turn swept last (so nothing notes it for
// another turn's sweeps), writes it while A's command runs, and seals it
// only after A's closing sweep. The capture still open at that sweep is
// a writer of y.txt: A's turn holds it shared with B's, so a revert of
// A's turn leaves B's edit, a conflict, and rewinding both turns gives
// back the folder before both.
func TestOtherSessionLateSeal(t *testing.T) {
	root := tempRoot(t)
	for _, p := range []string{"x.txt", "y.txt"} {
		put(t, root, p, p+" before\n", 0o644)
	}
	s := openStore(t, root)
	a, _ := s.NewTurn(TurnMeta{Label: "A", Source: &Source{Agent: "claude", Session: "sa"}})
	b, _ := s.NewTurn(TurnMeta{Label: "B", Source: &Source{Agent: "codex", Session: "sb"}})
	commandIn(t, s, b, "true", nil) // B's turn swept last
	before := tree(t, root)
	y := root + "/y.txt"
	if _, err := s.Capture(b, TurnMeta{}, []string{y}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepBefore(a, TurnMeta{}, "make gen"); err != nil {
		t.Fatal(err)
	}
	put(t, root, "x.txt", "x by A's running command\n", 0o644)
	put(t, root, "y.txt", "y by B's edit\n", 0o644)
	if _, err := s.SweepAfter(a, TurnMeta{}, "make gen"); err != nil {
		t.Fatal(err)
	}
	if err := s.Seal(b, []string{y}); err != nil {
		t.Fatal(err)
	}
	sameShares(t, "A's turn", turnShares(t, s, a), map[string][]string{"x.txt": nil, "y.txt": {string(b)}})
	p, err := s.PlanRevert(string(a), RevertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range p.Steps {
		if st.Path == "y.txt" && st.Do == ActRestore && len(st.Conflicts) == 0 {
			t.Fatalf("a revert of A's turn puts y.txt back: %+v", st)
		}
	}
	leftAsConflict(t, root, revertTurn(t, s, a), "y.txt", "y by B's edit\n")
	undo(t, s)
	rewoundToBefore(t, s, root, a, before)
}
