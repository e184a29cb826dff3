package store

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func rd(t *testing.T, root, p string) string {
	b, err := os.ReadFile(filepath.Join(root, p))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}
func wr(t testing.TB, root, p, s string) {
	os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
	if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
func rewind(t *testing.T, s *Store, id string) *Result {
	p, err := s.PlanRewind(id)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Apply(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// stripLastDone removes the final "done" line of ops.log: the state a kill
// between the op record and the done record leaves.
func stripLastDone(t *testing.T, root string) {
	f := filepath.Join(root, storeDir, "ops.log")
	b, _ := os.ReadFile(f)
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines = lines[:len(lines)-1] // trailing empty
	last := lines[len(lines)-1]
	if !bytes.Contains(last, []byte(`"r":"done"`)) {
		t.Fatalf("last line not done: %s", last)
	}
	os.WriteFile(f, bytes.Join(lines[:len(lines)-1], nil), 0o600)
}
