package store

import (
	"errors"
	"testing"
)

// TestRevertSessionAfterTurn: a revert of A's turn leaves y.txt with
// A's change in (kept with --except, or a conflict with A's next turn),
// and then a revert of A's session, not a retry of that one, takes it
// out. The newest revert of the path decides: A's turn is reverted, its
// change to y.txt counts as taken out and asked out (as the rules for a
// shared change and an edit during an edit read it), and undoing each
// revert gives the folder back as it was before it.
func TestRevertSessionAfterTurn(t *testing.T) {
	for _, how := range []string{"except", "conflict"} {
		t.Run(how, func(t *testing.T) {
			root, s, a, _, _ := twoTurns(t, "x.txt", "y.txt")
			editIn(t, s, root, a, "x.txt", "x by A\n")
			editIn(t, s, root, a, "y.txt", "y by A\n")
			a2, _ := s.NewTurn(TurnMeta{Label: "A2", Source: &Source{Agent: "claude", Session: "sa"}})
			if how == "conflict" {
				editIn(t, s, root, a2, "y.txt", "y by A2\n")
			}
			after := tree(t, root)
			var r *Result
			if how == "except" {
				r = revertExcept(t, s, a, "y.txt")
			} else {
				r = revertTurn(t, s, a)
			}
			if len(r.Kept)+len(r.Failed) != 1 {
				t.Fatalf("revert %s leaving y.txt: %+v", a, r)
			}
			afterA := tree(t, root)
			p, err := s.PlanRevert("", RevertOptions{Session: "sa"})
			if err != nil {
				t.Fatal(err)
			}
			if p.Retry != "" {
				t.Fatalf("revert --session sa after revert %s: a retry of %s", a, p.Retry)
			}
			if r := apply(t, s, p, nil); len(r.Failed) > 0 {
				t.Fatalf("revert --session sa: %+v", r.Failed)
			}
			if got := rd(t, root, "y.txt"); got != "y.txt before\n" {
				t.Fatalf("y.txt after revert --session sa: %q", got)
			}
			if st := stateOf(t, s, a); st != StateReverted {
				t.Errorf("turn %s after revert --session sa took y.txt out: %s, want reverted", a, st)
			}
			if _, err := s.PlanRevert("", RevertOptions{Session: "sa"}); !errors.Is(err, ErrReverted) {
				t.Errorf("revert --session sa again: %v, want ErrReverted", err)
			}
			v, err := s.load()
			if err != nil {
				t.Fatal(err)
			}
			if !v.revertedPath(string(a), "y.txt") || !v.revertAsked(string(a), "y.txt") {
				t.Errorf("A's change to y.txt: reverted %v, asked out %v; want both", v.revertedPath(string(a), "y.txt"), v.revertAsked(string(a), "y.txt"))
			}
			undo(t, s)
			sameTree(t, "after undoing revert --session sa", afterA, tree(t, root))
			undo(t, s)
			sameTree(t, "after undoing revert "+string(a), after, tree(t, root))
		})
	}
}
