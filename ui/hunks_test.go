package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	s := openReal(t, root)
	if _, err := s.Write("1", store.TurnMeta{Label: "edit"}, abs, []byte(nowText)); err != nil {
		t.Fatal(err)
	}
	m := realModel(t, s, 140, 36)
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

// lineWith is the screen's first line holding every one of parts.
func lineWith(screen string, parts ...string) string {
	for _, l := range strings.Split(screen, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return l
		}
	}
	return ""
}

// TestRealRevertMergeRow: a revert's file whose later change is kept
// says merge in the preview, and a hunk of its merge can be kept there
// too, the row then counting it.
func TestRealRevertMergeRow(t *testing.T) {
	root := t.TempDir()
	var lines []string
	for i := 1; i <= 20; i++ {
		lines = append(lines, "line "+string(rune('a'+i)))
	}
	text := func(edit map[int]string) string {
		out := append([]string(nil), lines...)
		for i, l := range edit {
			out[i-1] = l
		}
		return strings.Join(out, "\n") + "\n"
	}
	abs := filepath.Join(root, "a.txt")
	if err := os.WriteFile(abs, []byte(text(nil)), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openReal(t, root)
	if _, err := s.Write("1", store.TurnMeta{Label: "one"}, abs, []byte(text(map[int]string{1: "ONE", 12: "TWELVE"}))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("2", store.TurnMeta{Label: "two"}, abs, []byte(text(map[int]string{1: "ONE", 12: "TWELVE", 20: "TWENTY"}))); err != nil {
		t.Fatal(err)
	}
	m := realModel(t, s, 140, 36)
	press(t, m, kp("G"), kp("R"))
	if m.dlg == nil || m.dlg.kind != store.KindRevert || m.dlg.plan == nil {
		t.Fatalf("R opened no revert preview:\n%s", plain(m))
	}
	if l := lineWith(plain(m), "merge", "a.txt", "later changes kept"); l == "" {
		t.Fatalf("the merged file's row does not say merge:\n%s", plain(m))
	}
	press(t, m, kp("tab"), kp("n"), kp("space"))
	if l := lineWith(plain(m), "restore", "a.txt", "1 hunk kept as now"); l == "" {
		t.Fatalf("the row does not count the kept hunk:\n%s", plain(m))
	}
	press(t, m, kp("y"))
	if b, _ := os.ReadFile(abs); string(b) != text(map[int]string{12: "TWELVE", 20: "TWENTY"}) {
		t.Fatalf("after the revert keeping the hunk of line 12:\n%s", b)
	}
}
