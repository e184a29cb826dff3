package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store"
)

// A hand edit on top of the agent's write stays marked after a rewind
// and its undo, on the real store: the files pane says so, and the turn
// keeps its badge.
func TestHandEditStaysMarkedAfterUndo(t *testing.T) {
	p, m := handEdited(t)
	mustContain(t, plain(m), "⚠1", "! app.js")

	press(t, m, keys("r", "y")...)
	press(t, m, keys("u", "y")...)
	press(t, m, kp("G")) // the turn
	drive(t, m, m.badges())
	if b, _ := os.ReadFile(p); string(b) != "v2 and a hand edit\n" {
		t.Fatalf("undo left %q", b)
	}
	s2 := plain(m)
	if !strings.Contains(s2, "! app.js") || !strings.Contains(s2, "⚠1") {
		t.Fatalf("after the rewind and its undo the hand edit is not marked:\n%s", s2)
	}
}

// handEdited is a model on the real store after turn 1 wrote app.js
// ("v1" to "v2") and a hand edit changed it since; p is its path.
func handEdited(t *testing.T) (p string, m *Model) {
	t.Helper()
	root := t.TempDir()
	s := openReal(t, root)
	p = filepath.Join(root, "app.js")
	if err := os.WriteFile(p, []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("1", store.TurnMeta{Label: "agent edit"}, p, []byte("v2\n")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("v2 and a hand edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, realModel(t, s, 120, 30)
}

// A rewind's preview says undo gives back a file changed since the agent
// (an undo's says redo: what takes that operation back).
func TestPreviewSaysWhatGivesItBack(t *testing.T) {
	_, m := handEdited(t)
	press(t, m, kp("r"))
	mustContain(t, plain(m), "kept first, so undo brings it back")
}

// A file the agent's hook captured and has not sealed, on the real store,
// is marked ~ (being written) in the files pane, not M, until the seal.
func TestCapturedUnsealedMarkedWriting(t *testing.T) {
	root := t.TempDir()
	s := openReal(t, root)
	p := filepath.Join(root, "app.js")
	if err := os.WriteFile(p, []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Capture("1", store.TurnMeta{Label: "agent edit"}, []string{p}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("v2, half\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := realModel(t, s, 120, 30)
	mustContain(t, plain(m), "~ app.js")
}
