package store

import (
	"os"
	"path/filepath"
	"testing"
)

// A file a turn created whose mode a later change set (chmod +x) is a
// conflict for the turn's revert, as any change since to a file it
// created: deleting it would drop that change without a word.
func TestRevertKeepsACreatedFileWhoseModeChangedSince(t *testing.T) {
	root := tempRoot(t)
	s := openStore(t, root)
	if _, err := s.Capture("1", TurnMeta{}, []string{"z.sh"}); err != nil {
		t.Fatal(err)
	}
	put(t, root, "z.sh", "echo z\n", 0o644)
	if err := s.Seal("1", []string{"z.sh"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "z.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := s.PlanRevert("1", RevertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 1 || p.Steps[0].Do != ActFail {
		t.Fatalf("revert plan %+v; want z.sh in conflict", p.Steps)
	}
	if _, err := s.Apply(p, nil); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(root, "z.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("after the revert z.sh: %v %v; want it left as it is, mode 755", fi, err)
	}
}
