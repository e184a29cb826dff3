package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder read-only for its owner (u-w) that the turn did not change
// the mode of, though it wrote a file in it and made another: the rewind
// opens it for writing, puts d/f back, deletes d/made and gives the
// folder its mode back; the undo does the same the other way. Before,
// both writes failed (exit 3) and d/f kept the turn's bytes.
func TestReadOnlyFolderKeepsItsMode(t *testing.T) {
	p := readOnlyTurnProject(t, "echo new > d/f && echo made > d/made && echo n2 > n.txt", "d")
	p.rewindUndoKeepsMode(t, "d", "d/f", "old\n", "new\n", "d/made")
}

// rewindUndoKeepsMode rewinds turn 1 and undoes the rewind. After each,
// folder dir ("." for the root) has mode 0555 still; after the rewind,
// changed holds was and made (which the turn wrote "made" in) is gone;
// after the undo, changed holds now and made is back.
func (p permProject) rewindUndoKeepsMode(t *testing.T, dir, changed, was, now, made string) {
	t.Helper()
	name := folderName(dir)
	if r := p.run(t, "rewind", "1", "--yes"); r.Code != 0 {
		t.Fatalf("rewind\n%s", r)
	}
	if m := p.mode(t, dir); m != 0o555 {
		t.Errorf("%s is %v after the rewind, want 0555 as before it", name, m)
	}
	if got := readText(t, p.root, changed); got != was {
		t.Errorf("%s holds %q after the rewind", changed, got)
	}
	if _, err := os.Lstat(filepath.Join(p.root, made)); !os.IsNotExist(err) {
		t.Errorf("%s after the rewind: %v, want it gone", made, err)
	}
	if r := p.run(t, "undo", "--yes"); r.Code != 0 {
		t.Fatalf("undo\n%s", r)
	}
	if m := p.mode(t, dir); m != 0o555 {
		t.Errorf("%s is %v after the undo, want 0555", name, m)
	}
	if got := readText(t, p.root, changed) + readText(t, p.root, made); got != now+"made\n" {
		t.Errorf("%s and %s hold %q after the undo", changed, made, got)
	}
}

// readOnlyTurnProject is folderTurnProject(t, script) with folder dir
// ("." for the root) then made read-only for its owner (mode 0555).
func readOnlyTurnProject(t *testing.T, script, dir string) permProject {
	t.Helper()
	p := folderTurnProject(t, script)
	if err := os.Chmod(filepath.Join(p.root, dir), 0o555); err != nil {
		t.Fatal(err)
	}
	return p
}

// folderName is how the failure messages name folder dir.
func folderName(dir string) string {
	if dir == "." {
		return "the root"
	}
	return dir
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

// A rewind that opened a read-only folder and could not give it its mode
// back keeps the folder in the shut-folders note: a later command,
// failing the same way, still exits 0, and one that can gives the folder
// its mode back and drops the note. The error log names the folder once.
// Before, the note went and the folder stayed open.
func TestReadOnlyFolderModeGivenBackLater(t *testing.T) {
	p := readOnlyTurnProject(t, "echo new > d/f", "d")
	note := filepath.Join(p.root, ".osfoundry/checkpoints/shut-folders")
	fail := []string{"CKPT_FAILPOINT=chmod-back"}
	if r := p.runWith(t, fail, "rewind", "1", "--yes"); r.Code != 0 {
		t.Fatalf("rewind\n%s", r)
	}
	if _, err := os.Stat(note); err != nil {
		t.Fatalf("the note after a rewind that could not give d its mode back: %v", err)
	}
	if r := p.runWith(t, fail, "log"); r.Code != 0 {
		t.Fatalf("log while d's mode still cannot be given back\n%s", r)
	}
	if m := p.mode(t, "d"); m != 0o755 {
		t.Fatalf("d is %v while its mode cannot be given back, want 0755", m)
	}
	if r := p.run(t, "log"); r.Code != 0 {
		t.Fatalf("log\n%s", r)
	}
	if m := p.mode(t, "d"); m != 0o555 {
		t.Errorf("d is %v after a command that could give its mode back, want 0555", m)
	}
	if _, err := os.Stat(note); !os.IsNotExist(err) {
		t.Errorf("the note once d has its mode back: %v, want it gone", err)
	}
	if got := readText(t, p.root, "d/f"); got != "old\n" {
		t.Errorf("d/f holds %q after the rewind", got)
	}
	logged := readText(t, p.root, ".osfoundry/checkpoints/errors.log")
	if n := strings.Count(logged, "give d back its mode 555"); n != 1 {
		t.Errorf("the error log names d %d times, want once:\n%s", n, logged)
	}
}

// A folder whose mode can never be given back is tried by a bounded
// number of commands, none of which fails; then the note forgets it and
// the error log says ckpt gave up.
func TestReadOnlyFolderModeGivenUp(t *testing.T) {
	p := readOnlyTurnProject(t, "echo new > d/f", "d")
	note := filepath.Join(p.root, ".osfoundry/checkpoints/shut-folders")
	fail := []string{"CKPT_FAILPOINT=chmod-back"}
	if r := p.runWith(t, fail, "rewind", "1", "--yes"); r.Code != 0 {
		t.Fatalf("rewind\n%s", r)
	}
	runs := 0
	for ; runs < 20; runs++ {
		if _, err := os.Stat(note); os.IsNotExist(err) {
			break
		}
		if r := p.runWith(t, fail, "log"); r.Code != 0 {
			t.Fatalf("log %d\n%s", runs, r)
		}
	}
	if runs == 20 {
		t.Fatalf("the note is still there after %d commands", runs)
	}
	if logged := readText(t, p.root, ".osfoundry/checkpoints/errors.log"); !strings.Contains(logged, "gave up giving d back its mode 555") {
		t.Errorf("the error log does not say ckpt gave up on d:\n%s", logged)
	}
	t.Logf("gave up after %d commands", runs)
}

// A project root read-only for its owner, its mode no turn's: the rewind
// opens it to delete made.txt and put n.txt back, and gives it its mode
// back; the undo does the same the other way. Before, only folders below
// the root were opened, and both failed (exit 3).
func TestReadOnlyRootKeepsItsMode(t *testing.T) {
	p := readOnlyTurnProject(t, "echo made > made.txt && echo n2 > n.txt", ".")
	p.rewindUndoKeepsMode(t, ".", "n.txt", "n\n", "n2\n", "made.txt")
}
