package store

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// ignoreProject is a project whose ignore files the commands edit.
func ignoreProject(t *testing.T, files map[string]string) (string, *Store) {
	t.Helper()
	root := tempRoot(t)
	for rel, data := range files {
		put(t, root, rel, data, 0o644)
	}
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return root, s
}

// sweptCommand sweeps around run as the hooks do, in turn, and returns what
// the sweep after it recorded.
func sweptCommand(t *testing.T, s *Store, turn string, run func()) []string {
	t.Helper()
	if _, err := s.SweepBefore(TurnID(turn), TurnMeta{}, "cmd"); err != nil {
		t.Fatal(err)
	}
	run()
	res, err := s.SweepAfter(TurnID(turn), TurnMeta{}, "cmd")
	if err != nil {
		t.Fatal(err)
	}
	return res.Changed
}

func fileText(t *testing.T, root, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(data)
}

// TestSweepCommandEditsGitignore: the sweep after a command skips by the
// ignore rules the baseline was taken under, so a command that starts
// ignoring a folder has its change there recorded, and one that stops
// ignoring it does not pass off the files there as created.
func TestSweepCommandEditsGitignore(t *testing.T) {
	root, s := ignoreProject(t, map[string]string{"a.txt": "a\n", "build/x": "b1\n"})
	t1, _ := s.NewTurn(TurnMeta{Label: "one"})
	sweptCommand(t, s, string(t1), func() {})

	t2, _ := s.NewTurn(TurnMeta{Label: "two"})
	got := sweptCommand(t, s, string(t2), func() {
		put(t, root, ".gitignore", "build/\n", 0o644)
		put(t, root, "build/x", "b2\n", 0o644)
	})
	if want := []string{".gitignore", "build/x"}; !slices.Equal(got, want) {
		t.Errorf("turn 2 recorded %q, want %q", got, want)
	}

	put(t, root, "build/y", "new\n", 0o644) // by hand, in the ignored folder
	t3, _ := s.NewTurn(TurnMeta{Label: "three"})
	got = sweptCommand(t, s, string(t3), func() { os.Remove(filepath.Join(root, ".gitignore")) })
	if want := []string{".gitignore"}; !slices.Equal(got, want) {
		t.Errorf("turn 3 recorded %q, want %q", got, want)
	}
	// A second command of the turn (no sweep before it) skips by the same
	// rules: the baseline keeps the rules it was taken under.
	got = sweptCommand(t, s, string(t3), func() { put(t, root, "a.txt", "a3\n", 0o644) })
	if want := []string{"a.txt"}; !slices.Equal(got, want) {
		t.Fatalf("turn 3's second command recorded %q, want %q", got, want)
	}

	rewind(t, s, string(t3))
	if x, y, g := fileText(t, root, "build/x"), fileText(t, root, "build/y"), fileText(t, root, ".gitignore"); x != "b2\n" || y != "new\n" || g != "build/\n" {
		t.Fatalf("after rewind 3: build/x %q, build/y %q, .gitignore %q", x, y, g)
	}
	rewind(t, s, string(t2))
	if x, y := fileText(t, root, "build/x"), fileText(t, root, "build/y"); x != "b1\n" || y != "new\n" {
		t.Fatalf("after rewind 2: build/x %q, build/y %q", x, y)
	}
	if _, err := os.Lstat(filepath.Join(root, ".gitignore")); err == nil {
		t.Fatal("after rewind 2: .gitignore is still there")
	}
}

// TestSweepCommandEditsNestedIgnore: the same for a folder's own
// .gitignore and .ckptignore; a folder the command made follows its own
// ignore files, since nothing under it predates the command.
func TestSweepCommandEditsNestedIgnore(t *testing.T) {
	root, s := ignoreProject(t, map[string]string{
		"sub/.gitignore": "gen/\n",
		"sub/gen/g":      "g1\n",
		"sub/out/o":      "o1\n",
		"sub/note.tmp":   "n1\n",
	})
	t1, _ := s.NewTurn(TurnMeta{Label: "one"})
	sweptCommand(t, s, string(t1), func() {})

	t2, _ := s.NewTurn(TurnMeta{Label: "two"})
	got := sweptCommand(t, s, string(t2), func() {
		put(t, root, "sub/.gitignore", "out/\n", 0o644)
		put(t, root, "sub/.ckptignore", "*.tmp\n", 0o644)
		put(t, root, "sub/out/o", "o2\n", 0o644)
		put(t, root, "sub/note.tmp", "n2\n", 0o644)
		put(t, root, "sub/gen/g", "g2\n", 0o644)
		put(t, root, "pkg/.gitignore", "node_modules/\n", 0o644)
		put(t, root, "pkg/index.js", "i\n", 0o644)
		put(t, root, "pkg/node_modules/m.js", "m\n", 0o644)
	})
	want := []string{"pkg/.gitignore", "pkg/index.js", "sub/.ckptignore", "sub/.gitignore", "sub/note.tmp", "sub/out/o"}
	if !slices.Equal(got, want) {
		t.Fatalf("turn 2 recorded %q, want %q", got, want)
	}
	rewind(t, s, string(t2))
	for rel, want := range map[string]string{"sub/out/o": "o1\n", "sub/note.tmp": "n1\n", "sub/gen/g": "g2\n", "sub/.gitignore": "gen/\n", "pkg/node_modules/m.js": "m\n"} {
		if got := fileText(t, root, rel); got != want {
			t.Errorf("after rewind 2: %s holds %q, want %q", rel, got, want)
		}
	}
}

// TestBaselineVersion2: a baseline written before the rules were recorded
// still loads; with its rules unknown, the sweep after a command follows
// the ignore files on disk, and the baseline it writes records them.
func TestBaselineVersion2(t *testing.T) {
	b := &baseline{at: 1, turn: "1", entries: []baseEntry{{path: "a", kind: baseFile, mode: 0o644, size: 1, mtime: 5, ctime: 6, ino: 7}}}
	data := b.encode()
	body := data[:len(data)-5] // no rules: their count is one zero byte
	body[len(legacyMagic)-1] = 2
	v2 := binary.LittleEndian.AppendUint32(bytes.Clone(body), crc32.Checksum(body, castagnoli))
	got, err := decodeBaseline(v2)
	if err != nil || got.rules != nil || !slices.Equal(got.entries, b.entries) {
		t.Fatalf("version 2: %+v, %v", got, err)
	}
}
