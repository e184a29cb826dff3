package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// revertDoc is `revert --json`: the rewind shape plus conflicts and merged.
type revertDoc struct {
	opDoc
	Plan      string `json:"plan"`
	Conflicts []struct {
		Path  string   `json:"path"`
		Lines [][2]int `json:"lines"`
	} `json:"conflicts"`
	Merged []string `json:"merged"`
}

func lines20(edit map[int]string) string {
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		if s, ok := edit[i]; ok {
			b.WriteString(s + "\n")
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// agentWrite is one file tool write of a turn: capture, write, seal.
func agentWrite(t *testing.T, root, turn, name, content string) {
	t.Helper()
	ckptOK(t, root, "capture", "--turn", turn, name)
	writeText(t, root, name, content)
	ckptOK(t, root, "seal", "--turn", turn, name)
}

// Turn 1 edits line 1 of a.txt and creates new.txt; turn 2 edits line 10
// of a.txt and all of b.txt; a hand edit changes line 20. Reverting turn 1
// takes out just its changes; undo gives the folder back exactly; a turn
// 3 that changes line 1 again makes the revert a conflict that leaves
// a.txt as it is and exits 3, and markers write the conflict in.
func TestRevertScenario(t *testing.T) {
	root := t.TempDir()
	writeText(t, root, "a.txt", lines20(nil))
	writeText(t, root, "b.txt", "b before\n")
	agentWrite(t, root, "1", "a.txt", lines20(map[int]string{1: "one by turn 1"}))
	agentWrite(t, root, "1", "new.txt", "made by turn 1\n")
	agentWrite(t, root, "2", "a.txt", lines20(map[int]string{1: "one by turn 1", 10: "ten by turn 2"}))
	agentWrite(t, root, "2", "b.txt", "b by turn 2\n")
	writeText(t, root, "a.txt", lines20(map[int]string{1: "one by turn 1", 10: "ten by turn 2", 20: "twenty by hand"}))
	before := snapshotDir(t, root)

	dry := ckptCode(t, root, exitPlanShown, "revert", "1", "--dry-run")
	if !strings.Contains(dry.Stdout, "merged: later changes kept") || !strings.Contains(dry.Stdout, "plan ") {
		t.Errorf("revert --dry-run does not show the merge and the plan:\n%s", dry)
	}
	var o revertDoc
	decodeJSON(t, ckptCode(t, root, 0, "revert", "1", "--yes", "--json"), &o)
	if got := readText(t, root, "a.txt"); got != lines20(map[int]string{10: "ten by turn 2", 20: "twenty by hand"}) {
		t.Errorf("a.txt after revert 1:\n%s", got)
	}
	if got := readText(t, root, "b.txt"); got != "b by turn 2\n" {
		t.Errorf("b.txt after revert 1: %q, want turn 2's", got)
	}
	if pathExists(root + "/new.txt") {
		t.Error("new.txt, which turn 1 created, is still there")
	}
	if len(o.Conflicts) != 0 || strings.Join(o.Merged, ",") != "a.txt" || strings.Join(o.Deleted, ",") != "new.txt" {
		t.Errorf("revert --json: conflicts %+v merged %v deleted %v", o.Conflicts, o.Merged, o.Deleted)
	}
	es := ckptLog(t, root)
	if e := findEntry(t, es, "1"); e.State != "reverted" {
		t.Errorf("turn 1 is %q after its revert, want reverted", e.State)
	}
	if e := findEntry(t, es, "2"); e.State != "active" {
		t.Errorf("turn 2 is %q after turn 1's revert, want active", e.State)
	}
	if e := findEntry(t, es, o.Op); e.Kind != "revert" {
		t.Errorf("the revert is logged as %q", e.Kind)
	}
	// What the revert wrote is expected there, like a seal: a.txt is not
	// changed since the agent (turn 2's bytes and the hand edit are gone
	// from it as expectations).
	if st := ckptShow(t, root, "2").statuses()["a.txt"]; st == "hand_edited" {
		t.Errorf("a.txt, which the revert merged, shows as %s in turn 2", st)
	}

	ckptOK(t, root, "undo", "--yes")
	requireSnapshot(t, root, before, "after undoing the revert")
	if e := findEntry(t, ckptLog(t, root), "1"); e.State != "active" {
		t.Errorf("turn 1 is %q after the revert's undo, want active", e.State)
	}
	ckptOK(t, root, "redo", "--yes")
	if got := readText(t, root, "a.txt"); got != lines20(map[int]string{10: "ten by turn 2", 20: "twenty by hand"}) {
		t.Errorf("a.txt after redo:\n%s", got)
	}
	ckptOK(t, root, "undo", "--yes")
	requireSnapshot(t, root, before, "after undoing the redo")

	agentWrite(t, root, "3", "a.txt", lines20(map[int]string{1: "one by turn 3", 10: "ten by turn 2", 20: "twenty by hand"}))
	mid := snapshotDir(t, root)
	aBefore := readText(t, root, "a.txt")
	r := ckptCode(t, root, exitPartial, "revert", "1", "--yes", "--json")
	decodeJSON(t, r, &o)
	if got := readText(t, root, "a.txt"); got != aBefore {
		t.Errorf("a.txt was changed by a revert in conflict:\n%s", got)
	}
	if len(o.Conflicts) != 1 || o.Conflicts[0].Path != "a.txt" || fmt.Sprint(o.Conflicts[0].Lines) != "[[1 1]]" {
		t.Errorf("conflicts %+v, want a.txt line 1", o.Conflicts)
	}
	if pathExists(root + "/new.txt") {
		t.Error("new.txt was not reverted beside the conflict")
	}
	if e := findEntry(t, ckptLog(t, root), "1"); e.State != "active" {
		t.Errorf("turn 1 is %q with a file in conflict, want active", e.State)
	}
	// Again: a retry of just a.txt, still in conflict.
	var again revertDoc
	decodeJSON(t, ckptCode(t, root, exitPlanShown, "revert", "1", "--dry-run", "--json"), &again)
	if len(again.Failed) != 1 || again.Failed[0].Path != "a.txt" || len(again.Deleted) != 0 {
		t.Errorf("revert 1 again plans %+v, want a retry of a.txt alone", again)
	}
	// Markers: the conflict written in, exit 0, and the turn reverted.
	decodeJSON(t, ckptCode(t, root, 0, "revert", "1", "--conflicts", "markers", "--yes", "--json"), &o)
	want := "<<<<<<< now\none by turn 3\n||||||| turn 1\none by turn 1\n=======\nline 1\n>>>>>>> before turn 1\n"
	if got := readText(t, root, "a.txt"); !strings.HasPrefix(got, want) || !strings.Contains(got, "ten by turn 2\n") {
		t.Errorf("a.txt with markers:\n%s", got)
	}
	if e := findEntry(t, ckptLog(t, root), "1"); e.State != "reverted" {
		t.Errorf("turn 1 is %q after the markers, want reverted", e.State)
	}
	ckptOK(t, root, "undo", "--yes")
	ckptOK(t, root, "undo", "--yes")
	requireSnapshot(t, root, mid, "after undoing the revert and its retry")
}

// A rewind of a turn at or before a reverted one goes back to the folder
// as before that turn: the revert is undone with everything since.
func TestRewindOverRevert(t *testing.T) {
	root := t.TempDir()
	writeText(t, root, "a.txt", lines20(nil))
	writeText(t, root, "c.txt", "c before\n")
	agentWrite(t, root, "1", "c.txt", "c by turn 1\n")
	agentWrite(t, root, "2", "a.txt", lines20(map[int]string{5: "five by turn 2"}))
	agentWrite(t, root, "3", "a.txt", lines20(map[int]string{5: "five by turn 2", 15: "fifteen by turn 3"}))
	ckptOK(t, root, "revert", "2", "--yes")
	if got := readText(t, root, "a.txt"); got != lines20(map[int]string{15: "fifteen by turn 3"}) {
		t.Fatalf("a.txt after revert 2:\n%s", got)
	}
	ckptOK(t, root, "rewind", "1", "--yes")
	if got := readText(t, root, "a.txt"); got != lines20(nil) {
		t.Errorf("a.txt after rewinding to before turn 1:\n%s", got)
	}
	if got := readText(t, root, "c.txt"); got != "c before\n" {
		t.Errorf("c.txt after rewinding to before turn 1: %q", got)
	}
	es := ckptLog(t, root)
	if e := findEntry(t, es, "2"); e.State != "rewound" {
		t.Errorf("turn 2 is %q, want rewound", e.State)
	}
	ckptOK(t, root, "undo", "--yes")
	if got := readText(t, root, "a.txt"); got != lines20(map[int]string{15: "fifteen by turn 3"}) {
		t.Errorf("a.txt after undoing the rewind:\n%s", got)
	}
	if e := findEntry(t, ckptLog(t, root), "2"); e.State != "reverted" {
		t.Errorf("turn 2 is %q after the rewind's undo, want reverted", e.State)
	}
}

// revertProject is a folder after two sealed turns and a hand edit, where
// reverting turn 1 merges a file (later changes kept), deletes one it
// created, brings back one it deleted and puts back a mode it changed.
func revertProject(t *testing.T, root string) {
	t.Helper()
	writeTexts(t, root, map[string]string{
		"a.txt": lines20(nil), "gone.txt": "gone 0\n", "run.sh": "#!/bin/sh\n", "big.txt": strings.Repeat("big 0\n", 4000),
	})
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	paths := []string{"a.txt", "gone.txt", "run.sh", "big.txt", "new/made.txt"}
	ckptOK(t, root, append([]string{"capture", "--turn", "1"}, paths...)...)
	writeTexts(t, root, map[string]string{"a.txt": lines20(map[int]string{1: "one by turn 1"}), "new/made.txt": "made\n",
		"big.txt": strings.Repeat("big 1\n", 4000)})
	removePath(t, root, "gone.txt")
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o700); err != nil {
		t.Fatal(err)
	}
	ckptOK(t, root, append([]string{"seal", "--turn", "1"}, paths...)...)
	agentWrite(t, root, "2", "a.txt", lines20(map[int]string{1: "one by turn 1", 12: "twelve by turn 2"}))
	writeText(t, root, "a.txt", lines20(map[int]string{1: "one by turn 1", 12: "twelve by turn 2", 20: "by hand"}))
}

// A revert, and its undo, killed after each of their file operations:
// the next command leaves the folder wholly before or wholly after.
func TestCrashDuringRevert(t *testing.T) {
	base := t.TempDir()
	tmpl := filepath.Join(base, "template")
	revertProject(t, tmpl)
	s1 := snapshotDir(t, tmpl)
	scratch := filepath.Join(base, "scratch")
	copyTree(t, tmpl, scratch)
	ckptOK(t, scratch, "revert", "1", "--yes")
	s2 := snapshotDir(t, scratch)
	if got := readText(t, scratch, "a.txt"); got != lines20(map[int]string{12: "twelve by turn 2", 20: "by hand"}) {
		t.Fatalf("a.txt after revert 1:\n%s", got)
	}
	t.Run("revert", func(t *testing.T) {
		c := crashCase{name: "revert", args: []string{"revert", "1", "--yes"}, turn1After: "reverted", reverse: []string{"undo", "--yes"}}
		crashLoop(t, t.TempDir(), tmpl, c, s1, s2, "active")
	})
	t.Run("undo", func(t *testing.T) {
		undoTmpl := filepath.Join(base, "undo-template")
		copyTree(t, tmpl, undoTmpl)
		ckptOK(t, undoTmpl, "revert", "1", "--yes")
		c := crashCase{name: "undo of a revert", args: []string{"undo", "--yes"}, turn1After: "active", reverse: []string{"redo", "--yes"}}
		crashLoop(t, t.TempDir(), undoTmpl, c, s2, s1, "reverted")
	})
}
