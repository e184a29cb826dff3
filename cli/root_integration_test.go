package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --- the command line's contract ---

func TestVersionAndUsage(t *testing.T) {
	root := t.TempDir()
	r := ckptOK(t, root, "--version")
	if strings.TrimSpace(r.Stdout) == "" {
		t.Errorf("--version printed nothing\n%s", r)
	}
	for _, args := range [][]string{
		{"no-such-command"},
		{"capture", "a.txt"},        // no --turn
		{"seal", "a.txt"},           // no --turn
		{"show"},                    // no turn
		{"rewind"},                  // no turn
		{"log", "--no-such-flag"},   // unknown flag
		{"rewind", "1", "--bogus"},  // unknown flag
		{"capture", "--turn"},       // flag without its value
		{"prune", "--keep", "many"}, // not a number
	} {
		if r := ckpt(t, root, args...); r.Code != 2 {
			t.Errorf("want usage exit 2\n%s", r)
		}
	}
	if pathExists(filepath.Join(root, ".osfoundry")) {
		t.Errorf("usage errors created a store")
	}
}

func TestReadOnlyCommandsCreateNoStore(t *testing.T) {
	root := t.TempDir()
	writeText(t, root, "a.txt", "a\n")
	for _, args := range [][]string{{"log"}, {"log", "--json"}, {"show", "1"}, {"show", "1", "--json"},
		{"diff", "1"}, {"verify"}, {"rewind", "1", "--dry-run"}, {"undo", "--dry-run"},
		{"doctor", "--json"}, {"purge", "a.txt", "--yes"}, {"prune", "--dry-run"}, {"watch", "--stop"}, {"turn"},
		{"verify", "--json"}, {"log", "--errors", "--clear"}, {"log", "--", "a.txt"}, {"show", "1", "--agent"},
		{"show", "1", "--conversation"}, {"diff", "1", "--agent"}, {"revert", "1", "--dry-run"},
		{"revert", "--session", "s", "--dry-run"}, {"redo", "--dry-run"}, {"maintain", "--now"}} {
		r := ckpt(t, root, args...)
		if r.Killed || r.Code < 0 {
			t.Errorf("crashed\n%s", r)
		}
		if pathExists(filepath.Join(root, ".osfoundry")) {
			t.Fatalf("%v created a store", args)
		}
	}
}

func TestStoreCreatedPrivateAndIgnored(t *testing.T) {
	root := t.TempDir()
	writeTexts(t, root, map[string]string{".env": "SECRET=1\n", "a.txt": "a\n"})
	ckptOK(t, root, "capture", "--turn", "1", "--label", "first", ".env", "a.txt")
	writeText(t, root, ".env", "SECRET=2\n")
	ckptOK(t, root, "seal", "--turn", "1", ".env", "a.txt")

	gi, err := os.ReadFile(filepath.Join(root, ".osfoundry", ".gitignore"))
	if err != nil {
		t.Fatalf("store has no .osfoundry/.gitignore: %v", err)
	}
	if strings.TrimSpace(string(gi)) != "*" {
		t.Errorf(".osfoundry/.gitignore holds %q, want *", gi)
	}
	n := 0
	filepath.WalkDir(storeFolder(root), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Error(err)
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			t.Error(err)
			return nil
		}
		switch {
		case d.IsDir() && info.Mode().Perm() != 0o700:
			t.Errorf("store folder %s has mode %v, want 0700", p, info.Mode().Perm())
		case info.Mode().IsRegular() && info.Mode().Perm() != 0o600:
			t.Errorf("store file %s has mode %v, want 0600", p, info.Mode().Perm())
		}
		n++
		return nil
	})
	if n < 2 {
		t.Errorf("store folder holds %d entries after a capture", n)
	}
	// The secret's pre-image is kept (that is why the store is private).
	blobFile(t, root, "SECRET=1\n")
}

func TestRootFound(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTexts(t, root, map[string]string{"sub/dir/x.txt": "x 0\n", "top.txt": "top 0\n"})
	sub := filepath.Join(root, "sub", "dir")

	// No --root, no $CKPT_ROOT: the walk up from sub/dir stops at .git.
	// Paths on the command line are relative to the working directory;
	// in output they are relative to the root.
	if r := ckptDo(t, ckptCall{Dir: sub}, "capture", "--turn", "1", "x.txt", "../../top.txt"); r.Code != 0 {
		t.Fatalf("capture from a subfolder\n%s", r)
	}
	if pathExists(filepath.Join(sub, ".osfoundry")) || !pathExists(storeFolder(root)) {
		t.Fatalf("the store is not at the root found by walking up to .git")
	}
	r := ckptDo(t, ckptCall{Dir: sub}, "show", "1", "--json")
	var s showDoc
	decodeJSON(t, r, &s)
	var paths []string
	for _, f := range s.Files {
		paths = append(paths, f.Path)
	}
	if !sameSet(paths, []string{"sub/dir/x.txt", "top.txt"}) {
		t.Errorf("show 1 --json paths %v, want root-relative sub/dir/x.txt and top.txt", paths)
	}

	// --root names the root exactly, from anywhere.
	elsewhere := t.TempDir()
	r = ckptDo(t, ckptCall{Dir: elsewhere}, "log", "--json", "--root", root)
	var es []logRow
	decodeJSON(t, r, &es)
	if r.Code != 0 || len(es) != 1 || es[0].Turn != "1" {
		t.Errorf("log --json --root from elsewhere: %+v\n%s", es, r)
	}
	if pathExists(filepath.Join(elsewhere, ".osfoundry")) {
		t.Errorf("log created a store in the working directory")
	}
	// $CKPT_ROOT too, and a capture outside the root is refused.
	writeText(t, elsewhere, "out.txt", "outside\n")
	r = ckptDo(t, ckptCall{Root: root, Dir: elsewhere}, "capture", "--turn", "2", "out.txt")
	if r.Code != 1 || !strings.Contains(r.Stderr, "out.txt") || !strings.Contains(strings.ToLower(r.Stderr), "outside") {
		t.Errorf("capture of a file outside the root: want exit 1 and a message naming it and the reason\n%s", r)
	}
}
