package watch

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// TestPidFileSeenWhole: a reader that finds the pid file finds the
// process's id in it, never a file made and not yet written.
func TestPidFileSeenWhole(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, pidName)
	var done atomic.Bool
	bad := make(chan string, 1)
	go func() {
		for !done.Load() {
			b, err := os.ReadFile(name)
			if err == nil && len(strings.Fields(string(b))) != 2 {
				select {
				case bad <- string(b):
				default:
				}
				return
			}
		}
	}()
	for range 3000 {
		if err := writePid(dir, "serve"); err != nil {
			t.Fatal(err)
		}
		os.Remove(name)
	}
	done.Store(true)
	select {
	case b := <-bad:
		t.Fatalf("the pid file was read as %q", b)
	default:
	}
	if err := writePid(dir, "record"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); string(b) != strconv.Itoa(os.Getpid())+" record\n" {
		t.Fatalf("the pid file holds %q", b)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Fatalf("the store folder holds %d entries, want only the pid file", len(es))
	}
}
