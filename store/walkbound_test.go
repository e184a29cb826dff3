package store

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A tree past the walk's bounds fails the sweep with an error naming the
// folder, rather than run on until the hook's timeout.
func TestSweepBounded(t *testing.T) {
	root := t.TempDir()
	for i := range 40 {
		put(t, root, fmt.Sprintf("big/f%02d", i), "x", 0o644)
	}
	s := openStore(t, root)
	was := walkMaxEntries
	walkMaxEntries = 20
	defer func() { walkMaxEntries = was }()
	_, err := s.SweepBefore("1", TurnMeta{}, "true")
	if err == nil || !strings.Contains(err.Error(), filepath.Join(root, "big")) || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("sweep: %v; want an error naming %s", err, filepath.Join(root, "big"))
	}
}
