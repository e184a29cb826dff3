package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store"
)

// On the real store: a rewind that cannot restore a file (a folder stands
// where it goes) shows it as failed with the reason, never as changed
// since the agent; r on the turn retries just it once the folder is gone.
func TestRealFailedPathAndRetry(t *testing.T) {
	root := t.TempDir()
	s := openReal(t, root)
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(name+" v1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Remove("1", store.TurnMeta{Label: "remove a"}, []string{filepath.Join(root, "a.txt")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("1", store.TurnMeta{Label: "remove a"}, filepath.Join(root, "b.txt"), []byte("b v2\n")); err != nil {
		t.Fatal(err)
	}
	// A folder where a.txt goes back: its restore fails.
	if err := os.MkdirAll(filepath.Join(root, "a.txt", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := realModel(t, s, 120, 30)
	press(t, m, keys("r", "y")...)
	mustContain(t, plain(m), "could not be put back", "a.txt —")
	press(t, m, kp("esc"), kp("G"))
	drive(t, m, m.refresh(true))
	sc := plain(m)
	mustContain(t, sc, "X a.txt", "failed")
	if strings.Contains(sc, "! a.txt") {
		t.Fatalf("the failed path shows as changed since the agent:\n%s", sc)
	}
	if err := os.RemoveAll(filepath.Join(root, "a.txt")); err != nil {
		t.Fatal(err)
	}
	press(t, m, kp("r"))
	if m.dlg == nil || m.dlg.plan == nil {
		t.Fatalf("no retry offered (status %q):\n%s", m.status, plain(m))
	}
	mustContain(t, plain(m), "Retry")
	press(t, m, kp("y"))
	if b, err := os.ReadFile(filepath.Join(root, "a.txt")); err != nil || string(b) != "a.txt v1\n" {
		t.Fatalf("the retry did not restore a.txt: %q %v", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "b.txt")); string(b) != "b.txt v1\n" {
		t.Fatalf("b.txt: %q", b)
	}
}
