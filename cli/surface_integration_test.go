package cli

// The command line's outside, item by item as CONTRACT.md words it: where
// flags may stand, which mistakes are usage errors, and what a command says
// about a turn's state.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Flags may come before or after the command: a command's own flag typed
// before its name, a boolean one included, is that command's.
func TestFlagsBeforeTheCommand(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n"})
	p.turn(t, "1", "one", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "a 1\n") })

	r := ckptOK(t, p.root, "--json", "log")
	if !strings.HasPrefix(strings.TrimSpace(r.Stdout), "[") {
		t.Fatalf("ckpt --json log did not print log --json\n%s", r)
	}
	r = ckptCode(t, p.root, exitPlanShown, "--dry-run", "rewind", "1")
	wantSubstrings(t, "ckpt --dry-run rewind 1", r.Stdout, "restore", "a.txt")
	r = ckptCode(t, p.root, exitPlanShown, "--json", "--dry-run", "rewind", "1")
	wantSubstrings(t, "ckpt --json --dry-run rewind 1", r.Stdout, `"applied": false`)
	// A flag's value is not taken for the command, and a flag of the
	// root's keeps its value.
	r = ckptOK(t, p.root, "-n", "1", "log")
	wantSubstrings(t, "ckpt -n 1 log", r.Stdout, "one")
	r = ckptOK(t, "", "--root", p.root, "--json", "show", "1")
	wantSubstrings(t, "ckpt --root DIR --json show 1", r.Stdout, `"status": "modified"`)
	// A command's name typed as a flag's value is that value.
	r = ckptDo(t, ckptCall{Root: p.root, Stdin: []byte("w\n")}, "--label", "log", "write", "--turn", "2", "w.txt")
	if r.Code != 0 || readText(t, p.root, "w.txt") != "w\n" || findEntry(t, ckptLog(t, p.root), "2").Label != "log" {
		t.Fatalf("ckpt --label log write --turn 2 w.txt did not write turn 2 labelled log\n%s", r)
	}
	if got := readText(t, p.root, "a.txt"); got != "a 1\n" {
		t.Fatalf("a plan shown changed a.txt to %q", got)
	}
}

// Flags that cannot go together are a usage mistake: exit 2.
func TestFlagsThatExcludeEachOtherAreUsage(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n"})
	p.turn(t, "1", "one", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "a 1\n") })
	ckptCode(t, p.root, exitUsage, "watch", "--serve", "--stop")
	ckptCode(t, p.root, exitUsage, "show", "1", "--agent", "--conversation")
}

// A turn a revert took out, redone after an undo, is reverted, not
// rewound: show and diff never say an operation rewound it.
func TestRedoneRevertIsNoRewind(t *testing.T) {
	p := newTestProject(t, map[string]string{"f.txt": "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"})
	p.turn(t, "1", "two", []string{"f.txt"}, func() { writeText(t, p.root, "f.txt", "1\nTWO\n3\n4\n5\n6\n7\n8\n9\n10\n") })
	p.turn(t, "2", "ten", []string{"f.txt"}, func() { writeText(t, p.root, "f.txt", "1\nTWO\n3\n4\n5\n6\n7\n8\n9\nTEN\n") })
	ckptOK(t, p.root, "revert", "1", "--yes")
	ckptOK(t, p.root, "undo", "--yes")
	ckptOK(t, p.root, "redo", "--yes")
	if e := findEntry(t, ckptLog(t, p.root), "1"); e.State != "reverted" {
		t.Fatalf("turn 1 is %s after the revert's redo, want reverted", e.State)
	}
	for _, args := range [][]string{{"show", "1"}, {"show", "1", "--agent"}, {"diff", "1"}} {
		r := ckptOK(t, p.root, args...)
		if strings.Contains(r.Stdout+r.Stderr, "rewound") {
			t.Fatalf("ckpt %s calls a reverted turn rewound\n%s", strings.Join(args, " "), r)
		}
	}
}

// A path a retry put back is failed again once the retry is undone: the
// folder is as the failing operation left it, so the turn is not reverted
// (or is still rewound with that path failed), the path shows failed, and
// the same command again retries it.
func TestUndoneRetryLeavesThePathFailed(t *testing.T) {
	p := newTestProject(t, map[string]string{"f.txt": "1\n2\n3\n", "g.txt": "g\n"})
	p.turn(t, "1", "two", []string{"f.txt", "g.txt"}, func() {
		writeTexts(t, p.root, map[string]string{"f.txt": "1\nTWO\n3\n", "g.txt": "G\n"})
	})
	writeText(t, p.root, "f.txt", "1\nHAND\n3\n")
	o := ckptOp(t, p.root, exitPartial, "revert", "1", "--yes")
	if got := o.failedPaths(); !sameSet(got, []string{"f.txt"}) {
		t.Fatalf("revert failed %v, want f.txt in conflict", got)
	}
	ckptOp(t, p.root, exitOK, "revert", "1", "--conflicts", "markers", "--yes")
	if e := findEntry(t, ckptLog(t, p.root), "1"); e.State != "reverted" {
		t.Fatalf("turn 1 is %s once markers are written, want reverted", e.State)
	}
	ckptOp(t, p.root, exitOK, "undo", "--yes")
	if got := readText(t, p.root, "f.txt"); got != "1\nHAND\n3\n" {
		t.Fatalf("undo of the retry left f.txt %q", got)
	}
	if e := findEntry(t, ckptLog(t, p.root), "1"); e.State != "active" {
		t.Fatalf("turn 1 is %s after the retry was undone, with f.txt in conflict again; want active", e.State)
	}
	if st := ckptShow(t, p.root, "1").statuses(); st["f.txt"] != "failed" {
		t.Fatalf("f.txt is %q after the retry was undone, want failed", st["f.txt"])
	}
	r := ckptCode(t, p.root, exitPlanShown, "revert", "1", "--dry-run")
	wantSubstrings(t, "revert 1 again", r.Stdout, "retries", "f.txt")
	if strings.Contains(r.Stdout, "g.txt") {
		t.Fatalf("revert 1 again plans g.txt, which the first revert put back\n%s", r)
	}
	ckptOp(t, p.root, exitOK, "redo", "--yes")
	if e := findEntry(t, ckptLog(t, p.root), "1"); e.State != "reverted" {
		t.Fatalf("turn 1 is %s once the retry is redone, want reverted", e.State)
	}
	if st := ckptShow(t, p.root, "1").statuses(); st["f.txt"] == "failed" {
		t.Fatalf("f.txt is failed once the retry that wrote its markers is redone")
	}

	// The same for a rewind whose retry is undone.
	q := newTestProject(t, map[string]string{"a.txt": "a 0\n", "b.txt": "b 0\n"})
	q.turn(t, "1", "one", []string{"a.txt", "b.txt"}, func() {
		writeTexts(t, q.root, map[string]string{"a.txt": "a 1\n", "b.txt": "b 1\n"})
	})
	blob := blobFile(t, q.root, "a 0\n")
	held := filepath.Join(t.TempDir(), "blob")
	if err := os.Rename(blob, held); err != nil {
		t.Fatal(err)
	}
	ckptOp(t, q.root, exitPartial, "rewind", "1", "--yes")
	if err := os.Rename(held, blob); err != nil {
		t.Fatal(err)
	}
	ckptOp(t, q.root, exitOK, "rewind", "1", "--yes")
	ckptOp(t, q.root, exitOK, "undo", "--yes")
	if st := ckptShow(t, q.root, "1").statuses(); st["a.txt"] != "failed" {
		t.Fatalf("a.txt is %q after the rewind's retry was undone, want failed", st["a.txt"])
	}
	r = ckptCode(t, q.root, exitPlanShown, "rewind", "1", "--dry-run")
	wantSubstrings(t, "rewind 1 again", r.Stdout, "a.txt")
}

// A retry redone after the operation it retried was undone and redone,
// then undone again, leaves the folder and the log as they were before
// its redo: what the first revert failed before its own undo is not
// brought back.
func TestUndoneRetryAfterRedoneRevert(t *testing.T) {
	p := newTestProject(t, map[string]string{"f.txt": "1\n2\n3\n", "g.txt": "g\n"})
	p.turn(t, "1", "two", []string{"f.txt", "g.txt"}, func() {
		writeTexts(t, p.root, map[string]string{"f.txt": "1\nTWO\n3\n", "g.txt": "G\n"})
	})
	writeText(t, p.root, "f.txt", "1\nHAND\n3\n")
	ckptOp(t, p.root, exitPartial, "revert", "1", "--yes")
	ckptOp(t, p.root, exitOK, "revert", "1", "--conflicts", "markers", "--yes")
	ckptOp(t, p.root, exitOK, "undo", "--yes")
	ckptOp(t, p.root, exitOK, "undo", "--yes")
	ckptOp(t, p.root, exitOK, "redo", "--yes")
	look := func() (map[string]string, map[string]int) {
		var es []struct {
			Turn   string
			Failed []struct{ Path string }
		}
		decodeJSON(t, ckptOK(t, p.root, "log", "--json"), &es)
		failed := map[string]int{}
		for _, e := range es {
			failed[e.Turn] = len(e.Failed)
		}
		return ckptShow(t, p.root, "1").statuses(), failed
	}
	st, failed := look()
	ckptOp(t, p.root, exitOK, "redo", "--yes")
	ckptOp(t, p.root, exitOK, "undo", "--yes")
	if got := readText(t, p.root, "f.txt"); got != "1\nHAND\n3\n" {
		t.Fatalf("f.txt is %q once the retry's redo is undone", got)
	}
	st2, failed2 := look()
	if st2["f.txt"] != st["f.txt"] || st2["g.txt"] != st["g.txt"] {
		t.Fatalf("turn 1's files %v once the retry's redo is undone, want %v as before it", st2, st)
	}
	for id, n := range failed {
		if failed2[id] != n {
			t.Fatalf("%s lists %d failed once the retry's redo is undone, want %d as before it", id, failed2[id], n)
		}
	}
}
