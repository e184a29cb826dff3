package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// A folder read-only for its owner (u-w) that the turn did not change
// the mode of, though it wrote a file in it and made another: the rewind
// opens it for writing, puts d/f back, deletes d/made and gives the
// folder its mode back; the undo does the same the other way. Before,
// both writes failed (exit 3) and d/f kept the turn's bytes.
func TestReadOnlyFolderKeepsItsMode(t *testing.T) {
	p := folderTurnProject(t, "echo new > d/f && echo made > d/made && echo n2 > n.txt")
	if err := os.Chmod(filepath.Join(p.root, "d"), 0o555); err != nil {
		t.Fatal(err)
	}
	if r := p.run(t, "rewind", "1", "--yes"); r.Code != 0 {
		t.Fatalf("rewind\n%s", r)
	}
	if m := p.mode(t, "d"); m != 0o555 {
		t.Errorf("d is %v after the rewind, want 0555 as before it", m)
	}
	if got := readText(t, p.root, "d/f"); got != "old\n" {
		t.Errorf("d/f holds %q after the rewind", got)
	}
	if _, err := os.Lstat(filepath.Join(p.root, "d/made")); !os.IsNotExist(err) {
		t.Errorf("d/made after the rewind: %v, want it gone", err)
	}
	if r := p.run(t, "undo", "--yes"); r.Code != 0 {
		t.Fatalf("undo\n%s", r)
	}
	if m := p.mode(t, "d"); m != 0o555 {
		t.Errorf("d is %v after the undo, want 0555", m)
	}
	if got := readText(t, p.root, "d/f") + readText(t, p.root, "d/made"); got != "new\nmade\n" {
		t.Errorf("d/f and d/made hold %q after the undo", got)
	}
}

// folderTurnProject is a project owned by the permission tests' user,
// holding d/f and n.txt, swept once as turn 0, whose turn 1 ran script
// (sh -c) as that user.
func folderTurnProject(t *testing.T, script string) permProject {
	t.Helper()
	p := newPermProject(t)
	writeTexts(t, p.root, map[string]string{"d/f": "old\n", "n.txt": "n\n"})
	p.own(t)
	if r := p.run(t, "exec", "--turn", "0", "--", "true"); r.Code != 0 {
		t.Fatalf("first sweep\n%s", r)
	}
	if r := p.run(t, "exec", "--turn", "1", "--", "sh", "-c", script); r.Code != 0 {
		t.Fatalf("exec\n%s", r)
	}
	return p
}
