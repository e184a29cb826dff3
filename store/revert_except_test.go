package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// revertExcept plans and applies a revert of turn keeping paths as they
// are (--except).
func revertExcept(t *testing.T, s *Store, turn TurnID, paths ...string) *Result {
	t.Helper()
	p, err := s.PlanRevert(string(turn), RevertOptions{Keep: paths})
	return apply(t, s, p, err)
}

// stateOf is turn's state in the log.
func stateOf(t *testing.T, s *Store, turn TurnID) State {
	t.Helper()
	log, err := s.Log(false)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range log {
		if e.ID == string(turn) && e.Kind == KindAgent {
			return e.State
		}
	}
	t.Fatalf("turn %s not in the log", turn)
	return ""
}

// TestRevertAgainAfterExcept: a revert with --except keeps that path's
// change in, so the turn is not reverted, and reverting it again takes
// out just what is still in; after that the turn is reverted. Undoing
// each gives the folder back as it was before it, and a redo of the
// revert --except keeps the path again.
func TestRevertAgainAfterExcept(t *testing.T) {
	root, s, a, _, _ := twoTurns(t, "x.txt", "y.txt")
	editIn(t, s, root, a, "x.txt", "x by A\n")
	editIn(t, s, root, a, "y.txt", "y by A\n")
	after := tree(t, root)
	if r := revertExcept(t, s, a, "y.txt"); len(r.Failed) > 0 || len(r.Kept) != 1 {
		t.Fatalf("revert --except y.txt: %+v", r)
	}
	if got := rd(t, root, "y.txt"); got != "y by A\n" {
		t.Fatalf("y.txt, kept: %q", got)
	}
	if st := stateOf(t, s, a); st != StateActive {
		t.Errorf("turn %s after a revert keeping y.txt: %s, want active", a, st)
	}
	kept := tree(t, root)
	p, err := s.PlanRevert(string(a), RevertOptions{})
	if err != nil {
		t.Fatalf("revert again after --except: %v", err)
	}
	if len(p.Steps) != 1 || p.Steps[0].Path != "y.txt" || p.Steps[0].Do != ActRestore {
		t.Fatalf("revert again after --except: %+v; want y.txt alone taken out", p.Steps)
	}
	if r := apply(t, s, p, nil); len(r.Failed) > 0 {
		t.Fatalf("revert again: %+v", r.Failed)
	}
	if got := rd(t, root, "y.txt"); got != "y.txt before\n" {
		t.Errorf("y.txt after reverting again: %q", got)
	}
	if st := stateOf(t, s, a); st != StateReverted {
		t.Errorf("turn %s after reverting again: %s, want reverted", a, st)
	}
	if _, err := s.PlanRevert(string(a), RevertOptions{}); !errors.Is(err, ErrReverted) {
		t.Errorf("a third revert: %v, want ErrReverted", err)
	}
	undo(t, s)
	sameTree(t, "after undoing the second revert", kept, tree(t, root))
	if st := stateOf(t, s, a); st != StateActive {
		t.Errorf("turn %s with the second revert undone: %s, want active", a, st)
	}
	undo(t, s)
	sameTree(t, "after undoing the revert --except", after, tree(t, root))
	redo(t, s) // keeps y.txt again: its change is still in
	sameTree(t, "after redoing the revert --except", kept, tree(t, root))
	if st := stateOf(t, s, a); st != StateActive {
		t.Errorf("turn %s with the revert --except redone: %s, want active", a, st)
	}
	if p, err := s.PlanRevert(string(a), RevertOptions{}); err != nil || len(p.Steps) != 1 || p.Steps[0].Path != "y.txt" {
		t.Errorf("revert again after the redo: %v, %+v; want y.txt alone", err, p)
	}
}

// TestRevertEditDuringEditKept: B's edit tool writes y.txt while A's edit
// of it is under way, and B's turn is reverted keeping y.txt (--except).
// B's change is still in y.txt, so a revert of A's turn leaves it as a
// conflict naming B's turn, not taking both changes out. Undoing each
// revert gives the folder back as it was before it.
func TestRevertEditDuringEditKept(t *testing.T) {
	root, s, a, b, _ := twoTurns(t, "x.txt", "y.txt", "z.txt")
	y := root + "/y.txt"
	if _, err := s.Capture(a, TurnMeta{}, []string{y}); err != nil {
		t.Fatal(err)
	}
	put(t, root, "y.txt", "y by A\n", 0o644)
	editIn(t, s, root, b, "y.txt", "y by A\ny by B\n")
	if err := s.Seal(a, []string{y}); err != nil {
		t.Fatal(err)
	}
	editIn(t, s, root, b, "x.txt", "x by B\n")
	editIn(t, s, root, a, "z.txt", "z by A\n")
	after := tree(t, root)
	revertExcept(t, s, b, "y.txt")
	afterB := tree(t, root)
	r := revertTurn(t, s, a)
	leftAsConflict(t, root, r, "y.txt", "y by A\ny by B\n")
	if !strings.Contains(r.Failed[0].Reason, "turn "+string(b)) {
		t.Fatalf("the conflict does not name B's turn: %+v", r.Failed)
	}
	if got := rd(t, root, "z.txt"); got != "z.txt before\n" {
		t.Errorf("z.txt, A's alone, after the revert: %q", got)
	}
	undo(t, s)
	sameTree(t, "after undoing the revert of A's turn", afterB, tree(t, root))
	undo(t, s)
	sameTree(t, "after undoing the revert of B's turn", after, tree(t, root))
}

// TestRevertSharedAfterExcept: a revert of A's turn keeping y.txt, a
// change A's and B's turns share, does not ask it out: a revert of B's
// turn leaves it as a conflict naming A's. Undoing the revert of A's
// gives the folder back as it was.
func TestRevertSharedAfterExcept(t *testing.T) {
	root, s, a, b, after := sharedY(t)
	revertExcept(t, s, a, "y.txt")
	afterA := tree(t, root)
	p, err := s.PlanRevert(string(b), RevertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st := stepOf(p, "y.txt"); st == nil || st.Do != ActFail || !strings.Contains(st.Reason, "turn "+string(a)+"'s too") {
		t.Fatalf("revert %s after a revert of %s keeping y.txt, y.txt: %+v; want a conflict naming %s", b, a, st, a)
	}
	apply(t, s, p, nil) // B's one path failed: it changed nothing
	sameTree(t, "after the revert of B", afterA, tree(t, root))
	undo(t, s)
	sameTree(t, "after undoing the revert of A", after, tree(t, root))
}

// TestRevertExceptOlderRecord: the op record of a revert with --except
// says which paths it kept; one logged without that (an older ckpt's)
// is read as that ckpt read it, the kept path counted as taken out, and
// its undo still gives the folder back.
func TestRevertExceptOlderRecord(t *testing.T) {
	root, s, a, _, _ := twoTurns(t, "x.txt", "y.txt")
	editIn(t, s, root, a, "x.txt", "x by A\n")
	editIn(t, s, root, a, "y.txt", "y by A\n")
	after := tree(t, root)
	revertExcept(t, s, a, "y.txt")
	name := filepath.Join(root, storeDir, "ops.log")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	recs := record.Decode(data).Recs
	var buf []byte
	for i := range recs {
		if recs[i].R == "op" {
			if got := recs[i].Except; len(got) != 1 || got[0] != "y.txt" {
				t.Fatalf("the revert's op record keeps %q, want y.txt", got)
			}
			recs[i].Except = nil
		}
		buf = record.Append(buf, &recs[i])
	}
	if err := os.WriteFile(name, buf, 0o600); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, root)
	if st := stateOf(t, s, a); st != StateReverted {
		t.Errorf("turn %s after an older revert keeping y.txt: %s, want reverted", a, st)
	}
	if _, err := s.PlanRevert(string(a), RevertOptions{}); !errors.Is(err, ErrReverted) {
		t.Errorf("revert again after an older revert --except: %v, want ErrReverted", err)
	}
	undo(t, s)
	sameTree(t, "after undoing the older revert --except", after, tree(t, root))
}
