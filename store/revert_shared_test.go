package store

import (
	"testing"
)

// sharedY is twoRunning with y.txt changed while both sessions'
// commands ran (a change of A's and B's, neither's alone) and both
// commands over; after is the folder then.
func sharedY(t *testing.T) (root string, s *Store, a, b TurnID, after map[string]string) {
	t.Helper()
	root, s, a, b, _ = twoRunning(t)
	if _, err := s.SweepBefore(b, TurnMeta{}, "sed -i y.txt"); err != nil {
		t.Fatal(err)
	}
	put(t, root, "y.txt", "y by one of them\n", 0o644)
	if _, err := s.SweepAfter(a, TurnMeta{}, "make gen"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepAfter(b, TurnMeta{}, "sed -i y.txt"); err != nil {
		t.Fatal(err)
	}
	return root, s, a, b, tree(t, root)
}

// stepOf is p's step of path, or nil.
func stepOf(p *Plan, path string) *Step {
	for i := range p.Steps {
		if p.Steps[i].Path == path {
			return &p.Steps[i]
		}
	}
	return nil
}

// TestRevertSharedAfterOther: a change two sessions' turns share is
// neither's alone to take out, but once a revert of one of them asked it
// out (left as a conflict naming the other), a revert of the other takes
// it out: both turns' changes are then wanted out. Undoing each revert
// gives the folder back as it was before it.
func TestRevertSharedAfterOther(t *testing.T) {
	root, s, a, b, after := sharedY(t)
	res := apply(t, s, mustPlanRevert(t, s, string(a)), nil)
	if len(res.Failed) != 1 || res.Failed[0].Path != "y.txt" {
		t.Fatalf("revert %s failed %v; want y.txt, shared with %s", a, res.Failed, b)
	}
	afterA := tree(t, root)
	p, err := s.PlanRevert(string(b), RevertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st := stepOf(p, "y.txt"); st == nil || st.Do != ActRestore || st.Conflicts != nil {
		t.Fatalf("revert %s after the revert of %s, y.txt: %+v; want it taken out", b, a, st)
	}
	if res := apply(t, s, p, nil); len(res.Failed) != 0 {
		t.Fatalf("revert %s failed %v", b, res.Failed)
	}
	if got := rd(t, root, "y.txt"); got != "y.txt before\n" {
		t.Errorf("y.txt after both reverts: %q", got)
	}
	undo(t, s)
	sameTree(t, "after undoing the revert of B", afterA, tree(t, root))
	undo(t, s)
	sameTree(t, "after undoing the revert of A", after, tree(t, root))
}
