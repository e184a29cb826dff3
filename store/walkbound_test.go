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
	for i := range 400 {
		put(t, root, fmt.Sprintf("big/f%03d", i), "x", 0o644)
	}
	s := openStore(t, root)
	was := walkMaxEntries
	// Far above what the store's folder lists (its entries count, as it
	// may hold the project's own files), so only big crosses it.
	walkMaxEntries = 200
	defer func() { walkMaxEntries = was }()
	_, err := s.SweepBefore("1", TurnMeta{}, "true")
	if err == nil || !strings.Contains(err.Error(), filepath.Join(root, "big")) || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("sweep: %v; want an error naming %s", err, filepath.Join(root, "big"))
	}
}
