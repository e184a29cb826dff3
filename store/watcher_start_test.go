package store

import (
	"fmt"
	"testing"
)

// TestWatcherWanted: the background watcher is worth starting once the
// sweeps' baseline holds WatcherMinEntries entries, not before a sweep
// ran nor for a smaller tree (unless $CKPT_WATCHER=always), and never
// with $CKPT_WATCHER=off.
func TestWatcherWanted(t *testing.T) {
	t.Setenv("CKPT_WATCHER", "")
	root := tempRoot(t)
	wr(t, root, "a.txt", "a\n")
	s := openStore(t, root)
	if s.WatcherWanted() {
		t.Fatal("wanted before any sweep")
	}
	if _, err := s.SweepBefore("", TurnMeta{}, ""); err != nil {
		t.Fatal(err)
	}
	if s.WatcherWanted() {
		t.Fatal("wanted for a tree of one file")
	}
	t.Setenv("CKPT_WATCHER", "always")
	if !s.WatcherWanted() {
		t.Fatal("not wanted with CKPT_WATCHER=always")
	}
	t.Setenv("CKPT_WATCHER", "")
	for i := range WatcherMinEntries {
		wr(t, root, fmt.Sprintf("d%02d/f%04d.txt", i%50, i), "x\n")
	}
	if _, err := s.SweepBefore("", TurnMeta{}, ""); err != nil {
		t.Fatal(err)
	}
	if !s.WatcherWanted() {
		t.Fatalf("not wanted for a tree of %d files", WatcherMinEntries+1)
	}
	t.Setenv("CKPT_WATCHER", "off")
	if s.WatcherWanted() {
		t.Fatal("wanted with CKPT_WATCHER=off")
	}
}

// TestSweepResultWatcherWanted: after a sweep the watcher is worth
// starting by the same size gate as WatcherWanted, only when no watcher
// fed the sweep and the sweep was not skipped.
func TestSweepResultWatcherWanted(t *testing.T) {
	for _, c := range []struct {
		name, env string
		res       SweepResult
		want      bool
	}{
		{"a small tree", "", SweepResult{Seen: WatcherMinEntries - 1}, false},
		{"a tree worth watching", "", SweepResult{Seen: WatcherMinEntries}, true},
		{"a small tree, always", "always", SweepResult{Seen: 1}, true},
		{"fed by a watcher", "always", SweepResult{Seen: WatcherMinEntries, Feed: FeedFed}, false},
		{"a watcher too slow to answer", "", SweepResult{Seen: WatcherMinEntries, Feed: FeedSlow}, false},
		{"skipped", "", SweepResult{Seen: WatcherMinEntries, Skipped: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("CKPT_WATCHER", c.env)
			if got := c.res.WatcherWanted(); got != c.want {
				t.Fatalf("WatcherWanted: %v, want %v", got, c.want)
			}
		})
	}
}
