package store

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestBaselineChildrenAcrossBlocks: a folder's entries read from the
// baseline's file a block at a time (a few blocks kept), with the log's
// changes over them, are those of the baseline read whole, for every
// folder: nested folders whose contents span blocks, folders the log
// added and emptied, names that sort around '/'.
func TestBaselineChildrenAcrossBlocks(t *testing.T) {
	defer func(n int) { blockCacheMax = n }(blockCacheMax)
	blockCacheMax = 2
	root := t.TempDir()
	for i := range 600 {
		wr(t, root, fmt.Sprintf("a/b%02d/c%d/f%03d.txt", i%13, i%3, i), "x\n")
		if i%7 == 0 {
			wr(t, root, fmt.Sprintf("a/b%02d.txt", i%13), "y\n")
			wr(t, root, fmt.Sprintf("a/b%02d-x/g%03d", i%13, i), "z\n")
		}
	}
	s, err := Open(root, Options{Create: true, Feed: noFeedTest{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.SweepBefore("", TurnMeta{}, ""); err != nil {
		t.Fatal(err)
	}
	// Changes that go to the log: new folders, removed ones, new files.
	for i := range 20 {
		wr(t, root, fmt.Sprintf("a/b%02d/new%d/h.txt", i%13, i), "n\n")
	}
	if err := os.RemoveAll(filepath.Join(root, "a", "b03")); err != nil {
		t.Fatal(err)
	}
	wr(t, root, "a/b05/c1/zz.txt", "z\n")
	if _, err := s.SweepAfter("1", TurnMeta{}, "step"); err != nil {
		t.Fatal(err)
	}
	whole, err := s.loadBaseline()
	if err != nil {
		t.Fatal(err)
	}
	parts, err := s.openBaseline(true)
	if err != nil || parts == nil || parts.src == nil || parts.src.table == nil {
		t.Fatalf("the baseline is not a table read by blocks: %v", err)
	}
	defer parts.close()
	if len(parts.src.keys) == 0 {
		t.Fatal("the sweep after wrote no log to read over the table")
	}
	dirs := []string{""}
	for _, e := range whole.entries {
		if e.kind == baseDir {
			dirs = append(dirs, e.path)
		}
	}
	for _, d := range append(dirs, "a/b03", "nothing") {
		var want, got []string
		_ = whole.childrenOf(d, func(e *baseEntry) { want = append(want, e.path) })
		if err := parts.childrenOf(d, func(e *baseEntry) { got = append(got, e.path) }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("folder %q: read by blocks %v, whole %v", d, got, want)
		}
	}
}
