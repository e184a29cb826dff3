package store

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestNewerTurnByWriteTime(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	wr(t, root, "x.txt", "X0")
	s, _ := Open(root, Options{Create: true})
	s.Write("old", TurnMeta{}, filepath.Join(root, "x.txt"), []byte("X1")) // older session's turn, stays active
	s.Write("1", TurnMeta{}, filepath.Join(root, "a.txt"), []byte("A1"))
	rewind(t, s, "1")                                                                  // a -> A0
	s.Write("old", TurnMeta{}, filepath.Join(root, "a.txt"), []byte("A-after-rewind")) // older turn writes a after the rewind
	_, err := s.PlanUndo(false)
	if err == nil || !strings.Contains(err.Error(), "old") {
		t.Errorf("undo not refused though turn old wrote a.txt after the rewind: %v", err)
	}
}
