//go:build linux

package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// caseSensitiveRoot is a project folder with a store, on a file system
// that does not fold case (the test is skipped where it does).
func caseSensitiveRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, ".osfoundry"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(root, ".OSFOUNDRY")); err == nil {
		t.Skip("the file system folds case")
	}
	return root
}

// TestWatchRecordsOtherSpellingsOfTheStore: on a case-sensitive file
// system .OSFoundry is a project folder like any other, its checkpoints
// and hooks folders too, and so is .osfoundry/Hooks beside the store's
// own entries: as a sweep does, the watcher watches them, and a change
// in them is recorded in a turn.
func TestWatchRecordsOtherSpellingsOfTheStore(t *testing.T) {
	root := caseSensitiveRoot(t)
	mine := []string{".OSFoundry/checkpoints/x", ".OSFoundry/hooks/x", ".OSFoundry/notes/x", ".osfoundry/Hooks/x"}
	for _, rel := range mine {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	feed := &swapFeed{}
	s, err := store.Open(root, store.Options{Create: true, Feed: feed})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Past the time a sweep looks again at what changed just before it
	// (coarse timestamps), only the watcher can tell it of the writes.
	time.Sleep(2100 * time.Millisecond)
	feed.t = openTree(t, root)
	defer feed.t.Close()
	rec := &Recorder{Store: s, Tree: feed.t}
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() { done <- rec.Run(ctx, func() { close(ready) }) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("the recorder stopped before it was ready: %v", err)
	}
	for _, rel := range mine {
		write(t, filepath.Join(root, rel), "new\n")
	}
	// Run records what is pending when it stops, after its sweep has
	// asked the tree, which first waits for every event before the
	// question: what the tree saw is in the turn.
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	log, err := s.Log(false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log {
		files, err := s.Files(e.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			got = append(got, f.Path)
		}
	}
	for _, rel := range mine {
		if !slices.Contains(got, rel) {
			t.Errorf("%s is in no turn; the turns hold %v", rel, got)
		}
	}
}
