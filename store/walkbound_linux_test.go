package store

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A sweep never descends into a proc file system mounted in the project
// (a container's root file system under it); the project's own files
// around it are swept as ever.
func TestSweepSkipsPseudoFileSystems(t *testing.T) {
	root := t.TempDir()
	put(t, root, "a.txt", "a\n", 0o644)
	mnt := filepath.Join(root, "rootfs/proc")
	os.MkdirAll(mnt, 0o755)
	if err := syscall.Mount("proc", mnt, "proc", 0, ""); err != nil {
		t.Skip("cannot mount proc here:", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	s := openStore(t, root)
	res, err := s.SweepBefore("1", TurnMeta{}, "true")
	if err != nil {
		t.Fatal(err)
	}
	if res.Seen > 10 {
		t.Fatalf("the sweep saw %d entries: it went into proc", res.Seen)
	}
	for _, p := range baselinePaths(t, s) {
		if strings.HasPrefix(p, "rootfs/proc/") {
			t.Fatalf("the baseline holds %s", p)
		}
	}
}
