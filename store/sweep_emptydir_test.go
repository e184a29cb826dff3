package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSweepNewEmptyFolder: a folder a shell command makes and leaves
// empty (mkdir e, mkdir -p f/g) is the command's: its turn records it, a
// rewind removes it and undo makes it again with its mode. One that
// holds a file is recorded through the file, as before.
func TestSweepNewEmptyFolder(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "a.txt", "a\n", 0o644)
	s := openStore(t, root)
	turn, _ := s.NewTurn(TurnMeta{})
	const cmd = "mkdir e; mkdir -p f/g; mkdir -p h; echo x > h/x"
	if _, err := s.SweepBefore(turn, TurnMeta{}, cmd); err != nil {
		t.Fatal(err)
	}
	ageBaseline(t, s)
	for _, d := range []string{"e", "f/g", "h"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o750); err != nil {
			t.Fatal(err)
		}
	}
	put(t, root, "h/x", "x\n", 0o644)
	res, err := s.SweepAfter(turn, TurnMeta{}, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"e", "f/g", "h/x"}; !slices.Equal(res.Changed, want) {
		t.Fatalf("the sweep after recorded %v, want %v", res.Changed, want)
	}
	r := rewind(t, s, string(turn))
	if len(r.Failed) > 0 {
		t.Fatalf("rewind: %+v", r)
	}
	for _, d := range []string{"e", "f", "h"} {
		if _, err := os.Lstat(filepath.Join(root, d)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after the rewind: %v, want it gone", d, err)
		}
	}
	undo(t, s)
	for _, d := range []string{"e", "f/g", "h"} {
		if fi, err := os.Lstat(filepath.Join(root, d)); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o750 {
			t.Errorf("%s after undo: %v, %v; want a folder of mode 0750", d, fi, err)
		}
	}
	if got := rd(t, root, "h/x"); got != "x\n" {
		t.Errorf("h/x after undo: %q", got)
	}
}

// TestSweepNewEmptyFolderOwner: an empty folder A's command makes, found
// by B's sweep before its command while A's ran, is A's: A's closing
// sweep records it in A's turn alone, not shared with B's, which went on
// running.
func TestSweepNewEmptyFolderOwner(t *testing.T) {
	root, s, a, b, _ := twoRunning(t)
	if err := os.Mkdir(filepath.Join(root, "d"), 0o750); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepBefore(b, TurnMeta{}, "sleep 5"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepAfter(a, TurnMeta{}, "mkdir d"); err != nil {
		t.Fatal(err)
	}
	sameShares(t, "A's turn", turnShares(t, s, a), map[string][]string{"d": nil, "x.txt": nil})
	if _, err := s.SweepAfter(b, TurnMeta{}, "sleep 5"); err != nil {
		t.Fatal(err)
	}
	sameShares(t, "B's turn", turnShares(t, s, b), map[string][]string{})
	rewind(t, s, string(a))
	if _, err := os.Lstat(filepath.Join(root, "d")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("d after rewinding A's turn: %v, want it gone", err)
	}
}
