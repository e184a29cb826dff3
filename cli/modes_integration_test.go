package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Folders whose mode shuts their owner out (0500: no writing) come back
// with that mode and the files they held, run as a user the bits apply
// to: each folder is made open, filled, and given its mode last, the
// deepest first; its undo opens them to delete what is in them. Before,
// a rewind made d 0500 and then could not write d/e/f into it, and the
// undo could not delete d/e/f.
func TestShutFoldersComeBack(t *testing.T) {
	p := newPermProject(t)
	writeTexts(t, p.root, map[string]string{"d/e/f": "f\n", "n.txt": "n\n"})
	p.own(t)
	for _, name := range []string{"d/e", "d"} {
		if err := os.Chmod(filepath.Join(p.root, name), 0o500); err != nil {
			t.Fatal(err)
		}
	}
	if r := p.run(t, "exec", "--turn", "0", "--", "true"); r.Code != 0 {
		t.Fatalf("first sweep\n%s", r)
	}
	r := p.run(t, "exec", "--turn", "1", "--", "sh", "-c", "chmod -R u+w d && rm -r d && echo n2 > n.txt")
	if r.Code != 0 {
		t.Fatalf("exec\n%s", r)
	}
	if r := p.run(t, "rewind", "1", "--yes"); r.Code != 0 {
		t.Fatalf("rewind\n%s", r)
	}
	for _, name := range []string{"d", "d/e"} {
		if m := p.mode(t, name); m != 0o500 {
			t.Errorf("%s is %v after the rewind, want 0500", name, m)
		}
	}
	if got := readText(t, p.root, "d/e/f"); got != "f\n" {
		t.Errorf("d/e/f holds %q after the rewind", got)
	}
	if r := p.run(t, "undo", "--yes"); r.Code != 0 {
		t.Fatalf("undo\n%s", r)
	}
	if _, err := os.Lstat(filepath.Join(p.root, "d")); !os.IsNotExist(err) {
		t.Errorf("d after the undo: %v, want it gone", err)
	}
}

// A command that edits files in a folder and then shuts it (no listing
// by its owner): the sweep records the folder's mode and the files the
// last sweep knew in it with what they held, so the rewind opens the
// folder, keeps what the files hold, puts their bytes back and gives the
// folder its mode; the undo gives back the command's bytes and mode.
// Before, the sweep said the folder's changes were not recorded and the
// rewind left d/f with the command's bytes, exit 0.
func TestFolderShutAfterEdits(t *testing.T) {
	for _, shut := range []os.FileMode{0, 0o300} {
		t.Run(fmt.Sprintf("%03o", shut), func(t *testing.T) {
			p := newPermProject(t)
			writeTexts(t, p.root, map[string]string{"d/f": "old\n", "d/sub/g": "g\n", "n.txt": "n\n"})
			p.own(t)
			if r := p.run(t, "exec", "--turn", "0", "--", "true"); r.Code != 0 {
				t.Fatalf("first sweep\n%s", r)
			}
			cmd := fmt.Sprintf("echo new > d/f && echo made > d/made && chmod %o d", shut)
			r := p.run(t, "exec", "--turn", "1", "--", "sh", "-c", cmd)
			if r.Code != 0 {
				t.Fatalf("exec\n%s", r)
			}
			wantSubstrings(t, "the sweep's stderr", r.Stderr, "d: could not be listed after the command", "not what the command made in it")
			if r := p.run(t, "rewind", "1", "--yes"); r.Code != 0 {
				t.Fatalf("rewind\n%s", r)
			}
			if m := p.mode(t, "d"); m != 0o755 {
				t.Errorf("d is %v after the rewind, want 0755", m)
			}
			if got := readText(t, p.root, "d/f"); got != "old\n" {
				t.Errorf("d/f holds %q after the rewind", got)
			}
			if got := readText(t, p.root, "d/sub/g"); got != "g\n" {
				t.Errorf("d/sub/g holds %q after the rewind", got)
			}
			if r := p.run(t, "undo", "--yes"); r.Code != 0 {
				t.Fatalf("undo\n%s", r)
			}
			if m := p.mode(t, "d"); m != shut {
				t.Errorf("d is %v after the undo, want %v", m, shut)
			}
			os.Chmod(filepath.Join(p.root, "d"), 0o755) // as root: look inside
			if got := readText(t, p.root, "d/f"); got != "new\n" {
				t.Errorf("d/f holds %q after the undo", got)
			}
		})
	}
}

// The next turn opens the folder again: what d/f held before it (the
// bytes the command that shut d left, never seen) is not known, so the
// turn's rewind says so (exit 3) and leaves the file, while a rewind of
// both turns gives back what d/f held before the first. Before, the
// baseline still had d/f's bytes from before the folder was shut, so the
// second turn's rewind wrote those back over the first turn's.
func TestShutFolderOpenedAgain(t *testing.T) {
	p := newPermProject(t)
	writeTexts(t, p.root, map[string]string{"d/f": "old\n", "n.txt": "n\n"})
	p.own(t)
	p.run(t, "exec", "--turn", "0", "--", "true")
	if r := p.run(t, "exec", "--turn", "1", "--", "sh", "-c", "echo new > d/f && chmod 000 d"); r.Code != 0 {
		t.Fatalf("exec 1\n%s", r)
	}
	if r := p.run(t, "exec", "--turn", "2", "--", "sh", "-c", "chmod 755 d && echo n2 > n.txt"); r.Code != 0 {
		t.Fatalf("exec 2\n%s", r)
	}
	r := p.run(t, "rewind", "2", "--yes")
	if r.Code != 3 {
		t.Fatalf("rewind 2: want exit 3 (d/f's bytes before turn 2 were never seen)\n%s", r)
	}
	wantSubstrings(t, "the rewind", r.Stdout, "d/f", "could not be read or kept before the command")
	if got := readText(t, p.root, "d/f"); got != "new\n" {
		t.Fatalf("d/f holds %q after rewinding turn 2", got)
	}
	if m := p.mode(t, "d"); m != 0 {
		t.Fatalf("d is %v after rewinding turn 2, want 000", m)
	}
	if r := p.run(t, "undo", "--yes"); r.Code != 0 {
		t.Fatalf("undo\n%s", r)
	}
	if r := p.run(t, "rewind", "1", "--yes"); r.Code != 0 {
		t.Fatalf("rewind 1\n%s", r)
	}
	if got := readText(t, p.root, "d/f"); got != "old\n" {
		t.Fatalf("d/f holds %q after rewinding turns 1 and 2", got)
	}
}
