package store

import (
	"strings"
	"testing"
)

// TestEmptiedByDeepTree: a folder 300 folders deep counts as emptied
// when the operation deletes the one file at its bottom and removes every
// folder on the way, and not when a file it does not delete is left at
// any depth.
func TestEmptiedByDeepTree(t *testing.T) {
	root := tempRoot(t)
	s := openStore(t, root)
	const depth = 300
	var dirs []string
	p := "top"
	for i := range depth {
		if i > 0 {
			p += "/d"
		}
		dirs = append(dirs, p)
	}
	bottom := p + "/f.txt"
	wr(t, root, bottom, "x\n")
	wr(t, root, dirs[depth/2]+"/hand.txt", "made by hand\n")
	gone := map[string]bool{}
	for _, d := range dirs {
		gone[d] = true
	}
	for _, c := range []struct {
		name    string
		deletes []string
		want    bool
	}{
		{"a file made by hand halfway down", []string{bottom}, false},
		{"everything deleted", []string{bottom, dirs[depth/2] + "/hand.txt"}, true},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			deletes := map[string]bool{}
			for _, d := range c.deletes {
				deletes[d] = true
			}
			dc := newDirCache(s)
			defer dc.close()
			if got := s.emptiedBy("top", deletes, gone, dc); got != c.want {
				t.Fatalf("emptiedBy: %v, want %v", got, c.want)
			}
		})
	}
	delete(gone, dirs[depth-1])
	dc := newDirCache(s)
	defer dc.close()
	if s.emptiedBy("top", map[string]bool{bottom: true, dirs[depth/2] + "/hand.txt": true}, gone, dc) {
		t.Fatal("emptiedBy: a folder the operation does not remove counted as emptied")
	}
}

// BenchmarkEmptiedByDeep asks whether a folder 300 folders deep is
// emptied, as a plan does for a folder standing where a file is to be
// put back.
func BenchmarkEmptiedByDeep(b *testing.B) {
	root := tempRoot(b)
	s, err := Open(root, Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	gone := map[string]bool{}
	p := "top"
	for i := range 300 {
		if i > 0 {
			p += "/d"
		}
		gone[p] = true
	}
	wr(b, root, p+"/f.txt", "x\n")
	deletes := map[string]bool{p + "/f.txt": true}
	for b.Loop() {
		dc := newDirCache(s)
		if !s.emptiedBy("top", deletes, gone, dc) {
			b.Fatal("not emptied")
		}
		dc.close()
	}
}
