package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ckpt-dev/ckpt/store"
)

// R on a turn previews its revert against a real store: a file whose
// later change touches the turn's line is a conflict, its diff showing
// the markers; r switches to the rewind of the turn and R back; y applies
// the revert, which leaves the conflict as it is.
func TestRealRevertPreview(t *testing.T) {
	root := t.TempDir()
	s, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "one\ntwo\nthree\n")
	write("b.txt", "b\n")
	if _, err := s.Write("1", store.TurnMeta{Label: "first"}, filepath.Join(root, "a.txt"), []byte("ONE\ntwo\nthree\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("1", store.TurnMeta{Label: "first"}, filepath.Join(root, "b.txt"), []byte("B\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("2", store.TurnMeta{Label: "second"}, filepath.Join(root, "a.txt"), []byte("ONE!\ntwo\nthree\n")); err != nil {
		t.Fatal(err)
	}
	m := New(realStore{s}, Options{Poll: -1, NoWatch: true})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	drive(t, m, m.Init())
	press(t, m, kp("G"), kp("R"))
	if m.dlg == nil || m.dlg.kind != store.KindRevert || m.dlg.plan == nil {
		t.Fatalf("R opened no revert preview (status %q):\n%s", m.status, plain(m))
	}
	sc := plain(m)
	mustContain(t, sc, "Revert turn 1 alone", "conflict a.txt", "<<<<<<< now", ">>>>>>> before turn 1")
	press(t, m, kp("r"))
	if m.dlg.kind != store.KindRewind {
		t.Fatalf("r in the revert preview did not switch to the rewind:\n%s", plain(m))
	}
	mustContain(t, plain(m), "Rewind to before turn 1")
	press(t, m, kp("R"))
	if m.dlg.kind != store.KindRevert || m.dlg.plan == nil {
		t.Fatalf("R in the rewind preview did not switch to the revert:\n%s", plain(m))
	}
	press(t, m, kp("y"))
	if b, _ := os.ReadFile(filepath.Join(root, "b.txt")); string(b) != "b\n" {
		t.Errorf("b.txt after the revert: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "ONE!\ntwo\nthree\n" {
		t.Errorf("a.txt, in conflict, was changed: %q", b)
	}
	if !strings.Contains(plain(m), "conflict") {
		t.Errorf("the result does not say a.txt is in conflict:\n%s", plain(m))
	}
}
