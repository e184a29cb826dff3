package store

import (
	"os"
	"path/filepath"
	"testing"
)

// A rewind started while the shut-folders note still holds a folder an
// earlier operation opened and could not give its mode back (d, 0555,
// open at 0755): the rewind's own note carries d with the mode it had
// before it was opened, and the rewind's end gives it that mode, not the
// open one it finds, whether or not the rewind writes in d.
func TestLaterRewindGivesBackNotedFolder(t *testing.T) {
	cases := []struct {
		name string
		edit map[string]string // what the command writes
	}{
		{"writes in the folder", map[string]string{"d/f": "new\n", "n.txt": "n2\n"}},
		{"writes beside it", map[string]string{"n.txt": "n2\n"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := tempRoot(t)
			put(t, root, "d/f", "old\n", 0o644)
			put(t, root, "n.txt", "n\n", 0o644)
			t.Cleanup(func() { openUp(root) })
			s := openStore(t, root)
			turn, err := s.NewTurn(TurnMeta{Label: "cmd"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.SweepBefore(turn, TurnMeta{}, "cmd"); err != nil {
				t.Fatal(err)
			}
			for p, data := range tc.edit {
				put(t, root, p, data, 0o644)
			}
			if _, err := s.SweepAfter(turn, TurnMeta{}, "cmd"); err != nil {
				t.Fatal(err)
			}
			// An earlier rewind opened d, 0555, and could not give it back.
			d := filepath.Join(root, "d")
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := s.writeShutNote("op-0", []shutWay{{path: "d", mode: 0o555, back: true, tries: 1}}); err != nil {
				t.Fatal(err)
			}
			p := mustPlan(s.PlanRewind(string(turn)))
			opened, err := s.openShut("op-1", p.Steps, &failpoint{})
			if err != nil {
				t.Fatal(err)
			}
			n, err := s.readShutNote()
			if err != nil || n == nil || n.Op != "op-1" || len(n.Folders) != 1 || n.Folders[0] != (shutNoteEntry{Path: "d", Mode: 0o555, Back: true, Tries: 1}) {
				t.Fatalf("the rewind's own note: %+v, %v; want op-1 carrying d with mode 0555", n, err)
			}
			s.closeShut(opened) // as a rewind that ends before it is logged
			if m := mode(t, d); m != 0o555 {
				t.Fatalf("d is %v after the rewind ended, want 0555", m)
			}
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := s.writeShutNote("op-0", []shutWay{{path: "d", mode: 0o555, back: true, tries: 1}}); err != nil {
				t.Fatal(err)
			}
			if r := rewind(t, s, string(turn)); len(r.Failed) > 0 {
				t.Fatalf("rewind failed %v", r.Failed)
			}
			if m := mode(t, d); m != 0o555 {
				t.Errorf("d is %v after the rewind, want 0555", m)
			}
			if got := rd(t, root, "d/f") + rd(t, root, "n.txt"); got != "old\nn\n" {
				t.Errorf("d/f and n.txt hold %q after the rewind", got)
			}
			if s.hasShutNote() {
				t.Errorf("the shut-folders note is still there after the rewind gave d its mode back")
			}
		})
	}
}

func mode(t *testing.T, p string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}
