package store

import (
	"slices"
	"testing"
)

// Git's other exclude sources are not read, by choice (see README): a
// folder excluded only in .git/info/exclude is swept, so a command's
// write there is recorded, never lost.
func TestSweepReadsNoGitExcludeFile(t *testing.T) {
	root := t.TempDir()
	put(t, root, ".git/info/exclude", "local/\n", 0o644)
	put(t, root, "local/x.txt", "x\n", 0o644)
	s := openStore(t, root)
	if _, err := s.SweepBefore("1", TurnMeta{}, "true"); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(baselinePaths(t, s), "local/x.txt") {
		t.Fatalf("local/x.txt, excluded only in .git/info/exclude, was not swept: %v", baselinePaths(t, s))
	}
}
