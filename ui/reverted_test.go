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
		"M b.txt", "A c.txt", "the agent: created · reverted", "the agent's write",
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

// On a real store, at 80×24 and 120×36: a revert that meets a conflict
// says why in the preview's diff (the files pane has no room for it),
// its diff is the markers, not "after the revert"; y leaves the file,
// the result offers r as a retry, not a rewind; and the turn, reverted in
// part, shows the file in conflict as failed and the others as what the
// agent did, reverted.
func TestRealRevertConflictEverySize(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 36}} {
		root := t.TempDir()
		s, err := store.Open(root, store.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		conflictTurn(t, s, root, "read the port and keys from the config file")
		m := realModel(t, s, size[0], size[1])
		press(t, m, kp("R"))
		if m.dlg == nil || m.dlg.plan == nil {
			t.Fatalf("%v: R opened no revert preview:\n%s", size, plain(m))
		}
		for i, r := range m.dlg.rows {
			if r.step.Path == "server.js" {
				m.dlg.cur.cur = i
			}
		}
		drive(t, m, m.dlg.loadDiff(false))
		sc := plain(m)
		mustContain(t, sc, "server.js · disk now → with conflict markers", "conflict: line", "y leaves it",
			"<<<<<<< now", ">>>>>>> before turn 1")
		checkFits(t, m, sc)
		press(t, m, kp("y"))
		mustContain(t, plain(m), "r retry what failed")
		if b, _ := os.ReadFile(filepath.Join(root, "server.js")); string(b) != "one\ntwo\nlisten(config.port, host)\n" {
			t.Fatalf("%v: the file in conflict was changed: %q", size, b)
		}
		press(t, m, kp("esc"), kp("tab"))
		if f := m.selectedFile(); f == nil || f.Path != "server.js" {
			t.Fatalf("%v: the files' cursor is on %+v, want server.js", size, f)
		}
		sc = plain(m)
		mustContain(t, sc, "reverted in part by op-1", "X server.js", "failed: conflict: line 3", "M env")
		for _, l := range strings.Split(sc, "\n") {
			if strings.Contains(l, " env ") && !strings.Contains(l, "reverted") {
				t.Fatalf("%v: a file the revert took out does not say so: %q\n%s", size, l, sc)
			}
		}
		checkFits(t, m, sc)
		s.Close()
	}
}

// conflictTurn is turn 1 on s, labelled label, which changed server.js
// and env in root; server.js is changed since on the turn's line, so a
// revert of the turn meets a conflict there.
func conflictTurn(t *testing.T, s *store.Store, root, label string) {
	t.Helper()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("server.js", "one\ntwo\nlisten(PORT)\n")
	write("env", "PORT=8080\n")
	for _, w := range [][2]string{{"server.js", "one\ntwo\nlisten(config.port)\n"}, {"env", "PORT=3000\n"}} {
		if _, err := s.Write("1", store.TurnMeta{Label: label}, filepath.Join(root, w[0]), []byte(w[1])); err != nil {
			t.Fatal(err)
		}
	}
	write("server.js", "one\ntwo\nlisten(config.port, host)\n")
}

// checkFits fails unless the screen is exactly the model's size, every
// line its width, and the footer ends with ? help and a way out.
func checkFits(t *testing.T, m *Model, sc string) {
	t.Helper()
	lines := strings.Split(sc, "\n")
	if len(lines) != m.height {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), m.height, sc)
	}
	for i, l := range lines {
		if w := ansiWidth(l); w != m.width {
			t.Fatalf("line %d is %d wide, want %d: %q", i, w, m.width, l)
		}
	}
	foot := strings.TrimRight(lines[len(lines)-1], " ")
	if !strings.Contains(foot, "? help") || !(strings.HasSuffix(foot, "q quit") || strings.HasSuffix(foot, "close")) {
		t.Fatalf("the footer lacks ? help or a way out: %q", foot)
	}
}

// On a real store: a revert that left a file in conflict, undone and
// redone, is still a revert in part: the redo puts back what the revert
// took out and leaves the file in conflict as it was, so the turn is not
// "reverted" and its row says it was reverted in part.
func TestRealRevertConflictUndoRedo(t *testing.T) {
	root := t.TempDir()
	s := openReal(t, root)
	conflictTurn(t, s, root, "read the port")
	m := realModel(t, s, 120, 36)
	turnRow := func() string {
		for _, l := range strings.Split(plain(m), "\n") {
			if strings.Contains(l, "read the port") {
				l, _, _ = strings.Cut(l, "│")
				return l
			}
		}
		t.Fatalf("no row for turn 1:\n%s", plain(m))
		return ""
	}
	press(t, m, kp("R"))
	mustContain(t, plain(m), "2 files: 1 to restore, 1 in conflict, left as it is")
	press(t, m, kp("y"), kp("esc"))
	if e := m.selected(); e == nil || e.State != store.StateActive || !strings.Contains(turnRow(), "reverted in part") {
		t.Fatalf("after a revert with a conflict turn 1 is %+v, row %q", e, turnRow())
	}
	// The undo and the redo say they act on the revert, not a rewind.
	press(t, m, kp("u"))
	mustContain(t, plain(m), "Undo op-1, the revert of turn 1", "Puts back the changes of 1 turn: 1")
	press(t, m, kp("y"), kp("esc"))
	press(t, m, kp("ctrl+r"))
	sc := plain(m)
	mustContain(t, sc, "Redo op-1, the revert of turn 1", "Takes out again, keeping every later change, 1 turn: 1")
	if strings.Contains(sc, "Undoes") || strings.Contains(sc, "Brings back") {
		t.Fatalf("the redo of a revert reads as a rewind's:\n%s", sc)
	}
	press(t, m, kp("y"), kp("esc"))
	if b, _ := os.ReadFile(filepath.Join(root, "server.js")); string(b) != "one\ntwo\nlisten(config.port, host)\n" {
		t.Fatalf("the file in conflict was changed: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "env")); string(b) != "PORT=8080\n" {
		t.Fatalf("the redo did not take env's change out again: %q", b)
	}
	press(t, m, kp("G"))
	e := m.selected()
	if e == nil || e.ID != "1" {
		t.Fatalf("the cursor is on %+v, want turn 1", e)
	}
	row := turnRow()
	if e.State == store.StateReverted || !strings.Contains(row, "reverted in part") {
		t.Fatalf("after undo and redo turn 1 is %s, its row %q; server.js was never taken out:\n%s", e.State, row, plain(m))
	}
	mustContain(t, plain(m), "reverted in part by op-3")
	// R retries the file the revert left, as it did before the undo.
	press(t, m, kp("R"))
	mustContain(t, plain(m), "Retry the revert of turn 1", "Retries 1 file op-3 could not take out", "server.js")
}
