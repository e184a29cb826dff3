package store

import (
	"slices"
	"testing"
)

// A rewind applied while a shell command runs writes files the sweep
// after the command finds changed: what the rewind left is the
// operation's, not the command's, so the turn does not claim it (which
// would refuse the rewind's undo, and rewinding the turn would write the
// rewound turn's bytes back); what the command wrote after the rewind is
// the command's, from what the rewind left.
func TestSweepAfterLeavesAnOperationsWritesToIt(t *testing.T) {
	for _, late := range []bool{false, true} {
		name := map[bool]string{false: "left", true: "written again"}[late]
		t.Run(name, func(t *testing.T) {
			root := tempRoot(t)
			put(t, root, "a.txt", "v0\n", 0o644)
			put(t, root, "b.txt", "b0\n", 0o644)
			s := openStore(t, root)
			sweepCmd(t, s, "1", func() { put(t, root, "a.txt", "v1\n", 0o644) })
			if _, err := s.SweepBefore("2", TurnMeta{}, "cmd"); err != nil {
				t.Fatal(err)
			}
			put(t, root, "b.txt", "b1\n", 0o644)
			rewind(t, s, "1") // rewinds 2 too: the command goes on in 2.2
			if late {
				put(t, root, "a.txt", "late\n", 0o644)
			}
			res, err := s.SweepAfter("2", TurnMeta{}, "cmd")
			if err != nil {
				t.Fatal(err)
			}
			files, err := s.Files(string(res.Turn), false)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range files {
				got = append(got, f.Path)
				if f.Path == "a.txt" {
					if b, err := s.ReadImage(f.Pre); err != nil || string(b) != "v0\n" {
						t.Errorf("a.txt's pre-image in %s holds %q (%v), want what the rewind left, v0", res.Turn, b, err)
					}
				}
			}
			want := []string{"b.txt"}
			if late {
				want = []string{"a.txt", "b.txt"}
			}
			if slices.Sort(got); !slices.Equal(got, want) {
				t.Fatalf("turn %s recorded %v, want %v", res.Turn, got, want)
			}
			if late {
				return
			}
			p, err := s.PlanUndo(false)
			if err != nil {
				t.Fatalf("undo of the rewind: %v", err)
			}
			if _, err := s.Apply(p, nil); err != nil {
				t.Fatal(err)
			}
			if a, b := rd(t, root, "a.txt"), rd(t, root, "b.txt"); a != "v1\n" || b != "b1\n" {
				t.Fatalf("after the undo a.txt %q, b.txt %q; want v1, b1", a, b)
			}
		})
	}
}
