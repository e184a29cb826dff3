package store

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// An edit tool writing in place through one name of a hard-linked file
// changes every name: each name inside the root is captured and sealed
// with it, and a rewind gives every name its old bytes back.
func TestCaptureEveryNameOfAHardLink(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "a.txt", "old\n", 0o644)
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	if err := os.Link(filepath.Join(root, "a.txt"), filepath.Join(root, "sub/b.txt")); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, root)
	// A sweep gives the store its baseline, which knows the inodes.
	if _, err := s.SweepBefore("0", TurnMeta{}, "true"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Capture("1", TurnMeta{}, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(root, "a.txt"), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("the agent's\n")
	f.Close()
	if err := s.Seal("1", []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	files, err := s.Files("1", true)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		if f.Post == nil {
			t.Errorf("%s was not sealed", f.Path)
		}
		names = append(names, f.Path)
	}
	if !slices.Equal(names, []string{"a.txt", "sub/b.txt"}) {
		t.Fatalf("turn holds %v, want both names", names)
	}
	rewind(t, s, "1")
	for _, p := range names {
		if b, _ := os.ReadFile(filepath.Join(root, p)); string(b) != "old\n" {
			t.Errorf("after the rewind %s holds %q", p, b)
		}
	}
}

// A rewind that only gives a file its mode back must not chmod a hard
// link to a file outside the root: that would change the outside file.
func TestModeOnlyRewindSparesAHardLinkOutside(t *testing.T) {
	root := tempRoot(t)
	outside := filepath.Join(t.TempDir(), "outside.sh")
	put(t, root, "run.sh", "#!/bin/sh\n", 0o644)
	s := openStore(t, root)
	if _, err := s.Capture("1", TurnMeta{}, []string{"run.sh"}); err != nil {
		t.Fatal(err)
	}
	// The same bytes, now a hard link to a file outside, mode 755.
	put(t, filepath.Dir(outside), "outside.sh", "#!/bin/sh\n", 0o755)
	os.Remove(filepath.Join(root, "run.sh"))
	if err := os.Link(outside, filepath.Join(root, "run.sh")); err != nil {
		t.Skip("no hard link across these folders:", err)
	}
	rewind(t, s, "1")
	if fi, _ := os.Stat(outside); fi.Mode().Perm() != 0o755 {
		t.Fatalf("the file outside the root is now %v", fi.Mode().Perm())
	}
	fi, _ := os.Stat(filepath.Join(root, "run.sh"))
	if fi.Mode().Perm() != 0o644 || links(fi) != 1 {
		t.Fatalf("run.sh: mode %v, %d links; want 644, its own file", fi.Mode().Perm(), links(fi))
	}
}
