package store

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestRevertAgainAfterKeepHunks: a revert that keeps a hunk of a file
// as it is now leaves that part of the turn's change in, so the turn is
// not reverted, and reverting it again takes out just what is still in;
// after that the turn is reverted. Undoing each gives the folder back as
// it was before it, and a redo of the first keeps the hunk again.
func TestRevertAgainAfterKeepHunks(t *testing.T) {
	root := t.TempDir()
	pre := "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n"
	put(t, root, "a.txt", pre, 0o644)
	put(t, root, "b.txt", "b\n", 0o644)
	s := openStore(t, root)
	now := "l1\nL2\nl3\nl4\nl5\nl6\nL7\nl8\n"
	if _, err := s.Write("1", TurnMeta{}, filepath.Join(root, "a.txt"), []byte(now)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("1", TurnMeta{}, filepath.Join(root, "b.txt"), []byte("B\n")); err != nil {
		t.Fatal(err)
	}
	after := tree(t, root)
	keep := HunkKeep{Path: "a.txt", Now: sumOf(now), Want: sumOf(pre), Hunks: []Hunk{{Now: LineSpan{6, 1}, Want: LineSpan{6, 1}}}}
	p, err := s.PlanRevert("1", RevertOptions{KeepHunks: []HunkKeep{keep}})
	if r := apply(t, s, p, err); len(r.Failed) > 0 {
		t.Fatalf("revert keeping the hunk of line 7: %+v", r.Failed)
	}
	kept := "l1\nl2\nl3\nl4\nl5\nl6\nL7\nl8\n"
	if got := rd(t, root, "a.txt"); got != kept {
		t.Fatalf("a.txt after the revert keeping line 7: %q, want %q", got, kept)
	}
	if st := stateOf(t, s, "1"); st != StateActive {
		t.Errorf("turn 1 after a revert keeping a hunk: %s, want active", st)
	}
	keptTree := tree(t, root)
	p, err = s.PlanRevert("1", RevertOptions{})
	if err != nil {
		t.Fatalf("revert again after keeping a hunk: %v", err)
	}
	if len(p.Steps) != 1 || p.Steps[0].Path != "a.txt" || p.Steps[0].Do != ActRestore {
		t.Fatalf("revert again after keeping a hunk: %+v; want a.txt alone taken out", p.Steps)
	}
	if r := apply(t, s, p, nil); len(r.Failed) > 0 {
		t.Fatalf("revert again: %+v", r.Failed)
	}
	if got := rd(t, root, "a.txt"); got != pre {
		t.Errorf("a.txt after reverting again: %q, want %q", got, pre)
	}
	if st := stateOf(t, s, "1"); st != StateReverted {
		t.Errorf("turn 1 after reverting again: %s, want reverted", st)
	}
	if _, err := s.PlanRevert("1", RevertOptions{}); !errors.Is(err, ErrReverted) {
		t.Errorf("a third revert: %v, want ErrReverted", err)
	}
	undo(t, s)
	sameTree(t, "after undoing the second revert", keptTree, tree(t, root))
	undo(t, s)
	sameTree(t, "after undoing the revert keeping a hunk", after, tree(t, root))
	redo(t, s)
	sameTree(t, "after redoing the revert keeping a hunk", keptTree, tree(t, root))
	if st := stateOf(t, s, "1"); st != StateActive {
		t.Errorf("turn 1 with the revert keeping a hunk redone: %s, want active", st)
	}
}
