package store

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A command of megabytes (a heredoc) is kept whole in the baseline's
// head, which must read back: a head refused as damaged lost the
// baseline, and with it every change the command made (the sweep after
// it found nothing changed).
func TestSweepAfterAHugeCommand(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "a.txt", "a\n", 0o644)
	s := openStore(t, root)
	cmd := longCommand(2 << 20)
	turn, _ := s.NewTurn(TurnMeta{})
	if _, err := s.SweepBefore(turn, TurnMeta{}, cmd); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := s.SweepAfter(turn, TurnMeta{}, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Changed, []string{"a.txt"}) {
		t.Fatalf("the sweep after a command of %d bytes found %v changed, want a.txt", len(cmd), res.Changed)
	}
	if got, c := s.SweptTurn(); got != turn || c != cmd {
		t.Fatalf("swept turn %q, a command of %d bytes; want %q and the whole %d", got, len(c), turn, len(cmd))
	}
	if b, _ := os.ReadFile(filepath.Join(root, storeDir, "errors.log")); len(b) > 0 {
		t.Fatalf("errors.log: %s", b)
	}
}
