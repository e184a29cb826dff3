package store

import (
	"slices"
	"strings"
	"testing"
)

// TestRevertSharedChange: what changed while commands of two sessions ran
// is owned by neither alone, and File.Shared and a revert read that from
// the one place: a revert of either turn leaves such a path as it is, as
// a conflict naming the other turn, and takes out what was its own.
func TestRevertSharedChange(t *testing.T) {
	root, s, a, b, _ := twoRunning(t)
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
	files, err := s.Files(string(a), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if want := map[string][]string{"y.txt": {string(b)}}[f.Path]; !slices.Equal(f.Shared, want) {
			t.Errorf("turn %s, %s: shared with %v, want %v", a, f.Path, f.Shared, want)
		}
	}
	for _, c := range []struct{ turn, other string }{{string(a), string(b)}, {string(b), string(a)}} {
		p, err := s.PlanRevert(c.turn, RevertOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var st *Step
		for i := range p.Steps {
			if p.Steps[i].Path == "y.txt" {
				st = &p.Steps[i]
			}
		}
		if st == nil || st.Do != ActFail || st.Conflicts == nil || !strings.Contains(st.Reason, "turn "+c.other+"'s too") {
			t.Fatalf("revert %s, y.txt: %+v; want a conflict naming turn %s", c.turn, st, c.other)
		}
		r := p.Result()
		if !slices.ContainsFunc(r.Conflicts, func(x Conflict) bool { return x.Path == "y.txt" }) {
			t.Errorf("revert %s: y.txt not among the conflicts %v", c.turn, r.Conflicts)
		}
	}
	res, err := s.Apply(mustPlanRevert(t, s, string(a)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 1 || res.Failed[0].Path != "y.txt" {
		t.Fatalf("revert %s failed %v; want just y.txt", a, res.Failed)
	}
	if got := rd(t, root, "x.txt"); got != "x.txt before\n" {
		t.Errorf("x.txt, A's alone, after the revert: %q", got)
	}
	if got := rd(t, root, "y.txt"); got != "y by one of them\n" {
		t.Errorf("y.txt, shared, was changed: %q", got)
	}
}

func mustPlanRevert(t *testing.T, s *Store, turn string) *Plan {
	t.Helper()
	p, err := s.PlanRevert(turn, RevertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
