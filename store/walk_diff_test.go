package store

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// settledTree is a store over a tree of n files (see bigTree) that lists
// the whole tree at every sweep, swept twice: the second sweep, past the
// racy window, leaves nothing to look at again.
func settledTree(t *testing.T, n int) (string, *Store) {
	t.Helper()
	root, s := sweptTree(t, n)
	time.Sleep(racyWindowTest())
	if _, err := s.SweepBefore("", TurnMeta{}, ""); err != nil {
		t.Fatal(err)
	}
	return root, s
}

// TestSweepWithoutWatcherHoldsChanges: a sweep without a watcher lists
// every folder but keeps only what differs from the old baseline, which
// it reads a block at a time (a bounded few kept), never whole; what it
// records is what changed, and the baseline after is the tree's.
func TestSweepWithoutWatcherHoldsChanges(t *testing.T) {
	defer func(n int) { blockCacheMax = n }(blockCacheMax)
	blockCacheMax = 8
	root, s := settledTree(t, 5000)
	wr(t, root, "d010/f00500.txt", "changed\n")
	if err := os.RemoveAll(filepath.Join(root, "d020")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "d030")); err != nil {
		t.Fatal(err)
	}
	wr(t, root, "d030", "a file where a folder was\n")
	wr(t, root, "new/x.txt", "new\n")
	if err := os.Chmod(filepath.Join(root, "d040/f02000.txt"), 0o600); err != nil {
		t.Fatal(err)
	}

	old, err := s.openBaseline(true)
	if err != nil || old == nil {
		t.Fatal(err)
	}
	l, seen, err := walkChanged(s.rootPath, nil, old)
	if err != nil {
		t.Fatal(err)
	}
	all, _, _, err := walkTree(s.rootPath)
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(all) {
		t.Errorf("the walk saw %d entries, the tree holds %d", seen, len(all))
	}
	if n := len(old.src.table.blocks); n > blockCacheMax {
		t.Errorf("the walk kept %d blocks decoded (at most %d)", n, blockCacheMax)
	}
	if old.loaded || old.entries != nil {
		t.Errorf("the walk read the old baseline whole")
	}
	// Now: the changed file, the file d030, new and new/x.txt, the
	// chmodded file, and the root and the folders whose entries moved.
	if len(l.now) > 12 {
		t.Errorf("the walk kept %d entries, want only what changed", len(l.now))
	}
	// Old: those, and everything under d020 and d030.
	if len(l.old) < 102 || len(l.old) > 110 {
		t.Errorf("the walk stands in for %d old entries", len(l.old))
	}
	old.close()

	res, err := s.SweepAfter("1", TurnMeta{}, "step")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"d010/f00500.txt"}
	for i := 1000; i < 1050; i++ {
		want = append(want, fmt.Sprintf("d020/f%05d.txt", i))
	}
	want = append(want, "d030")
	for i := 1500; i < 1550; i++ {
		want = append(want, fmt.Sprintf("d030/f%05d.txt", i))
	}
	want = append(want, "d040/f02000.txt", "new/x.txt")
	if !slices.Equal(res.Changed, want) {
		t.Errorf("recorded %d paths %v\nwant %d %v", len(res.Changed), res.Changed, len(want), want)
	}
	if res.Fresh || res.Seen != len(all) {
		t.Errorf("sweep: %+v", res)
	}
	sameAsFull(t, s, "after the sweep")
}

// TestSweepWithoutWatcherDamagedBlock: a block of the old baseline that
// fails its check, found while the walk looks a folder up, makes the
// sweep read every file again, as any damage does, and the baseline
// after is the tree's.
func TestSweepWithoutWatcherDamagedBlock(t *testing.T) {
	root, s := settledTree(t, 3000)
	bp := filepath.Join(s.path(""), baselineFile)
	data, err := os.ReadFile(bp)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x40
	if err := os.WriteFile(bp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	wr(t, root, "d005/f00250.txt", "changed\n")
	res, err := s.SweepAfter("1", TurnMeta{}, "step")
	if err != nil || !res.Fresh || len(res.Changed) != 0 || res.Read != 3000 {
		t.Fatalf("%+v, %v; want a fresh sweep reading every file and recording nothing", res, err)
	}
	sameAsFull(t, s, "after the damaged block")
	wr(t, root, "d006/f00300.txt", "changed\n")
	res, err = s.SweepAfter("1", TurnMeta{}, "step")
	if err != nil || !slices.Equal(res.Changed, []string{"d006/f00300.txt"}) {
		t.Fatalf("next sweep: %+v, %v", res, err)
	}
}
