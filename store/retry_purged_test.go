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
	unblock := folderInTheWay(t, root, "a.txt")
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
	undo(t, s)
	unblock = folderInTheWay(t, root, "a.txt")
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
	if r := redo(t, s); len(r.Failed) != 0 || rd(t, root, "a.txt") != "a0" {
		t.Fatalf("redo of the first retry: %+v, a.txt %q", r, rd(t, root, "a.txt"))
	}
	for _, id := range []string{r1.Op, r3.Op} {
		if got := failedPaths(t, s, id); len(got) != 0 {
			t.Errorf("after the first retry is redone, %s lists %v failed; the retry made them moot", id, got)
		}
	}
	undo(t, s)
	if got, want := failedPaths(t, s, r3.Op), []string{"a.txt", "secret.env"}; !slices.Equal(got, want) {
		t.Errorf("after the first retry is undone again, %s lists %v failed, want %v", r3.Op, got, want)
	}
}

// TestUndoRetryFailsAfreshAfterCapture: an undo failed a path (a file
// stands where its folder was), a turn then captured the path afresh,
// which makes that failure moot, and undo again tried it once more and
// failed it again. The path is failed by the retry, newer than the
// capture, as the undo just said, not shown as changed by the turns.
func TestUndoRetryFailsAfreshAfterCapture(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "d/x.txt", "x0")
	wr(t, root, "b.txt", "b0")
	s := openStore(t, root)
	agentTurn(t, s, "1", map[string]string{"d/x.txt": "x1", "b.txt": "b1"})
	rewind(t, s, "1")
	if err := os.RemoveAll(filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	wr(t, root, "d", "a file where the folder was")
	r := undo(t, s)
	if len(r.Failed) != 1 || r.Failed[0].Path != "d/x.txt" || rd(t, root, "b.txt") != "b1" {
		t.Fatalf("undo: %+v", r)
	}
	x := filepath.Join(root, "d", "x.txt")
	if _, err := s.Capture("2", TurnMeta{Label: "turn 2"}, []string{x}); err != nil {
		t.Fatal(err)
	}
	if err := s.Seal("2", []string{x}); err != nil {
		t.Fatal(err)
	}
	if f := statusOf(t, s, "1", "d/x.txt"); f.Status == StatusFailed {
		t.Fatalf("d/x.txt is %s after turn 2 captured it afresh", f.Status)
	}
	u, err := s.PlanUndo(false)
	if err != nil || u.Retry != r.Op {
		t.Fatalf("undo again: %+v, %v; want a retry of %s", u, err, r.Op)
	}
	r2 := apply(t, s, u, nil)
	if len(r2.Failed) != 1 || r2.Failed[0].Path != "d/x.txt" {
		t.Fatalf("the retry: %+v", r2)
	}
	if f := statusOf(t, s, "1", "d/x.txt"); f.Status != StatusFailed || f.Reason == "" {
		t.Fatalf("d/x.txt: status %s reason %q after the retry failed it again; want failed", f.Status, f.Reason)
	}
	if got := failedPaths(t, s, r2.Op); !slices.Equal(got, []string{"d/x.txt"}) {
		t.Fatalf("%s lists %v failed", r2.Op, got)
	}
}
