package store

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestUndoLeavesFoldersOfAFailedStep: a rewind's write into a missing
// folder failed, so the rewind made no folder; a later turn made that
// folder and left it empty. Undoing the rewind leaves the folder alone.
func TestUndoLeavesFoldersOfAFailedStep(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	wr(t, root, "d/e/c.sh", "C0")
	s := openStore(t, root)
	agentTurn(t, s, "1", map[string]string{"a.txt": "A1", "d/e/c.sh": ""})
	os.RemoveAll(filepath.Join(root, "d"))

	SetRestoreFault(s, func(p string) error {
		if p == "d/e/c.sh" {
			return syscall.ENOSPC
		}
		return nil
	})
	p, err := s.PlanRewind("1")
	r := apply(t, s, p, err)
	SetRestoreFault(s, nil)
	if len(r.Failed) != 1 || r.Failed[0].Path != "d/e/c.sh" || rd(t, root, "a.txt") != "A0" {
		t.Fatalf("rewind %+v", r)
	}
	if _, err := os.Lstat(filepath.Join(root, "d")); !os.IsNotExist(err) {
		t.Fatalf("d after the failed write: %v", err)
	}

	agentTurn(t, s, "2", map[string]string{"a.txt": "A2", "d/x.txt": "X"})
	agentTurn(t, s, "3", map[string]string{"d/x.txt": ""})

	u, err := s.PlanUndo(true)
	if r := apply(t, s, u, err); len(r.Failed) != 0 {
		t.Fatalf("undo %+v", r)
	}
	if rd(t, root, "a.txt") != "A1" {
		t.Fatalf("a.txt %q after the undo, want A1", rd(t, root, "a.txt"))
	}
	if fi, err := os.Lstat(filepath.Join(root, "d")); err != nil || !fi.IsDir() {
		t.Fatalf("d, made by turn 2, is gone after undoing the rewind: %v", err)
	}
}
