package watch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNotify: a change in a watched tree (a new subfolder's too) or dir
// signals; a quiet file's does not; the channel closes with ctx.
func TestNotify(t *testing.T) {
	tree, dir := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := Notify(ctx, 50*time.Millisecond, Targets{
		Trees: []string{tree}, Dirs: []string{dir},
		Quiet: func(p string) bool { return strings.HasSuffix(p, ".quiet") },
	})
	if err != nil {
		t.Fatal(err)
	}
	// drain takes the signals until none came for silence.
	drain := func(silence time.Duration) {
		for {
			select {
			case <-ch:
			case <-time.After(silence):
				return
			}
		}
	}
	signals := func(what string, change func()) {
		t.Helper()
		drain(200 * time.Millisecond)
		change()
		select {
		case <-ch:
		case <-time.After(time.Minute):
			t.Fatalf("%s: no signal", what)
		}
	}
	signals("a file in the tree", func() { write(t, filepath.Join(tree, "a"), "1") })
	signals("a new folder", func() {
		if err := os.Mkdir(filepath.Join(tree, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	})
	signals("a file in the new folder", func() { write(t, filepath.Join(tree, "sub", "b"), "2") })
	signals("a file in the dir", func() { write(t, filepath.Join(dir, "c"), "3") })

	// A signal for the write before, held up on a loaded machine, would
	// read as the quiet file's.
	drain(time.Second)
	write(t, filepath.Join(tree, "x.quiet"), "q")
	select {
	case <-ch:
		t.Errorf("a quiet file signalled")
	case <-time.After(300 * time.Millisecond):
	}
	cancel()
	for range ch {
	}
}

// TestNotifyNeedsAFolder: with nothing to watch, Notify says so.
func TestNotifyNeedsAFolder(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")
	if _, err := Notify(context.Background(), time.Second, Targets{Trees: []string{gone}}); err == nil {
		t.Fatal("Notify of a folder that does not exist: no error")
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
