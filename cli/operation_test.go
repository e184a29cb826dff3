package cli

import (
	"strings"
	"testing"
)

// A rewind every path of which failed changed nothing: its report does
// not offer an undo, and there is nothing to undo.
func TestRewindAllFailedOffersNoUndo(t *testing.T) {
	p := newTestProject(t, map[string]string{"big.txt": "more than ten bytes\n"})
	ckptOK(t, p.root, "capture", "--turn", "1", "--max-blob", "10", "big.txt")
	writeTexts(t, p.root, map[string]string{"big.txt": "changed by the agent\n"})
	ckptOK(t, p.root, "seal", "--turn", "1", "big.txt")
	r := ckptCode(t, p.root, 3, "rewind", "1", "--yes")
	if strings.Contains(r.Stdout, "undo") {
		t.Errorf("a rewind that changed nothing offers an undo:\n%s", r.Stdout)
	}
	wantSubstrings(t, "rewind", r.Stdout, "big.txt", "not kept")
	ckptCode(t, p.root, 1, "undo", "--yes")
}

// A plan's note of the paths already as they should be agrees with its count.
func TestPlanKeepNoteCount(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	p.turn(t, "1", "", []string{"a.txt", "b.txt"}, func() {
		writeTexts(t, p.root, map[string]string{"a.txt": "A\n"})
	})
	r := ckptCode(t, p.root, 4, "rewind", "1", "--dry-run")
	wantSubstrings(t, "rewind --dry-run", r.Stdout, "1 path already as it should be: left alone")
}
