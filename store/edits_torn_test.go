package store

import (
	"syscall"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// A note cut short (a full disk, a crash) ends its own line: the note
// appended after it is read whole, not dropped with the torn one.
func TestEditNoteAfterATornOne(t *testing.T) {
	root := tempRoot(t)
	s := openStore(t, root)
	if err := s.ensureDirs(); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixNano()
	storefs.WriteFault = func(name string) error {
		if name == editsFile {
			return syscall.ENOSPC
		}
		return nil
	}
	s.noteEdits("1", []editNote{{Path: "torn.txt"}}, now, true)
	storefs.WriteFault = nil
	if e := s.loadEdits(now); len(e.notes) != 0 {
		t.Fatalf("the torn note was read: %+v", e.notes)
	}
	s.noteEdits("1", []editNote{{Path: "b.txt"}}, now, true)
	e := s.loadEdits(now)
	if len(e.notes) != 1 || e.notes[0].Path != "b.txt" {
		t.Fatalf("after a torn note, read %+v; want the note of b.txt", e.notes)
	}
	if !e.stale {
		t.Error("the torn line is not marked to go")
	}
}
