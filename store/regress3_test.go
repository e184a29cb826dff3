package store

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRegressReadOnlyRestore(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "gen.txt", "G0")
	s, _ := Open(root, Options{Create: true})
	s.Capture("1", TurnMeta{}, []string{filepath.Join(root, "gen.txt")})
	os.WriteFile(filepath.Join(root, "gen.txt"), []byte("G1"), 0o644)
	os.Chmod(filepath.Join(root, "gen.txt"), 0o444)
	s.Seal("1", []string{filepath.Join(root, "gen.txt")})
	r := rewind(t, s, "1")
	if len(r.Failed) > 0 || rd(t, root, "gen.txt") != "G0" {
		t.Errorf("read-only file not restored: %+v now %q", r.Failed, rd(t, root, "gen.txt"))
	}
}
