package store

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/record"
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
			commandIn(t, s, "1", "cmd", func() { put(t, root, "a.txt", "v1\n", 0o644) })
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

// An agent's write captured, then a rewind to before an earlier turn
// applied before the write is sealed: the seal goes to a continuation,
// whose pre-image is what the rewind left (the earlier turn's pre-image),
// not the capture's, so rewinding the continuation gives the folder back
// as the rewind left it, never the rewound turn's bytes.
func TestSealAfterARewindTakesWhatItLeft(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "a.txt", "v0\n", 0o644)
	s := openStore(t, root)
	if _, err := s.Capture("1", TurnMeta{}, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	put(t, root, "a.txt", "v1\n", 0o644)
	if err := s.Seal("1", []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Capture("2", TurnMeta{}, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	rewind(t, s, "1") // turns 1 and 2: a.txt holds v0 again
	put(t, root, "a.txt", "two\n", 0o644)
	if err := s.Seal("2", []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	rewind(t, s, "2.2")
	if got := rd(t, root, "a.txt"); got != "v0\n" {
		t.Fatalf("after rewinding 2.2 a.txt holds %q, want v0, as the rewind of 1 left it", got)
	}
}

// An operation that did not finish, abandoned by recovery, may not have
// written what its steps wanted: what a command running meanwhile
// changed is the command's, from what the folder held at its baseline,
// never from what the abandoned operation would have left.
func TestSweepAfterAnAbandonedOperation(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "a.txt", "v0\n", 0o644)
	s := openStore(t, root)
	commandIn(t, s, "1", "cmd", func() { put(t, root, "a.txt", "v1\n", 0o644) })
	if _, err := s.SweepBefore("2", TurnMeta{}, "cmd"); err != nil {
		t.Fatal(err)
	}
	rewind(t, s, "1")
	// As if the rewind had been killed before its step and recovery had
	// abandoned it: its step never ran, so a.txt still holds v1.
	opsLog := filepath.Join(root, ".osfoundry", "checkpoints", "ops.log")
	data, err := os.ReadFile(opsLog)
	if err != nil {
		t.Fatal(err)
	}
	recs := record.Decode(data).Recs
	if len(recs) != 2 || recs[0].R != "op" || recs[1].R != "done" {
		t.Fatalf("ops.log holds %d records, want an op and its done", len(recs))
	}
	abandoned := record.Append(record.Append(nil, &recs[0]), &record.Line{R: "done", Turn: record.Turn{ID: recs[0].ID}, Done: record.Done{Recovered: true, Abandoned: true}})
	if err := os.WriteFile(opsLog, abandoned, 0o600); err != nil {
		t.Fatal(err)
	}
	put(t, root, "a.txt", "v1\n", 0o644)
	s = openStore(t, root)
	put(t, root, "a.txt", "late\n", 0o644) // the command's own write
	res, err := s.SweepAfter("2", TurnMeta{}, "cmd")
	if err != nil {
		t.Fatal(err)
	}
	files, err := s.Files(cmp.Or(string(res.Turn), "2"), false)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, f := range files {
		if f.Path != "a.txt" {
			continue
		}
		found = true
		if b, err := s.ReadImage(f.Pre); err != nil || string(b) != "v1\n" {
			t.Errorf("a.txt's pre-image holds %q (%v), want v1, what it held when the command began", b, err)
		}
	}
	if !found {
		t.Fatalf("turn %s did not record a.txt: %v", res.Turn, files)
	}
}
