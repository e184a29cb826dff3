package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// osfoundryProject is a project whose .osfoundry holds, beside the
// store, files of the project's own: the budget and a notes folder.
func osfoundryProject(t *testing.T) (string, *Store) {
	t.Helper()
	root := tempRoot(t)
	put(t, root, "a.txt", "a\n", 0o644)
	put(t, root, ConfigFile, `{"retention": {"keep": 50}}`+"\n", 0o644)
	put(t, root, ".osfoundry/notes/plan.md", "plan\n", 0o644)
	s := openStore(t, root)
	put(t, root, ".osfoundry/hooks/claude.last", "PreToolUse\n", 0o600)
	return root, s
}

// TestSweepOsfoundryOwnFiles: a shell command that deletes the budget in
// .osfoundry/ckpt.json and edits a file in a folder beside the store has
// both recorded, and a rewind of its turn gives them back (undo takes
// them away again); what the command did to ckpt's own entries there
// (the hooks' stamps, the store's .gitignore, the folder's mode) is in no
// turn and no rewind touches it.
func TestSweepOsfoundryOwnFiles(t *testing.T) {
	root, s := osfoundryProject(t)
	turn, err := s.NewTurn(TurnMeta{Label: "one"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepBefore(turn, TurnMeta{}, "rm .osfoundry/ckpt.json"); err != nil {
		t.Fatal(err)
	}
	ageBaseline(t, s)
	if err := os.Remove(filepath.Join(root, ConfigFile)); err != nil {
		t.Fatal(err)
	}
	put(t, root, ".osfoundry/notes/plan.md", "plan, edited\n", 0o644)
	put(t, root, ".osfoundry/hooks/claude.last", "PostToolUse\n", 0o600)
	put(t, root, ".osfoundry/.gitignore", "*\n# and more\n", 0o600)
	if err := os.Chmod(filepath.Join(root, ".osfoundry"), 0o750); err != nil {
		t.Fatal(err)
	}
	res, err := s.SweepAfter(turn, TurnMeta{}, "rm .osfoundry/ckpt.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ConfigFile, ".osfoundry/notes/plan.md"}
	if !slices.Equal(res.Changed, want) {
		t.Fatalf("the sweep after recorded %v, want %v", res.Changed, want)
	}
	files, err := s.Files(string(turn), false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("turn 1 holds %v, want %v", got, want)
	}

	r := rewind(t, s, string(turn))
	if len(r.Failed) > 0 {
		t.Fatalf("rewind: %+v", r)
	}
	if got := rd(t, root, ConfigFile); got != `{"retention": {"keep": 50}}`+"\n" {
		t.Errorf("%s after the rewind: %q", ConfigFile, got)
	}
	if got := rd(t, root, ".osfoundry/notes/plan.md"); got != "plan\n" {
		t.Errorf("plan.md after the rewind: %q", got)
	}
	ownUntouched := func(when string) {
		t.Helper()
		if got := rd(t, root, ".osfoundry/hooks/claude.last"); got != "PostToolUse\n" {
			t.Errorf("%s: the hooks' stamp is %q", when, got)
		}
		if got := rd(t, root, ".osfoundry/.gitignore"); got != "*\n# and more\n" {
			t.Errorf("%s: the store's .gitignore is %q", when, got)
		}
		if fi, err := os.Stat(filepath.Join(root, ".osfoundry")); err != nil || fi.Mode().Perm() != 0o750 {
			t.Errorf("%s: .osfoundry is %v, %v; want mode 0750 as the command left it", when, fi.Mode(), err)
		}
	}
	ownUntouched("after the rewind")
	undo(t, s)
	if _, err := os.Lstat(filepath.Join(root, ConfigFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s after undo: %v, want it gone again", ConfigFile, err)
	}
	if got := rd(t, root, ".osfoundry/notes/plan.md"); got != "plan, edited\n" {
		t.Errorf("plan.md after undo: %q", got)
	}
	ownUntouched("after undo")
}

// TestSweepOsfoundryOldBaseline: a baseline taken when sweeps left all of
// .osfoundry out has none of it, and the sweep after a command does not
// pass the project's files there off as the command's (a rewind would
// delete the budget); the next sweep before a command takes them in.
func TestSweepOsfoundryOldBaseline(t *testing.T) {
	root, s := osfoundryProject(t)
	turn, _ := s.NewTurn(TurnMeta{})
	if _, err := s.SweepBefore(turn, TurnMeta{}, "true"); err != nil {
		t.Fatal(err)
	}
	b, err := s.loadBaseline()
	if err != nil || b == nil {
		t.Fatalf("baseline: %v", err)
	}
	n := len(b.entries)
	b.entries = slices.DeleteFunc(b.entries, func(e baseEntry) bool {
		return e.path == storeTop || strings.HasPrefix(e.path, storeTop+"/")
	})
	if len(b.entries) == n {
		t.Fatal("the baseline holds nothing of .osfoundry")
	}
	b.recheck = nil
	if err := s.saveBaseline(b); err != nil {
		t.Fatal(err)
	}
	res, err := s.SweepAfter(turn, TurnMeta{}, "true")
	if err != nil || len(res.Changed) != 0 {
		t.Fatalf("the sweep after, over a baseline without .osfoundry: %+v, %v; want nothing recorded", res, err)
	}
	turn2, _ := s.NewTurn(TurnMeta{})
	if _, err := s.SweepBefore(turn2, TurnMeta{}, "rm .osfoundry/ckpt.json"); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, ConfigFile))
	res, err = s.SweepAfter(turn2, TurnMeta{}, "rm .osfoundry/ckpt.json")
	if err != nil || !slices.Equal(res.Changed, []string{ConfigFile}) {
		t.Fatalf("the next command's sweep after: %+v, %v; want %s recorded", res, err, ConfigFile)
	}
}

// TestRelOsfoundry: a path in .osfoundry is the project's unless it is
// the folder itself or one of ckpt's own entries there.
func TestRelOsfoundry(t *testing.T) {
	root, s := osfoundryProject(t)
	for p, inStore := range map[string]bool{
		ConfigFile:                     false,
		".osfoundry/notes/plan.md":     false,
		".osfoundry":                   true,
		".osfoundry/checkpoints":       true,
		".osfoundry/checkpoints/lock":  true,
		".osfoundry/.gitignore":        true,
		".osfoundry/hooks/claude.last": true,
	} {
		_, err := s.Rel(filepath.Join(root, p))
		if got := errors.Is(err, errInsideStore); got != inStore {
			t.Errorf("Rel(%s): %v, want inside the store %v", p, err, inStore)
		}
		_, why := cleanRecordPath(p)
		if got := why != ""; got != inStore {
			t.Errorf("cleanRecordPath(%s): %q, want refused %v", p, why, inStore)
		}
	}
}

// TestRulesOsfoundry: a watcher's rules agree with the sweep: they go
// into .osfoundry, past the store's .gitignore, and leave out only ckpt's
// own entries there.
func TestRulesOsfoundry(t *testing.T) {
	root := RootRules()
	if root.Skip(".osfoundry", true) {
		t.Error("the rules skip .osfoundry whole")
	}
	in := root.Enter(".osfoundry", []byte("*\n"), nil)
	for name, skip := range map[string]bool{"checkpoints": true, "hooks": true, ".gitignore": true, "notes": false, "ckpt.json": false} {
		if got := in.Skip(name, name != "ckpt.json" && name != ".gitignore"); got != skip {
			t.Errorf("Skip(.osfoundry/%s) = %v, want %v", name, got, skip)
		}
	}
	if !root.Enter("src", nil, nil).Enter(".osfoundry", []byte("*\n"), nil).Skip("notes", true) {
		t.Error("a .osfoundry below the root does not follow its .gitignore")
	}
}
