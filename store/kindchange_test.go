package store

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// kindChanges are shell commands that change what kind of entry a path
// is: each must be recorded so a rewind gives back the folder before it
// and the undo the folder after it, exactly.
var kindChanges = []struct {
	name  string
	setup func(t *testing.T, root string)
	cmd   func(t *testing.T, root string)
}{
	{"file becomes a folder", func(t *testing.T, root string) {
		put(t, root, "f", "hello\n", 0o640)
	}, func(t *testing.T, root string) {
		os.Remove(filepath.Join(root, "f"))
		put(t, root, "f/g", "g\n", 0o644)
	}},
	{"link becomes a folder", func(t *testing.T, root string) {
		put(t, root, "a.txt", "a\n", 0o644)
		os.Symlink("a.txt", filepath.Join(root, "l"))
	}, func(t *testing.T, root string) {
		os.Remove(filepath.Join(root, "l"))
		put(t, root, "l/inside", "i\n", 0o644)
	}},
	{"folder becomes a file", func(t *testing.T, root string) {
		put(t, root, "d/x", "x\n", 0o644)
		put(t, root, "d/sub/y", "y\n", 0o600)
		os.Chmod(filepath.Join(root, "d"), 0o750)
	}, func(t *testing.T, root string) {
		os.RemoveAll(filepath.Join(root, "d"))
		put(t, root, "d", "file\n", 0o644)
	}},
	{"folder becomes a link to another folder", func(t *testing.T, root string) {
		put(t, root, "e/x", "ex\n", 0o644)
		put(t, root, "o/y", "other\n", 0o644)
	}, func(t *testing.T, root string) {
		os.RemoveAll(filepath.Join(root, "e"))
		os.Symlink("o", filepath.Join(root, "e"))
	}},
	{"folder becomes a link to a folder holding the same names", func(t *testing.T, root string) {
		put(t, root, "e/x", "ex\n", 0o644)
		put(t, root, "o/x", "other x\n", 0o644)
	}, func(t *testing.T, root string) {
		os.RemoveAll(filepath.Join(root, "e"))
		os.Symlink("o", filepath.Join(root, "e"))
	}},
	{"folder's mode changes", func(t *testing.T, root string) {
		put(t, root, "m/x", "x\n", 0o644)
	}, func(t *testing.T, root string) {
		os.Chmod(filepath.Join(root, "m"), 0o700)
	}},
}

func TestSweepKindChanges(t *testing.T) {
	for _, tc := range kindChanges {
		t.Run(tc.name, func(t *testing.T) {
			root := tempRoot(t)
			tc.setup(t, root)
			s := openStore(t, root)
			turn, before, after := commandTurn(t, s, "kind", func() { tc.cmd(t, root) })
			if finds, err := s.Verify(); err != nil || len(finds) > 0 {
				t.Fatalf("verify after the sweep: %v, %v", finds, err)
			}
			files, err := s.Files(string(turn), true)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.Status == StatusMissingBlob {
					t.Errorf("%s: %s (%s)", f.Path, f.Status, f.Reason)
				}
			}
			rewindUndoRedo(t, s, turn, before, after, false)
		})
	}
}

// A rewind never writes through a link that now stands where one of the
// path's folders was, even when nothing recorded the folder itself.
func TestRewindNeverWritesThroughALink(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "e/x", "ex\n", 0o644)
	put(t, root, "o/keep", "other\n", 0o644)
	s := openStore(t, root)
	if _, err := s.Capture("1", TurnMeta{}, []string{"e/x"}); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(root, "e"))
	os.Symlink("o", filepath.Join(root, "e"))
	r := rewind(t, s, "1")
	if len(r.Failed) != 1 || r.Failed[0].Path != "e/x" {
		t.Fatalf("rewind: %+v; want e/x failed", r)
	}
	if _, err := os.Lstat(filepath.Join(root, "o/x")); err == nil {
		t.Fatal("the rewind wrote e/x through the link, into o/x")
	}
}

// rm -rf of a clone inside the project: its files come back, and its
// .git, whose history is not kept, is listed as failed, never dropped
// silently. The project's own .git stays out of the sweep.
func TestSweepNestedRepository(t *testing.T) {
	root := tempRoot(t)
	put(t, root, ".git/HEAD", "ref: refs/heads/main\n", 0o644)
	put(t, root, "nested/a.txt", "a\n", 0o644)
	put(t, root, "nested/.git/HEAD", "ref: refs/heads/main\n", 0o644)
	put(t, root, "sub/.git", "gitdir: ../.git/modules/sub\n", 0o644)
	s := openStore(t, root)
	turn, _ := s.NewTurn(TurnMeta{})
	if _, err := s.SweepBefore(turn, TurnMeta{}, "rm"); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(root, "nested"))
	os.Remove(filepath.Join(root, "sub/.git"))
	put(t, root, ".git/HEAD", "ref: refs/heads/other\n", 0o644)
	res, err := s.SweepAfter(turn, TurnMeta{}, "rm -rf nested")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"nested/.git", "nested/a.txt", "sub/.git"}; !slices.Equal(res.Changed, want) {
		t.Fatalf("changed %v, want %v", res.Changed, want)
	}
	r := rewind(t, s, string(turn))
	if len(r.Failed) != 1 || r.Failed[0].Path != "nested/.git" || !strings.Contains(r.Failed[0].Reason, "nested git repository") {
		t.Fatalf("rewind: %+v; want nested/.git failed, saying why", r)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "nested/a.txt")); string(b) != "a\n" {
		t.Fatalf("nested/a.txt holds %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "sub/.git")); string(b) != "gitdir: ../.git/modules/sub\n" {
		t.Fatalf("sub/.git holds %q", b)
	}
}
