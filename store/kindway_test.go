package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Found by the model-based test: what stands on a path's way now, put
// there after the path was recorded.

func kindRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return root
}

func openKind(t *testing.T, root string) *Store {
	t.Helper()
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A folder a command replaced by a link that loops (or leads out of the
// project): the files it held are deleted by the turn, not changed by
// hand behind a link that cannot be read.
func TestFilesBehindALoopingLinkAreGone(t *testing.T) {
	for _, target := range []string{"src/main.go", "/"} {
		t.Run(target, func(t *testing.T) {
			root := kindRoot(t)
			put(t, root, "src/main.go", "package main\n", 0o644)
			s := openKind(t, root)
			turn, _ := s.NewTurn(TurnMeta{})
			if _, err := s.SweepBefore(turn, TurnMeta{}, "cmd"); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(filepath.Join(root, "src"))
			if err := os.Symlink(target, filepath.Join(root, "src")); err != nil {
				t.Fatal(err)
			}
			if _, err := s.SweepAfter(turn, TurnMeta{}, "cmd"); err != nil {
				t.Fatal(err)
			}
			files, err := s.Files(string(turn), true)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.Path == "src/main.go" && f.Status != StatusDeleted {
					t.Errorf("src/main.go: %s (%+v), want deleted", f.Status, f.Disk)
				}
			}
			rewind(t, s, string(turn))
			if b, err := os.ReadFile(filepath.Join(root, "src/main.go")); err != nil || string(b) != "package main\n" {
				t.Fatalf("after the rewind src/main.go holds %q, %v", b, err)
			}
		})
	}
}

// An undo gives back the folders its rewind removed, but never through a
// link that stands on their way now: the folder would be made inside
// whatever the link leads to.
func TestUndoMakesNoFolderThroughALink(t *testing.T) {
	root := kindRoot(t)
	put(t, root, "other/keep", "k\n", 0o644)
	s := openKind(t, root)
	if _, err := s.Capture("1", TurnMeta{}, []string{"new/deep/x.txt", "new/y.txt"}); err != nil {
		t.Fatal(err)
	}
	put(t, root, "new/deep/x.txt", "x\n", 0o644)
	put(t, root, "new/y.txt", "y\n", 0o644)
	if err := s.Seal("1", []string{"new/deep/x.txt", "new/y.txt"}); err != nil {
		t.Fatal(err)
	}
	rewind(t, s, "1") // removes new/deep and new
	// A later turn puts a link to another folder where new was.
	if _, err := s.Capture("2", TurnMeta{}, []string{"new"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("other", filepath.Join(root, "new")); err != nil {
		t.Fatal(err)
	}
	if err := s.Seal("2", []string{"new"}); err != nil {
		t.Fatal(err)
	}
	p, err := s.PlanUndo(true)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Apply(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(root, "other/deep")); err == nil {
		t.Fatal("the undo made other/deep through the link new")
	}
	if len(r.Failed) != 2 {
		t.Fatalf("undo: %+v; want both files failed, the link in their way", r)
	}
	if l, _ := os.Readlink(filepath.Join(root, "new")); l != "other" {
		t.Fatalf("new -> %q, want the link left as it is", l)
	}
}

// A plan that would write a path where a file now stands in one of its
// folders' place (made by hand, or by a newer turn) says so and fails
// that step; it never finds out only when it applies.
func TestPlanFailsWhereAFileStandsForAFolder(t *testing.T) {
	root := kindRoot(t)
	put(t, root, "d/x", "x\n", 0o644)
	s := openKind(t, root)
	if _, err := s.Capture("1", TurnMeta{}, []string{"d/x"}); err != nil {
		t.Fatal(err)
	}
	put(t, root, "d/x", "x by the agent\n", 0o644)
	if err := s.Seal("1", []string{"d/x"}); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(root, "d"))
	put(t, root, "d", "a file made by hand\n", 0o644)
	p, err := s.PlanRewind("1")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 1 || p.Steps[0].Do != ActFail || !strings.Contains(p.Steps[0].Reason, "a file stands where its folder d was") {
		t.Fatalf("plan steps %+v; want d/x failed, saying a file stands where its folder d was", p.Steps)
	}
	if _, err := s.Apply(p, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "d")); string(b) != "a file made by hand\n" {
		t.Fatalf("d holds %q", b)
	}
}
