package cli

// The command line's outside, item by item as CONTRACT.md words it: where
// flags may stand, which mistakes are usage errors, and what a command says
// about a turn's state.

import (
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
