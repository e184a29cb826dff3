package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deepPath is a file under depth folders of one letter each.
func deepPath(depth int) string {
	return strings.Repeat("d/", depth) + "f.txt"
}

// deepStore makes a project holding one file depth folders down, a turn
// that rewrote it, and a rewind of that turn, so an undo is ready.
func deepStore(tb testing.TB, depth int) (*Store, string) {
	tb.Helper()
	root := tb.TempDir()
	rel := deepPath(depth)
	rt, err := os.OpenRoot(root)
	if err != nil {
		tb.Fatal(err)
	}
	defer rt.Close()
	if err := rt.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := rt.WriteFile(rel, []byte("before\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	s, err := Open(root, Options{Create: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	if _, err := s.Capture("1", TurnMeta{}, []string{rel}); err != nil {
		tb.Fatal(err)
	}
	if err := rt.WriteFile(rel, []byte("after\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := s.Seal("1", []string{rel}); err != nil {
		tb.Fatal(err)
	}
	if r, err := s.Apply(mustPlan(s.PlanRewind("1")), nil); err != nil || len(r.Failed) > 0 || len(r.Restored) != 1 {
		tb.Fatalf("rewind: %+v %v", r, err)
	}
	return s, rel
}

// BenchmarkUndoDepth is the undo of a rewind of one file 100, 1,000 and
// 2,000 folders down (the redo putting it back is not timed): the time
// must grow with the depth, not with its square.
func BenchmarkUndoDepth(b *testing.B) {
	for _, depth := range []int{100, 1000, 2000} {
		b.Run(fmt.Sprintf("depth%d", depth), func(b *testing.B) {
			s, _ := deepStore(b, depth)
			for b.Loop() {
				r, err := s.Apply(mustPlan(s.PlanUndo(false)), nil)
				if err != nil || len(r.Failed) > 0 {
					b.Fatalf("undo: %+v %v", r, err)
				}
				b.StopTimer()
				if r, err := s.Apply(mustPlan(s.PlanRedo(false)), nil); err != nil || len(r.Failed) > 0 {
					b.Fatalf("redo: %+v %v", r, err)
				}
				b.StartTimer()
			}
		})
	}
}
