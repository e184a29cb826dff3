package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestRewindPlanChangesNothing(t *testing.T) {
	p := newRewindProject(t)
	r := ckptCode(t, p.root, 4, "rewind", "1", "--dry-run")
	requireSnapshot(t, p.root, p.s2, "rewind --dry-run")
	wantSubstrings(t, "rewind 1 --dry-run plan", r.Stdout+r.Stderr, "a.txt", "b.txt")

	// No terminal and no --yes: the plan is printed and nothing changes.
	r = ckptCode(t, p.root, 4, "rewind", "1")
	requireSnapshot(t, p.root, p.s2, "rewind without --yes and without a terminal")
	wantSubstrings(t, "rewind 1 plan", r.Stdout+r.Stderr, "a.txt", "b.txt")

	o := ckptOp(t, p.root, 4, "rewind", "1", "--dry-run")
	if o.Applied {
		t.Errorf("rewind --dry-run --json says applied")
	}
	if !sameSet(o.HandEdited, []string{"a.txt"}) {
		t.Errorf("dry-run plan hand_edited %v, want [a.txt]", o.HandEdited)
	}
	requireSnapshot(t, p.root, p.s2, "rewind --dry-run --json")
	for _, e := range ckptLog(t, p.root) {
		if e.Kind != "agent" || e.State != "active" {
			t.Errorf("after plans only, log has %+v", e)
		}
	}
	// Nothing to undo is an error, plan or not.
	ckptCode(t, p.root, 1, "undo", "--dry-run")
	ckptCode(t, p.root, 1, "undo", "--yes")
}

func TestRewindUndoRedo(t *testing.T) {
	p := newRewindProject(t)

	// rewind 2: b.txt and run.sh (with its executable bit) come back.
	o := ckptOp(t, p.root, 0, "rewind", "2", "--yes")
	afterOp1 := withPaths(p.s2, p.s0, "b.txt", "run.sh")
	requireSnapshot(t, p.root, afterOp1, "rewind 2")
	if o.Op != "op-1" || !o.Applied || !sameSet(o.Restored, []string{"b.txt", "run.sh"}) || len(o.Failed) != 0 {
		t.Errorf("rewind 2 --json: %+v", o)
	}
	es := ckptLog(t, p.root)
	if e := findEntry(t, es, "2"); e.State != "rewound" {
		t.Errorf("turn 2 state %q after its rewind", e.State)
	}
	if e := findEntry(t, es, "op-1"); e.Kind != "rewind" || e.State != "active" || e.Target != "2" || !sameSet(e.Turns, []string{"2"}) {
		t.Errorf("log op-1: %+v", e)
	}
	if es[0].Turn != "op-1" {
		t.Errorf("log newest entry is %q, want op-1", es[0].Turn)
	}

	// A rewound turn cannot be rewound again.
	r := ckptCode(t, p.root, 1, "rewind", "2", "--yes")
	if !strings.Contains(strings.ToLower(r.Stderr), "rewound") {
		t.Errorf("refusal does not say the turn is rewound:\n%s", r)
	}
	requireSnapshot(t, p.root, afterOp1, "refused rewind")

	// rewind 1 also keeps the change made by hand, and removes the folder
	// the turn created.
	o = ckptOp(t, p.root, 0, "rewind", "1", "--yes")
	requireSnapshot(t, p.root, p.s0, "rewind 1")
	if o.Op != "op-2" || !sameSet(o.HandEdited, []string{"a.txt"}) || !sameSet(o.Deleted, []string{"n1/new.txt"}) {
		t.Errorf("rewind 1 --json: %+v", o)
	}

	// undo walks back newest first, bringing the hand edit back.
	o = ckptOp(t, p.root, 0, "undo", "--yes")
	requireSnapshot(t, p.root, afterOp1, "undo of op-2")
	if o.Op != "op-3" {
		t.Errorf("undo --json op %q, want op-3", o.Op)
	}
	es = ckptLog(t, p.root)
	if e := findEntry(t, es, "op-3"); e.Kind != "undo" || e.Target != "op-2" {
		t.Errorf("log op-3: %+v", e)
	}
	if e := findEntry(t, es, "op-2"); e.State != "undone" {
		t.Errorf("op-2 state %q after its undo", e.State)
	}
	if e := findEntry(t, es, "1"); e.State != "active" {
		t.Errorf("turn 1 state %q after the undo of its rewind", e.State)
	}
	ckptOp(t, p.root, 0, "undo", "--yes")
	requireSnapshot(t, p.root, p.s2, "undo of op-1")
	if r := ckptCode(t, p.root, 1, "undo", "--yes"); !strings.Contains(strings.ToLower(r.Stderr), "nothing to undo") {
		t.Errorf("third undo:\n%s", r)
	}

	// redo re-applies the most recently undone rewind: op-1.
	o = ckptOp(t, p.root, 0, "redo", "--yes")
	requireSnapshot(t, p.root, afterOp1, "redo")
	if e := findEntry(t, ckptLog(t, p.root), o.Op); e.Kind != "redo" || e.Target != "op-1" {
		t.Errorf("log %s: %+v, want a redo of op-1", o.Op, e)
	}
	// op-2 is still undone and could be redone, but a new rewind empties
	// the redo stack.
	ckptOp(t, p.root, 0, "rewind", "1", "--yes")
	requireSnapshot(t, p.root, p.s0, "second rewind 1")
	if r := ckptCode(t, p.root, 1, "redo", "--yes"); !strings.Contains(strings.ToLower(r.Stderr), "nothing to redo") {
		t.Errorf("redo after a new rewind:\n%s", r)
	}
	ckptOp(t, p.root, 0, "undo", "--yes")
	requireSnapshot(t, p.root, afterOp1, "undo of the second rewind 1")
	ckptOp(t, p.root, 0, "undo", "--yes") // the redo
	requireSnapshot(t, p.root, p.s2, "undo of the redo")
	if r := ckptOK(t, p.root, "verify"); r.Code != 0 {
		t.Errorf("verify:\n%s", r)
	}
}

func TestUndoRefusedOverNewerTurn(t *testing.T) {
	p := newRewindProject(t)
	ckptOp(t, p.root, 0, "rewind", "1", "--yes")
	requireSnapshot(t, p.root, p.s0, "rewind 1")
	p.turn(t, "3", "later work", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "a 3\n") })
	now := snapshotDir(t, p.root)

	// Undoing the rewind would overwrite a.txt, which turn 3 wrote since.
	r := ckptCode(t, p.root, 1, "undo", "--yes")
	if !regexp.MustCompile(`\b3\b`).MatchString(r.Stderr) {
		t.Errorf("refused undo does not name turn 3:\n%s", r)
	}
	requireSnapshot(t, p.root, now, "refused undo")
	if e := ckptLog(t, p.root)[0]; e.Turn != "3" {
		t.Errorf("a refused undo left a log entry: %+v", e)
	}
	ckptOp(t, p.root, 0, "undo", "--yes", "--force")
	requireSnapshot(t, p.root, p.s2, "forced undo")
}

func TestRewoundTurnGetsNewID(t *testing.T) {
	p := newRewindProject(t)
	ckptOp(t, p.root, 0, "rewind", "1", "--yes")

	// Turn 1 is rewound: a capture naming it starts turn 1.2 with the same
	// label, and a seal naming it goes there too.
	p.turn(t, "1", "", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "a 1.2\n") })
	t12 := findEntry(t, ckptLog(t, p.root), "1.2")
	if t12.State != "active" || t12.Label != "add the widget" || t12.Kind != "agent" || t12.Files != 1 {
		t.Errorf("log 1.2: %+v, want an active agent turn of 1 file labelled like turn 1", t12)
	}
	s := ckptShow(t, p.root, "1.2")
	if len(s.Files) != 1 || s.Files[0].Path != "a.txt" || s.Files[0].Status != "modified" {
		t.Errorf("show 1.2: %+v, want a.txt modified", s)
	}
	if got := findEntry(t, ckptLog(t, p.root), "1"); got.State != "rewound" || got.Files != 2 {
		t.Errorf("turn 1 after 1.2 began: %+v", got)
	}

	// Rewound again, turn 1 takes the next free id: 1.3.
	ckptOp(t, p.root, 0, "rewind", "1.2", "--yes")
	if got := readText(t, p.root, "a.txt"); got != "a 0\n" {
		t.Errorf("rewind 1.2 left a.txt %q, want its pre-image \"a 0\"", got)
	}
	p.turn(t, "1", "", []string{"keep.txt"}, func() { writeText(t, p.root, "keep.txt", "changed\n") })
	findEntry(t, ckptLog(t, p.root), "1.3")
}

func TestSymlinkKeptAsLink(t *testing.T) {
	p := newTestProject(t, map[string]string{"target.txt": "the target\n"})
	if err := os.Symlink("target.txt", filepath.Join(p.root, "link")); err != nil {
		t.Fatal(err)
	}
	s0 := snapshotDir(t, p.root)
	p.turn(t, "1", "replace a link", []string{"link", "newlink"}, func() {
		removePath(t, p.root, "link")
		writeText(t, p.root, "link", "now a regular file\n")
		if err := os.Symlink("link", filepath.Join(p.root, "newlink")); err != nil {
			t.Fatal(err)
		}
	})
	ckptOp(t, p.root, 0, "rewind", "1", "--yes")
	requireSnapshot(t, p.root, s0, "rewind over a replaced link")
	ckptOp(t, p.root, 0, "undo", "--yes")
	if fi, err := os.Lstat(filepath.Join(p.root, "link")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("undo: link is not the agent's regular file again (%v)", err)
	}
	if target, err := os.Readlink(filepath.Join(p.root, "newlink")); err != nil || target != "link" {
		t.Errorf("undo: newlink → %q, %v", target, err)
	}
	if got := readText(t, p.root, "target.txt"); got != "the target\n" {
		t.Errorf("the link's target was written through: %q", got)
	}
}

func TestUnchangedFilesNotRewritten(t *testing.T) {
	p := newTestProject(t, map[string]string{"same.txt": "same\n", "back.txt": "back 0\n", "mod.txt": "mod 0\n"})
	old := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, n := range []string{"same.txt", "back.txt", "mod.txt"} {
		if err := os.Chtimes(filepath.Join(p.root, n), old, old); err != nil {
			t.Fatal(err)
		}
	}
	p.turn(t, "1", "", []string{"same.txt", "back.txt", "mod.txt"}, func() {
		writeTexts(t, p.root, map[string]string{"back.txt": "back 1\n", "mod.txt": "mod 1\n"})
	})
	// back.txt is put back by hand, with its old mtime.
	writeText(t, p.root, "back.txt", "back 0\n")
	if err := os.Chtimes(filepath.Join(p.root, "back.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	o := ckptOp(t, p.root, 0, "rewind", "1", "--yes")
	if !sameSet(o.Restored, []string{"mod.txt"}) {
		t.Errorf("rewind restored %v, want only mod.txt", o.Restored)
	}
	for _, n := range []string{"same.txt", "back.txt"} {
		fi, err := os.Stat(filepath.Join(p.root, n))
		if err != nil {
			t.Fatal(err)
		}
		if !fi.ModTime().Equal(old) {
			t.Errorf("%s already held its pre-image but was rewritten (mtime %v)", n, fi.ModTime())
		}
	}
	if got := readText(t, p.root, "mod.txt"); got != "mod 0\n" {
		t.Errorf("mod.txt holds %q", got)
	}
}

// A rewind every path of which failed shows what it failed, and why, in
// every view — as a rewind that failed some paths does — while its turn
// stays active and there is nothing to undo; the same rewind again, once
// the path can be put back, clears the failure.
func TestRewindAllFailedShowsFailures(t *testing.T) {
	root := t.TempDir()
	writeText(t, root, "f", "before\n")
	ckptOK(t, root, "capture", "--turn", "1", "f")
	writeText(t, root, "f", "x\n")
	ckptOK(t, root, "seal", "--turn", "1", "f")
	removePath(t, root, "f")
	if err := os.Mkdir(filepath.Join(root, "f"), 0o755); err != nil {
		t.Fatal(err)
	}

	o := ckptOp(t, root, exitPartial, "rewind", "1", "--yes", "--json")
	if len(o.Failed) != 1 || o.Failed[0].Path != "f" || o.Failed[0].Reason == "" {
		t.Fatalf("rewind failed %+v, want f with a reason", o.Failed)
	}
	reason := o.Failed[0].Reason

	r := ckptOK(t, root, "log", "--json")
	var es []struct {
		Turn   string `json:"turn"`
		State  string `json:"state"`
		Failed []struct {
			Path   string `json:"path"`
			Reason string `json:"reason"`
		} `json:"failed"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &es); err != nil {
		t.Fatalf("log --json: %v\n%s", err, r)
	}
	for _, e := range es {
		switch e.Turn {
		case o.Op:
			if e.State != "failed" || len(e.Failed) != 1 || e.Failed[0].Path != "f" || e.Failed[0].Reason != reason {
				t.Errorf("log --json %s: state %q failed %+v; want failed, f: %q", e.Turn, e.State, e.Failed, reason)
			}
		case "1":
			if e.State != "active" {
				t.Errorf("log --json turn 1: state %q, want active", e.State)
			}
		}
	}
	if out := ckptOK(t, root, "log").Stdout; !strings.Contains(out, "1 path failed") {
		t.Errorf("log does not say the rewind failed a path:\n%s", out)
	}
	r = ckptOK(t, root, "show", "1", "--json")
	var s struct {
		Files []struct {
			Path   string `json:"path"`
			Status string `json:"status"`
			Reason string `json:"reason"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatalf("show --json: %v\n%s", err, r)
	}
	if len(s.Files) != 1 || s.Files[0].Status != "failed" || s.Files[0].Reason != reason {
		t.Errorf("show 1 --json: %+v; want f failed: %q", s.Files, reason)
	}
	// It changed nothing: there is nothing to undo.
	if r := ckpt(t, root, "undo", "--yes"); r.Code == 0 {
		t.Errorf("undo after a rewind that changed nothing succeeded\n%s", r)
	}

	// Running it again, once it can, puts f back and clears the failure.
	if err := os.Remove(filepath.Join(root, "f")); err != nil {
		t.Fatal(err)
	}
	o2 := ckptOp(t, root, 0, "rewind", "1", "--yes", "--json")
	if len(o2.Failed) != 0 || readText(t, root, "f") != "before\n" {
		t.Fatalf("rewind again: failed %+v, f %q", o2.Failed, readText(t, root, "f"))
	}
	if got := ckptShow(t, root, "1").statuses()["f"]; got != "unchanged" {
		t.Errorf("show 1 after the retry: f %s, want unchanged", got)
	}
	if out := ckptOK(t, root, "log", "--json").Stdout; strings.Contains(out, `"failed": [`) {
		t.Errorf("log --json still lists failures after the retry:\n%s", out)
	}
}

// --except on a path the rewind (or revert) does not touch is an error in
// the flag's own words, and nothing changes.
func TestExceptUntouchedSaysExcept(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n", "b.txt": "b 0\n"})
	p.turn(t, "1", "work", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "a 1\n") })
	for _, verb := range []string{"rewind", "revert"} {
		r := ckptCode(t, p.root, exitError, verb, "1", "--except", "b.txt", "--yes")
		if !strings.Contains(r.Stderr, "--except b.txt: the "+verb+" does not touch it") || strings.Contains(r.Stderr, "keep") {
			t.Errorf("%s --except of an untouched path: %s", verb, r)
		}
		if got := readText(t, p.root, "a.txt"); got != "a 1\n" {
			t.Errorf("%s changed a.txt to %q", verb, got)
		}
	}
}
