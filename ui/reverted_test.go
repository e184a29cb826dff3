package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ckpt-dev/ckpt/store"
)

// On a real store: a reverted turn's changes are out of the folder, so
// its files show what the agent did and that it was reverted (a file a
// later turn changed too, that its later change was kept), and its diff
// is the agent's write, not "kept → disk now · no changes". The revert's
// row offers u, and u brings the turn back as it was.
func TestRealRevertedTurnShowsTheAgent(t *testing.T) {
	root := t.TempDir()
	s, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	write := func(turn, name, before, after string) {
		t.Helper()
		if before != "" {
			if err := os.WriteFile(filepath.Join(root, name), []byte(before), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Write(store.TurnID(turn), store.TurnMeta{Label: "turn " + turn}, filepath.Join(root, name), []byte(after)); err != nil {
			t.Fatal(err)
		}
	}
	write("1", "a.txt", "one\ntwo\nthree\nfour\nfive\n", "ONE\ntwo\nthree\nfour\nfive\n")
	write("1", "b.txt", "b\n", "B\n")
	write("1", "c.txt", "", "new\n")
	write("2", "a.txt", "", "ONE\ntwo\nthree\nfour\nFIVE\n")
	m := New(realStore{s}, Options{Poll: -1, NoWatch: true})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	drive(t, m, m.Init())
	press(t, m, kp("G"), kp("R"))
	if m.dlg == nil || m.dlg.kind != store.KindRevert || m.dlg.plan == nil {
		t.Fatalf("R opened no revert preview (status %q):\n%s", m.status, plain(m))
	}
	press(t, m, kp("y"))
	if e := m.selected(); e == nil || e.ID != "1" || e.State != store.StateReverted {
		t.Fatalf("the cursor is not on turn 1, reverted: %+v\n%s", e, plain(m))
	}
	sc := plain(m)
	mustContain(t, sc, "Files of turn 1 (3) · reverted by op-1", "reverted, merged",
		"M b.txt", "A c.txt", "the agent: created · reverted", "the agent's write (kept → agent)",
		"reverted by op-1: what the agent did (v: the disk now)", "+ ONE", "op-1 ⤺ reverted turn 1 · 3 files — u to undo")
	for _, bad := range []string{"unchanged", "no changes", "kept → disk now"} {
		if strings.Contains(sc, bad) {
			t.Fatalf("a reverted turn reads %q:\n%s", bad, sc)
		}
	}
	press(t, m, kp("tab"), kp("G"))
	mustContain(t, plain(m), "c.txt · the agent's write", "+ new")
	// The revert's own row says what it did.
	press(t, m, kp("tab"), kp("tab"), kp("g"))
	mustContain(t, plain(m), "turns reverted: 1")
	// u undoes the revert: turn 1 is in effect again, its diff the disk.
	press(t, m, kp("u"), kp("y"), kp("G"))
	if e := m.selected(); e == nil || e.ID != "1" || e.State != store.StateActive {
		t.Fatalf("after u turn 1 is not active: %+v\n%s", e, plain(m))
	}
	sc = plain(m)
	mustContain(t, sc, "kept → disk now")
	if strings.Contains(sc, "reverted by") {
		t.Fatalf("turn 1, back in effect, still says it was reverted:\n%s", sc)
	}
}
