package cli

import (
	"strings"
	"testing"
)

// The plan of an undo or redo (the text before its question, and its
// question) says what undoing that kind of operation does: an undo of a
// rewind brings its turns back; of a revert it puts the turn's changes
// back and keeps every later one (no turn was rewound); of a retry it
// puts what the retry put right back as the operation it retried left
// it, which stays. The log words an undo and a redo of a revert the
// same way.
func TestUndoSaysWhatItDoes(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n", "b.txt": "b 0\n", "c.txt": "c 0\n"})
	p.turn(t, "1", "one", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "a 1\n") })
	p.turn(t, "2", "two", []string{"b.txt"}, func() { writeText(t, p.root, "b.txt", "b 2\n") })
	p.turn(t, "3", "three", []string{"c.txt"}, func() { writeText(t, p.root, "c.txt", "c 3\n") })
	plan := func(verb, want string) {
		t.Helper()
		r := ckptCode(t, p.root, exitPlanShown, verb, "--dry-run")
		if first, _, _ := strings.Cut(r.Stdout, "\n"); first != want {
			t.Fatalf("%s --dry-run heads its plan %q, want %q", verb, first, want)
		}
	}
	ckptOp(t, p.root, exitOK, "revert", "2", "--yes")
	plan("undo", "Undo op-1, the revert of turn 2 (puts back the changes of turn 2, keeping every later change):")
	ckptOp(t, p.root, exitOK, "undo", "--yes")
	plan("redo", "Redo op-1, the revert of turn 2 (takes out the changes of turn 2 again, keeping every later change):")
	ckptOp(t, p.root, exitOK, "redo", "--yes")
	log := ckptOK(t, p.root, "log").Stdout
	wantSubstrings(t, "log", log, "undid op-1: the changes of 1 turn back", "redid op-1: 1 turn reverted again")
	if strings.Contains(log, "rewound again") {
		t.Fatalf("the log calls a revert's redo a rewind\n%s", log)
	}
	ckptOp(t, p.root, exitOK, "undo", "--yes")
	ckptOp(t, p.root, exitOK, "rewind", "2", "--yes")
	plan("undo", "Undo op-5, the rewind to before turn 2 (brings back turns 2, 3):")
	ckptOp(t, p.root, exitOK, "undo", "--yes")
	plan("redo", "Redo op-5, the rewind to before turn 2 (undoes turns 2, 3 again):")

	// A retry: a revert left a file in conflict, then wrote its markers.
	q := newTestProject(t, map[string]string{"f.txt": "1\n2\n3\n", "g.txt": "g\n"})
	q.turn(t, "1", "two", []string{"f.txt", "g.txt"}, func() {
		writeTexts(t, q.root, map[string]string{"f.txt": "1\nTWO\n3\n", "g.txt": "G\n"})
	})
	writeText(t, q.root, "f.txt", "1\nHAND\n3\n")
	ckptOp(t, q.root, exitPartial, "revert", "1", "--yes")
	ckptOp(t, q.root, exitOK, "revert", "1", "--conflicts", "markers", "--yes")
	p = q
	plan("undo", "Undo op-2, the retry of op-1 (puts the paths it retried back as op-1 left them; op-1 stays in effect):")
	ckptOp(t, q.root, exitOK, "undo", "--yes")
	plan("redo", "Redo op-2, the retry of op-1 (retries again what op-1 could not put back):")
	wantSubstrings(t, "log", ckptOK(t, q.root, "log").Stdout, "undid op-2: what it retried is back as op-1 left it")
}
