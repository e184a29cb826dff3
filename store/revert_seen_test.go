package store

import (
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
