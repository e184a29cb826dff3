package store

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Two agents in one folder: A's command is still running when B's shell
// call sweeps. B's sweep must not take A's write for a hand edit; what
// changes while both commands run is owned by neither alone and goes to
// both turns, marked shared; rewinding both gives the folder before them.
func TestSweepTwoSessions(t *testing.T) {
	root, s, a, b, before := twoRunning(t)
	res, err := s.SweepBefore(b, TurnMeta{}, "sed -i y.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Others, []string{string(a)}) || !slices.Equal(res.Changed, []string{"x.txt"}) {
		t.Fatalf("B's sweep before: %+v; want x.txt given to A's turn %s", res, a)
	}
	put(t, root, "y.txt", "y by B\n", 0o644)
	put(t, root, "z.txt", "z by A\n", 0o644)
	res, err = s.SweepAfter(a, TurnMeta{}, "make gen")
	if err != nil {
		t.Fatal(err)
	}
	if res.Turn != a || !slices.Equal(res.Others, []string{string(b)}) || !slices.Equal(res.Changed, []string{"y.txt", "z.txt"}) {
		t.Fatalf("A's sweep after: %+v; want y.txt and z.txt in %s and %s", res, a, b)
	}
	res, err = s.SweepAfter(b, TurnMeta{}, "sed -i y.txt")
	if err != nil || len(res.Changed) != 0 || len(res.Others) != 0 {
		t.Fatalf("B's sweep after: %+v, %v; want nothing left", res, err)
	}
	check := func(turn string, want map[string][]string) {
		t.Helper()
		files, err := s.Files(turn, false)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]string{}
		for _, f := range files {
			got[f.Path] = f.Shared
			if f.Pre.Kind != ImageContent {
				t.Errorf("turn %s, %s: pre %v", turn, f.Path, f.Pre.Kind)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("turn %s holds %v, want %v", turn, got, want)
		}
		for p, sh := range want {
			if g, ok := got[p]; !ok || !slices.Equal(g, sh) {
				t.Errorf("turn %s, %s: shared with %v, want %v", turn, p, g, sh)
			}
		}
	}
	check(string(a), map[string][]string{"x.txt": nil, "y.txt": {string(b)}, "z.txt": {string(b)}})
	check(string(b), map[string][]string{"y.txt": {string(a)}, "z.txt": {string(a)}})
	rewind(t, s, string(a))
	sameTree(t, "after rewinding both sessions' turns", before, tree(t, root))
	if _, err := os.Stat(filepath.Join(root, storeDir, openFile)); err == nil {
		t.Error("open.json still lists a command after every closing sweep")
	}
}
