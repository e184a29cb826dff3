package store

import (
	"errors"
	"slices"
	"sync"
	"syscall"
	"testing"
)

// TestRedoneRewindKeepsItsFailures: a path a rewind failed, whether its
// plan failed it (a folder in the way) or its write failed, is still not
// as the rewind wanted once the rewind is undone and redone. It stays
// failed, and rewinding the turn again retries it; undoing that retry
// makes it failed again, and a store opened afresh says the same.
func TestRedoneRewindKeepsItsFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		// fail makes the rewind fail b.txt and returns what puts it
		// right; redoFails says whether the redo fails it too.
		fail      func(t *testing.T, root string, s *Store) (clear func())
		redoFails bool
	}{
		{"a folder in the way", func(t *testing.T, root string, s *Store) func() {
			return folderInTheWay(t, root, "b.txt")
		}, false},
		{"a write that fails", func(t *testing.T, root string, s *Store) func() {
			SetRestoreFault(s, func(p string) error {
				if p == "b.txt" {
					return syscall.ENOSPC
				}
				return nil
			})
			return func() { SetRestoreFault(s, nil) }
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			wr(t, root, "a.txt", "A0")
			wr(t, root, "b.txt", "B0")
			s := openStore(t, root)
			agentTurn(t, s, "1", map[string]string{"a.txt": "A1", "b.txt": "B1"})
			clear := sync.OnceFunc(tc.fail(t, root, s))
			defer clear()
			r := rewind(t, s, "1")
			if !slices.Equal(r.Restored, []string{"a.txt"}) || len(r.Failed) != 1 || r.Failed[0].Path != "b.txt" {
				t.Fatalf("rewind: %+v", r)
			}
			undo(t, s)
			if r := redo(t, s); len(r.Failed) != 0 && !tc.redoFails {
				t.Fatalf("redo: %+v", r)
			}
			failed := func(what string, s *Store) {
				t.Helper()
				if f := statusOf(t, s, "1", "b.txt"); f.Status != StatusFailed || f.HandEdited {
					t.Fatalf("after %s: b.txt %s (hand edited %v), want failed", what, f.Status, f.HandEdited)
				}
				if fl, err := s.Failures(); err != nil || len(fl) != 1 || fl[0].Path != "b.txt" {
					t.Fatalf("after %s: failures %+v, %v; want b.txt", what, fl, err)
				}
				p, err := s.PlanRewind("1")
				if err != nil || p.Retry == "" || len(p.Steps) != 1 || p.Steps[0].Path != "b.txt" {
					t.Fatalf("rewind 1 after %s: %+v, %v; want a retry of b.txt", what, p, err)
				}
			}
			failed("the redo", s)
			fresh, err := Open(root, Options{})
			if err != nil {
				t.Fatal(err)
			}
			failed("the redo, in a store opened afresh", fresh)
			fresh.Close()

			clear()
			if r := rewind(t, s, "1"); len(r.Failed) != 0 || rd(t, root, "b.txt") != "B0" || rd(t, root, "a.txt") != "A0" {
				t.Fatalf("the retry: %+v, a.txt %q, b.txt %q", r, rd(t, root, "a.txt"), rd(t, root, "b.txt"))
			}
			if fl, _ := s.Failures(); len(fl) != 0 {
				t.Fatalf("after the retry: failures %+v", fl)
			}
			if _, err := s.PlanRewind("1"); !errors.Is(err, ErrRewound) {
				t.Fatalf("rewind 1 after the retry: %v, want ErrRewound", err)
			}
			undo(t, s)
			if rd(t, root, "b.txt") != "B1" || rd(t, root, "a.txt") != "A0" {
				t.Fatalf("undoing the retry: a.txt %q, b.txt %q", rd(t, root, "a.txt"), rd(t, root, "b.txt"))
			}
			failed("undoing the retry", s)
			redo(t, s)
			if fl, _ := s.Failures(); len(fl) != 0 || rd(t, root, "b.txt") != "B0" {
				t.Fatalf("redoing the retry: failures %+v, b.txt %q", fl, rd(t, root, "b.txt"))
			}
		})
	}
}
