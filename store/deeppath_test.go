package store

import (
	"strings"
	"testing"
)

// TestDeepPathResolvesInDepth: rewinding, undoing and recovering an
// interrupted undo of a file 600 folders down hands the kernel whole
// paths of O(depth) bytes in all, not a whole path per folder (O(depth²):
// 5.8 s to undo at 600 folders, over 100 s at 1,500). Counted in bytes,
// not time.
func TestDeepPathResolvesInDepth(t *testing.T) {
	const depth = 600
	s, rel := deepStore(t, depth) // a turn rewrote it, and a rewind of it
	root := s.Root()
	bound := int64(20 * (len(root) + len(rel)))
	walked := func(what string, f func()) {
		t.Helper()
		before := pathWalk.Load()
		f()
		if n := pathWalk.Load() - before; n > bound {
			t.Errorf("%s of a file %d folders down walked %d bytes of whole paths, want at most %d", what, depth, n, bound)
		}
	}
	walked("an undo", func() {
		if r := undo(t, s); len(r.Failed) > 0 {
			t.Fatalf("undo: %+v", r)
		}
	})
	if got := rd(t, root, rel); got != "after\n" {
		t.Fatalf("after the undo: %q", got)
	}
	walked("a redo", func() {
		if r := redo(t, s); len(r.Failed) > 0 {
			t.Fatalf("redo: %+v", r)
		}
	})
	walked("an undo killed before its end, carried on by the next open", func() {
		undo(t, s)
		stripLastDone(t, root)
		s2, err := Open(root, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s2.Close()
	})
	if got := rd(t, root, rel); got != "after\n" || !strings.HasSuffix(rel, "f.txt") {
		t.Fatalf("after the recovered undo: %q", got)
	}
}
