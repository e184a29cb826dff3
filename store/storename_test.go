package store

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// On a file system that does not fold case, .OSFoundry is a project
// folder like any other: swept, captured and rewound. Only the store's
// exact name (or, where case folds, the same folder) is left out.
func TestStoreNameMatchedExactly(t *testing.T) {
	root := tempRoot(t)
	put(t, root, ".OSFoundry/plan.md", "plan\n", 0o644)
	s := openStore(t, root)
	if foldsCase(root) {
		t.Skip("this file system folds case: .OSFoundry is the store here")
	}
	turn, _ := s.NewTurn(TurnMeta{})
	if _, err := s.SweepBefore(turn, TurnMeta{}, "rm"); err != nil {
		t.Fatal(err)
	}
	before := tree(t, root)
	os.RemoveAll(filepath.Join(root, ".OSFoundry"))
	res, err := s.SweepAfter(turn, TurnMeta{}, "rm -rf .OSFoundry")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Changed, []string{".OSFoundry/plan.md"}) {
		t.Fatalf("sweep recorded %v, want .OSFoundry/plan.md", res.Changed)
	}
	rewind(t, s, string(turn))
	sameTree(t, "after the rewind", before, tree(t, root))
	// A hook's write there is the project's, not the store's.
	if _, err := s.Capture("2", TurnMeta{}, []string{filepath.Join(root, ".OSFoundry/new.md")}); err != nil {
		t.Fatalf("capture under .OSFoundry: %v", err)
	}
	if _, err := s.Rel(".osfoundry/checkpoints/lock"); err == nil {
		t.Fatal("the store itself was not refused")
	}
}

// A path naming ROOT/link/../x, with link -> a/b, is where the kernel
// writes: a/x, not x.
func TestRelDotDotAfterALink(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "a/b/in.txt", "in\n", 0o644)
	if err := os.Symlink("a/b", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, root)
	for in, want := range map[string]string{
		filepath.Join(root, "link") + "/../x": "a/x",
		"link/../x":                           "a/x",
		"link/../../x":                        "x",
		"a/../x":                              "x",
		"link/./in.txt":                       "a/b/in.txt",
	} {
		if got, err := s.Rel(in); err != nil || got != want {
			t.Errorf("Rel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := s.Rel("link/../../../x"); err == nil {
		t.Error("a path out of the root through a link and .. was not refused")
	}
}
