package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ckpt-dev/ckpt/store"
)

// TestRealKeepHunk: in a rewind's preview, tab moves the focus into the
// diff, n goes to the next hunk and space keeps it as it is now: the diff
// shows it kept, the plan (and its id) covers it, y writes the pre-image
// with that hunk of the disk in place, byte for byte (CRLF, no final
// newline), and u gives back the file exactly.
func TestRealKeepHunk(t *testing.T) {
	root := t.TempDir()
	var pre, now []string
	for i := 1; i <= 14; i++ {
		l := "line " + string(rune('a'+i))
		pre = append(pre, l)
		switch i {
		case 2:
			now = append(now, "LINE TWO")
		case 14:
			now = append(now, "LAST LINE", "and one more")
		default:
			now = append(now, l)
		}
	}
	preText, nowText := strings.Join(pre, "\r\n"), strings.Join(now, "\r\n") // no final newline
	abs := filepath.Join(root, "a.txt")
	if err := os.WriteFile(abs, []byte(preText), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Write("1", store.TurnMeta{Label: "edit"}, abs, []byte(nowText)); err != nil {
		t.Fatal(err)
	}
	m := New(realStore{s}, Options{Poll: -1, NoWatch: true})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 36})
	drive(t, m, m.Init())
	press(t, m, kp("r"))
	if m.dlg == nil || m.dlg.plan == nil {
		t.Fatalf("r opened no preview:\n%s", plain(m))
	}
	if !m.bindings().DiffFocus.Enabled() || m.bindings().KeepHunk.Enabled() {
		t.Fatal("tab is not offered, or space keeps a hunk with the focus on the files")
	}
	before := m.dlg.plan.ID
	press(t, m, kp("tab"))
	if !m.dlg.focusDiff || !m.bindings().KeepHunk.Enabled() || m.bindings().Keep.Enabled() {
		t.Fatalf("tab did not move the focus into the diff:\n%s", plain(m))
	}
	mustContain(t, plain(m), "space keeps the hunk as it is now")
	press(t, m, kp("n"), kp("space"))
	sc := plain(m)
	mustContain(t, sc, "kept as it is now", "1 hunk kept as now", "k LAST LINE", "k and one more")
	if strings.Contains(sc, "The plan changed while it was open") {
		t.Fatalf("keeping a hunk is said to be a change nobody asked for:\n%s", sc)
	}
	if m.dlg.plan.ID == before || len(m.dlg.plan.KeepHunks) != 1 {
		t.Fatalf("the plan does not cover the kept hunk (id %s, was %s): %+v", m.dlg.plan.ID, before, m.dlg.plan.KeepHunks)
	}
	if strings.Contains(sc, "+ line o") {
		t.Fatalf("the kept hunk still shows the line it would rewind:\n%s", sc)
	}
	press(t, m, kp("tab"))
	if m.dlg.focusDiff {
		t.Fatal("tab did not take the focus back to the files")
	}
	press(t, m, kp("y"))
	want := strings.Join(append(append([]string(nil), pre[:13]...), "LAST LINE", "and one more"), "\r\n")
	if b, _ := os.ReadFile(abs); string(b) != want {
		t.Fatalf("after the rewind keeping the last hunk:\n%q\nwant\n%q", b, want)
	}
	press(t, m, kp("u"))
	if m.dlg != nil {
		press(t, m, kp("y"))
	}
	if b, _ := os.ReadFile(abs); string(b) != nowText {
		t.Fatalf("undo: %q, want %q", b, nowText)
	}
}
