package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// NewTurn steps over turn files it cannot read, but a store where every
// one fails makes it fail, naming the file, rather than spin under the
// lock until the hook's timeout.
func TestNewTurnGivesUpOnUnreadableTurnFiles(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	turns := filepath.Join(root, storeDir, "turns")
	for i := 1; i <= newTurnTries+8; i++ {
		if err := os.MkdirAll(filepath.Join(turns, fmt.Sprintf("%d.log", i)), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// seq says no turn was handed out, so NewTurn tries 1, 2, … in turn.
	seq := filepath.Join(root, storeDir, "seq")
	if err := os.WriteFile(seq, []byte("0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	id, err := s.NewTurn(TurnMeta{Label: "x"})
	if err == nil || !strings.Contains(err.Error(), "could not be read") || !strings.Contains(err.Error(), ".log") {
		t.Fatalf("NewTurn: %q, %v; want an error naming an unreadable turn file", id, err)
	}
	// A few unreadable ones are stepped over.
	for i := 5; i <= newTurnTries+8; i++ {
		os.Remove(filepath.Join(turns, fmt.Sprintf("%d.log", i)))
	}
	os.WriteFile(seq, []byte("0\n"), 0o600)
	if id, err := s.NewTurn(TurnMeta{Label: "y"}); err != nil || id != "5" {
		t.Fatalf("NewTurn past 4 unreadable files: %q, %v; want 5", id, err)
	}
}
