package ui

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store"
)

// R on a turn previews its revert against a real store: a file whose
// later change touches the turn's line is a conflict, its diff showing
// the markers; r switches to the rewind of the turn and R back; y applies
// the revert, which leaves the conflict as it is.
func TestRealRevertPreview(t *testing.T) {
	root := t.TempDir()
	s := openReal(t, root)
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
	m := realModel(t, s, 120, 30)
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
	// r retries the revert of what it left in conflict, not a rewind.
	press(t, m, kp("r"))
	if m.dlg == nil || m.dlg.kind != store.KindRevert || m.dlg.plan == nil || m.dlg.plan.Retry == "" {
		t.Fatalf("r after the revert did not open its retry:\n%s", plain(m))
	}
	mustContain(t, plain(m), "Retry the revert of turn 1", "conflict a.txt")
}

// TestRealRevertPreviewGit: the revert preview of a turn that ran git mv,
// git add and git commit says what it did to git and, since a later turn
// staged another file, that i would drop that; i and y put git's index
// back as before the turn, byte for byte.
func TestRealRevertPreviewGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_OPTIONAL_LOCKS=0",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for name, body := range map[string]string{"notes.txt": "notes\n", "c.txt": "c\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-qm", "init")
	s := openReal(t, root)
	index := func() []byte {
		b, err := os.ReadFile(filepath.Join(root, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	shell := func(turn string, run func()) {
		t.Helper()
		if _, err := s.SweepBefore(store.TurnID(turn), store.TurnMeta{Label: "turn " + turn}, "git"); err != nil {
			t.Fatal(err)
		}
		run()
		if _, err := s.SweepAfter(store.TurnID(turn), store.TurnMeta{}, "git"); err != nil {
			t.Fatal(err)
		}
	}
	before := index()
	shell("1", func() { git("mv", "notes.txt", "NOTES.md"); git("commit", "-qm", "agent") })
	shell("2", func() {
		if err := os.WriteFile(filepath.Join(root, "c.txt"), []byte("c2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "c.txt")
	})
	m := realModel(t, s, 160, 36)
	press(t, m, kp("G"), kp("R"))
	if m.dlg == nil || m.dlg.kind != store.KindRevert || m.dlg.plan == nil {
		t.Fatalf("R opened no revert preview (status %q):\n%s", m.status, plain(m))
	}
	mustContain(t, plain(m), "git during turn 1: HEAD moved", "1 commit", "the index changed",
		"i puts it back as before turn 1, dropping what was staged after it: c.txt")
	if !m.bindings().GitIndex.Enabled() {
		t.Fatal("i is not offered in the revert preview")
	}
	press(t, m, kp("i"))
	mustContain(t, plain(m), "git's index: put back as before turn 1", "this drops what was staged after it: c.txt")
	press(t, m, kp("y"))
	if got := index(); !bytes.Equal(got, before) {
		t.Fatal("the revert with i did not put back git's index byte for byte")
	}
	if b, err := os.ReadFile(filepath.Join(root, "notes.txt")); err != nil || string(b) != "notes\n" {
		t.Fatalf("notes.txt after the revert: %q %v", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "c.txt")); string(b) != "c2\n" {
		t.Fatalf("c.txt, turn 2's, after the revert: %q", b)
	}
}
