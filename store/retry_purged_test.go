package store

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// failedPaths is what log entry id lists as still failed.
func failedPaths(t *testing.T, s *Store, id string) []string {
	t.Helper()
	var out []string
	for _, f := range entry(t, s, id).Failed {
		out = append(out, f.Path)
	}
	slices.Sort(out)
	return out
}

// TestRedoneRetryMootsLaterFailedRetry: a rewind failed a purged path
// and one a folder stood in the way of; a retry put the second right
// and was undone; a second retry, with the folder back in the way,
// failed both and changed nothing. Redoing the first retry makes what
// the rewind failed moot again, the second retry's failures with it
// (they stood for the rewind's), as applying the first retry did; undoing
// it once more brings both back.
func TestRedoneRetryMootsLaterFailedRetry(t *testing.T) {
	root, s := secretProject(t, "KEY=0\n")
	wr(t, root, "c.txt", "c0")
	agentTurn(t, s, "1", map[string]string{"a.txt": "a1", "secret.env": "KEY=1\n", "c.txt": "c1"})
	if _, err := s.Purge([]string{"secret.env"}); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(root, "a.txt")
	block := func() {
		t.Helper()
		if err := os.Rename(a, a+".away"); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(a, "in the way"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	unblock := func() {
		t.Helper()
		if err := os.RemoveAll(a); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(a+".away", a); err != nil {
			t.Fatal(err)
		}
	}
	block()
	r1 := rewind(t, s, "1")
	if len(r1.Failed) != 2 || rd(t, root, "c.txt") != "c0" {
		t.Fatalf("rewind: %+v", r1)
	}
	unblock()
	p, err := s.PlanRewind("1")
	if err != nil || p.Retry != r1.Op {
		t.Fatalf("first retry plan %+v, %v; want a retry of %s", p, err, r1.Op)
	}
	r2 := apply(t, s, p, nil)
	if rd(t, root, "a.txt") != "a0" {
		t.Fatalf("first retry: %+v, a.txt %q", r2, rd(t, root, "a.txt"))
	}
	u, err := s.PlanUndo(false)
	apply(t, s, u, err)
	block()
	p, err = s.PlanRewind("1")
	if err != nil || p.Retry != r1.Op {
		t.Fatalf("second retry plan %+v, %v; want a retry of %s", p, err, r1.Op)
	}
	r3 := apply(t, s, p, nil)
	if len(r3.Failed) != 2 {
		t.Fatalf("second retry: %+v", r3)
	}
	if e := entry(t, s, r3.Op); e.State != StateFailed {
		t.Fatalf("%s is %s, want failed (it changed nothing)", r3.Op, e.State)
	}
	unblock()
	rp, err := s.PlanRedo(false)
	if r := apply(t, s, rp, err); len(r.Failed) != 0 || rd(t, root, "a.txt") != "a0" {
		t.Fatalf("redo of the first retry: %+v, a.txt %q", r, rd(t, root, "a.txt"))
	}
	for _, id := range []string{r1.Op, r3.Op} {
		if got := failedPaths(t, s, id); len(got) != 0 {
			t.Errorf("after the first retry is redone, %s lists %v failed; the retry made them moot", id, got)
		}
	}
	u, err = s.PlanUndo(false)
	apply(t, s, u, err)
	if got, want := failedPaths(t, s, r3.Op), []string{"a.txt", "secret.env"}; !slices.Equal(got, want) {
		t.Errorf("after the first retry is undone again, %s lists %v failed, want %v", r3.Op, got, want)
	}
}
