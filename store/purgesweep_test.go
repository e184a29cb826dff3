package store

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Found by the model-based test: a purge drops a path from the baseline,
// and the next sweep must read it afresh, even where its folder has not
// changed (a sweep reuses the listing of a folder whose times it knows),
// or a later command's change to it would land in no turn.
func TestSweepAfterPurgeSeesThePathAgain(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "d/k", "secret 1\n", 0o644)
	put(t, root, "a.txt", "a\n", 0o644)
	// The folder ages past the racy window, so a sweep may reuse its
	// listing.
	time.Sleep(racyWindowTest())
	s := openStore(t, root)
	t1, _ := s.NewTurn(TurnMeta{})
	commandIn(t, s, t1, "cmd", func() { put(t, root, "d/k", "secret 2\n", 0o644) })
	if _, err := s.Purge([]string{"d/k"}); err != nil {
		t.Fatal(err)
	}
	t2, _ := s.NewTurn(TurnMeta{})
	if _, err := s.SweepBefore(t2, TurnMeta{}, "cmd"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "d/k"), []byte("secret 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := s.SweepAfter(t2, TurnMeta{}, "cmd")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Changed, "d/k") {
		t.Fatalf("the sweep after the command found %v changed, not d/k", res.Changed)
	}
	rewind(t, s, string(t2))
	if b, _ := os.ReadFile(filepath.Join(root, "d/k")); string(b) != "secret 2\n" {
		t.Fatalf("after the rewind d/k holds %q", b)
	}
}
