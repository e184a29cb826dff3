package store

import (
	"slices"
	"testing"
)

// TestWatchHonoursClaimAfterItsRead: a hook's turn captures and seals
// y.txt after ckpt watch's sweep read the tree and before it recorded
// what it found. The claim is read under the store's lock, with the
// records: y.txt is left to the hook's turn, not given to the watcher's.
func TestWatchHonoursClaimAfterItsRead(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "x.txt", "x before\n", 0o644)
	put(t, root, "y.txt", "y before\n", 0o644)
	s := openStore(t, root)
	if _, err := s.SweepWatch("", watchMeta); err != nil { // the baseline
		t.Fatal(err)
	}
	b, _ := s.NewTurn(TurnMeta{Label: "B", Source: &Source{Agent: "codex", Session: "sb"}})
	put(t, root, "x.txt", "x by hand\n", 0o644)
	put(t, root, "y.txt", "y by hand\n", 0o644)
	s.sweepRead = func() {
		s.sweepRead = nil
		editIn(t, s, root, b, "y.txt", "y by B's edit\n")
	}
	res, err := s.SweepWatch("", watchMeta)
	if err != nil {
		t.Fatal(err)
	}
	if s.sweepRead != nil {
		t.Fatal("the sweep never reached the point between its read and its records")
	}
	if !slices.Equal(res.Changed, []string{"x.txt"}) {
		t.Fatalf("ckpt watch's sweep recorded %v, want x.txt alone", res.Changed)
	}
	sameShares(t, "B's turn", turnShares(t, s, b), map[string][]string{"y.txt": nil})
}

// TestClaimedUnderLockListsNoTurns: ckpt watch's sweep reads the claims
// under its own hold of the store's lock, which answers as a shared hold
// does: a load with nothing changed since lists no turn files.
func TestClaimedUnderLockListsNoTurns(t *testing.T) {
	s := openStore(t, genStore(t))
	if _, err := s.Log(true); err != nil {
		t.Fatal(err)
	}
	l, err := s.lock()
	if err != nil {
		t.Fatal(err)
	}
	listed := s.cache.listed
	claimed, err := s.claimedSince(0, false, l)
	l.unlock()
	if err != nil {
		t.Fatal(err)
	}
	if !claimed["a.txt"] {
		t.Fatalf("claimed %v, want a.txt among them", claimed)
	}
	if s.cache.listed != listed {
		t.Fatal("the load under the sweep's lock listed the turn files")
	}
}
