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
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	put(t, root, ".OSFoundry/plan.md", "plan\n", 0o644)
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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
	rewind(t, s, turn)
	sameTree(t, "after the rewind", before, tree(t, root))
	// A hook's write there is the project's, not the store's.
	if _, err := s.Capture("2", TurnMeta{}, []string{filepath.Join(root, ".OSFoundry/new.md")}); err != nil {
		t.Fatalf("capture under .OSFoundry: %v", err)
	}
	if _, err := s.Rel(".osfoundry/checkpoints/lock"); err == nil {
		t.Fatal("the store itself was not refused")
	}
}
