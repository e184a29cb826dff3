package cli

// Where flags may stand on the command line, form by form: before and
// after the command's name, `--flag=value` and `--flag value`, a short
// flag's value attached (`-n2`) or apart (`-n 2`), `--` ending the flags,
// and every mistake a usage error (exit 2) that names the flag.

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// flagsProject is a folder after three turns: 1 and 3 wrote a.txt, 2 wrote
// b.txt.
func flagsProject(t *testing.T) testProject {
	t.Helper()
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n", "b.txt": "b 0\n"})
	p.turn(t, "1", "one", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "a 1\n") })
	p.turn(t, "2", "two", []string{"b.txt"}, func() { writeText(t, p.root, "b.txt", "b 2\n") })
	p.turn(t, "3", "three", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "a 3\n") })
	return p
}

// loggedTurns runs ckpt with args, which must print log --json, and
// returns the turns listed.
func loggedTurns(t *testing.T, c ckptCall, args ...string) []string {
	t.Helper()
	r := ckptDo(t, c, args...)
	if r.Code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	var rows []logRow
	if err := json.Unmarshal([]byte(r.Stdout), &rows); err != nil {
		t.Fatalf("not log --json: %v\n%s", err, r)
	}
	var ids []string
	for _, row := range rows {
		ids = append(ids, row.Turn)
	}
	return ids
}

// A command's flags, valued or not, long or short, read the same before
// its name as after it.
func TestFlagFormsBeforeAndAfterTheCommand(t *testing.T) {
	p := flagsProject(t)
	c := ckptCall{Root: p.root}
	newest2 := []string{"3", "2"}
	for _, args := range [][]string{
		{"log", "--json", "-n", "2"},
		{"log", "--json", "-n2"},
		{"log", "--json", "--max-count", "2"},
		{"log", "--json", "--max-count=2"},
		{"log", "-n2", "--json"},
		{"--json", "log", "-n", "2"},
		{"-n", "2", "log", "--json"},
		{"-n2", "log", "--json"},
		{"-n2", "--json", "log"},
		{"--json", "-n2", "log"},
		{"--json", "-n", "2", "log"},
		{"--max-count", "2", "--json", "log"},
		{"--max-count=2", "log", "--json"},
		{"--json=true", "log", "-n2"},
		{"log", "--json=true", "--max-count=2"},
	} {
		if got := loggedTurns(t, c, args...); !slices.Equal(got, newest2) {
			t.Errorf("ckpt %s: turns %v, want %v", strings.Join(args, " "), got, newest2)
		}
	}
	// -n 0 is no rows, as for git log, not a missing -n.
	for _, args := range [][]string{{"log", "--json", "-n0"}, {"-n", "0", "log", "--json"}} {
		if got := loggedTurns(t, c, args...); len(got) != 0 {
			t.Errorf("ckpt %s: turns %v, want none", strings.Join(args, " "), got)
		}
	}
	// A flag set false by its =value is false wherever it stands.
	for _, args := range [][]string{{"--json=false", "log"}, {"log", "--json=false"}} {
		r := ckptOK(t, p.root, args...)
		if strings.HasPrefix(strings.TrimSpace(r.Stdout), "[") {
			t.Errorf("ckpt %s printed JSON\n%s", strings.Join(args, " "), r)
		}
	}
	// A boolean flag before the command is not taken for a value that
	// swallows the command's name.
	for _, args := range [][]string{
		{"--dry-run", "rewind", "2"},
		{"--dry-run", "--json", "rewind", "2"},
		{"--json", "rewind", "--dry-run", "2"},
		{"rewind", "2", "--dry-run", "--json"},
	} {
		r := ckptCode(t, p.root, exitPlanShown, args...)
		wantSubstrings(t, "ckpt "+strings.Join(args, " "), r.Stdout, "b.txt")
	}
	if got := readText(t, p.root, "a.txt"); got != "a 3\n" {
		t.Fatalf("a plan shown changed a.txt to %q", got)
	}
}

// --root DIR, --root=DIR and $CKPT_ROOT name the root from anywhere, on
// either side of the command.
func TestRootFlagForms(t *testing.T) {
	p := flagsProject(t)
	elsewhere := ckptCall{Dir: t.TempDir()}
	for _, args := range [][]string{
		{"--root", p.root, "log", "--json"},
		{"--root=" + p.root, "log", "--json"},
		{"log", "--json", "--root", p.root},
		{"log", "--root=" + p.root, "--json"},
		{"--json", "--root", p.root, "-n3", "log"},
		{"-n", "3", "--root=" + p.root, "log", "--json"},
	} {
		if got := loggedTurns(t, elsewhere, args...); !slices.Equal(got, []string{"3", "2", "1"}) {
			t.Errorf("ckpt %s: turns %v", strings.Join(args, " "), got)
		}
	}
	if pathExists(filepath.Join(elsewhere.Dir, ".osfoundry")) {
		t.Errorf("a read with --root made a store in the working directory")
	}
}

// `--` ends the flags: what follows is paths, even a path that looks like
// a flag, and a flag before it still counts.
func TestDoubleDashEndsTheFlags(t *testing.T) {
	p := flagsProject(t)
	c := ckptCall{Root: p.root}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"log", "--json", "--", "a.txt"}, []string{"3", "1"}},
		{[]string{"log", "--json", "--", "b.txt"}, []string{"2"}},
		{[]string{"--json", "log", "-n1", "--", "a.txt"}, []string{"3"}},
		{[]string{"-n", "1", "log", "--json", "--", "a.txt"}, []string{"3"}},
		{[]string{"log", "--json", "--", "-n", "--json"}, nil}, // paths named -n and --json: no turn touched them
	} {
		if got := loggedTurns(t, c, tc.args...); !slices.Equal(got, tc.want) {
			t.Errorf("ckpt %s: turns %v, want %v", strings.Join(tc.args, " "), got, tc.want)
		}
	}

	// exec's command keeps its own flags, with or without --, and a flag
	// of exec's before its name is exec's.
	for _, args := range [][]string{
		{"exec", "--turn", "7", "--", "sh", "-c", `printf %s "$1" > e.txt`, "sh", "--json"},
		{"--turn", "8", "exec", "--", "sh", "-c", `printf %s "$1" > e.txt`, "sh", "--dry-run"},
		{"--label", "log", "exec", "--turn", "9", "sh", "-c", `printf %s "$1" > e.txt`, "sh", "-n2"},
	} {
		ckptOK(t, p.root, args...)
		if got, want := readText(t, p.root, "e.txt"), args[len(args)-1]; got != want {
			t.Errorf("ckpt %s: the command got %q, want %q", strings.Join(args, " "), got, want)
		}
	}
	if e := findEntry(t, ckptLog(t, p.root), "9"); e.Label != "log" {
		t.Errorf("--label log before exec: turn 9 labelled %q", e.Label)
	}

	// -- before the command ends the flags there, so no command follows.
	r := ckptCode(t, p.root, exitUsage, "--", "log")
	wantSubstrings(t, "ckpt -- log", r.Stderr, `"log"`, "--")
}

// Every mistake in the flags is a usage error (exit 2) naming the flag,
// pointing at the right help, and changing nothing.
func TestFlagMistakesAreUsage(t *testing.T) {
	p := flagsProject(t)
	before := snapshotDir(t, p.root)
	for _, tc := range []struct {
		args []string
		say  []string // in stderr
	}{
		{[]string{"log", "--bogus"}, []string{"--bogus", "ckpt log --help"}},
		{[]string{"--bogus", "log"}, []string{"--bogus", "ckpt --help"}},
		{[]string{"log", "-x"}, []string{"'x'", "ckpt log --help"}},
		{[]string{"-x", "log"}, []string{"'x'"}},
		{[]string{"log", "-n"}, []string{"'n'", "argument"}},
		{[]string{"log", "-n", "many"}, []string{`"many"`}},
		{[]string{"-nmany", "log"}, []string{`"many"`}},
		{[]string{"--max-count=", "log"}, []string{"max-count"}},
		{[]string{"--json", "capture", "--turn", "4", "a.txt"}, []string{"--json", "ckpt capture --help"}}, // another command's flag
		{[]string{"capture", "--turn", "4", "--dry-run", "a.txt"}, []string{"--dry-run"}},
		{[]string{"--json"}, []string{"--json", "log"}}, // a command's flag with no command
		{[]string{"--dry-run", "rewind"}, []string{"rewind needs"}},
		{[]string{"rewind", "1", "--yes", "--json=maybe"}, []string{"maybe"}},
		{[]string{"--root"}, []string{"root"}},
		{[]string{"diff", "1", "--color", "sometimes"}, []string{"sometimes"}}, // values of the wrong kind
		{[]string{"--conflicts=maybe", "revert", "1", "--yes"}, []string{"maybe"}},
		{[]string{"watch", "--quiet", "soon"}, []string{"soon"}},
		{[]string{"prune", "--older-than", "soon"}, []string{"soon"}},
		{[]string{"capture", "--turn", "4", "--max-blob", "lots", "a.txt"}, []string{"lots"}},
	} {
		r := ckpt(t, p.root, tc.args...)
		if r.Code != exitUsage || r.Stdout != "" {
			t.Errorf("want usage exit 2 and nothing on stdout\n%s", r)
			continue
		}
		wantSubstrings(t, "ckpt "+strings.Join(tc.args, " "), r.Stderr, tc.say...)
		if strings.Count(r.Stderr, "\n") > 3 {
			t.Errorf("a usage error of %d lines, want a short one\n%s", strings.Count(r.Stderr, "\n"), r)
		}
	}
	requireSnapshot(t, p.root, before, "after usage errors")
}

// -h and --help anywhere on the line print that command's help, not
// another's and not the root's.
func TestHelpFlagForms(t *testing.T) {
	root := t.TempDir()
	for _, args := range [][]string{{"-h", "rewind"}, {"rewind", "-h"}, {"--help", "rewind"}, {"rewind", "1", "--help"}, {"--json", "rewind", "-h"}, {"help", "rewind"}} {
		r := ckptCode(t, root, 0, args...)
		wantSubstrings(t, "ckpt "+strings.Join(args, " "), r.Stdout, "ckpt rewind TURN")
	}
	// The root's stand-ins for its commands' flags are not listed as its own.
	r := ckptCode(t, root, 0, "--help")
	_, flags, _ := strings.Cut(r.Stdout, "FLAGS")
	for _, f := range []string{"--json", "--dry-run", "--yes"} {
		if flags == "" || strings.Contains(flags, f) {
			t.Errorf("ckpt --help lists %s, a flag of some commands only\n%s", f, r)
		}
	}
	if pathExists(filepath.Join(root, ".osfoundry")) {
		t.Errorf("help made a store")
	}
}
