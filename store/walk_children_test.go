package store

import (
	"slices"
	"strings"
	"testing"
)

// childrenTree is a baseline read whole whose names sort around the
// '/' of their folders ("a", "a.go", "a/b", "a0").
func childrenTree() *baseline {
	var b baseline
	for _, p := range []string{"a", "a-b", "a-b/x", "a.go", "a/b", "a/b/c", "a/b/c/d", "a/b.txt", "a/b0", "a/z", "a0", "b", "b/a", "b/a/a", "c"} {
		b.entries = append(b.entries, baseEntry{path: p})
	}
	slices.SortFunc(b.entries, func(x, y baseEntry) int { return strings.Compare(x.path, y.path) })
	return &b
}

// TestChildrenOfInMemory: the children of a folder of a baseline read
// whole are the entries directly in it, in path order, and under it
// what lies under it, as a filter of every entry finds them.
func TestChildrenOfInMemory(t *testing.T) {
	b := childrenTree()
	for _, dir := range []string{"", "a", "a/b", "a/b/c", "a-b", "b", "b/a", "c", "nothere"} {
		var want, got, wantSub, gotSub []string
		pre := ""
		if dir != "" {
			pre = dir + "/"
		}
		for _, e := range b.entries {
			if rest, ok := strings.CutPrefix(e.path, pre); ok {
				if !strings.Contains(rest, "/") {
					want = append(want, e.path)
				}
				if dir != "" {
					wantSub = append(wantSub, e.path)
				}
			}
		}
		if err := b.childrenOf(dir, func(e *baseEntry) { got = append(got, e.path) }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("children of %q: %v, want %v", dir, got, want)
		}
		if dir == "" {
			continue
		}
		if err := b.subtreeOf(dir, func(e *baseEntry) { gotSub = append(gotSub, e.path) }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(gotSub, wantSub) {
			t.Errorf("subtree of %q: %v, want %v", dir, gotSub, wantSub)
		}
	}
}

// BenchmarkChildrenOfInMemory lists the root's ten children of a
// baseline read whole, each a folder of 10,000 entries.
func BenchmarkChildrenOfInMemory(b *testing.B) {
	var bl baseline
	for d := range 10 {
		bl.entries = append(bl.entries, baseEntry{path: "d" + itoa(d), kind: baseDir})
		for f := range 10000 {
			bl.entries = append(bl.entries, baseEntry{path: "d" + itoa(d) + "/f" + itoa(f), kind: baseFile})
		}
	}
	slices.SortFunc(bl.entries, func(x, y baseEntry) int { return strings.Compare(x.path, y.path) })
	b.ResetTimer()
	for range b.N {
		n := 0
		_ = bl.childrenOf("", func(*baseEntry) { n++ })
		if n != 10 {
			b.Fatalf("%d children", n)
		}
	}
}
