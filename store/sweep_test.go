package store

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// tree maps every file, link and folder under root (but .osfoundry and
// .git) to its content and mode, leaving out the prefixes in skip.
func tree(t testing.TB, root string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if rel == ".osfoundry" || rel == ".git" || slices.Contains(skip, rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			out[rel+"/"] = fmt.Sprint(fi.Mode().Perm())
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("%v %q", fi.Mode().Perm(), b)
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "-> " + l
		default:
			out[rel] = fi.Mode().String() // a named pipe, a socket, a device
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func put(t testing.TB, root, rel, data string, mode fs.FileMode) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func sameTree(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	var diffs []string
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			diffs = append(diffs, fmt.Sprintf("%s: got %q want %q", k, g, w))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: extra %q", k, g))
		}
	}
	if len(diffs) > 0 {
		slices.Sort(diffs)
		t.Fatalf("%s:\n%s", what, strings.Join(diffs, "\n"))
	}
}

// shellProject is a project with ignored folders and files, a hand edit
// rule and an executable.
func shellProject(t *testing.T) (string, *Store) {
	t.Helper()
	root := tempRoot(t)
	put(t, root, ".gitignore", "node_modules/\n.env\n/build\n", 0o644)
	put(t, root, ".ckptignore", "*.log\n", 0o644)
	put(t, root, "a.txt", "a\n", 0o644)
	put(t, root, "b.txt", "b\n", 0o644)
	put(t, root, "c.txt", "c\n", 0o644)
	put(t, root, "src/run.sh", "#!/bin/sh\n", 0o644)
	put(t, root, "src/deep/x.go", "package x\n", 0o644)
	put(t, root, ".env", "SECRET=1\n", 0o600)
	put(t, root, "node_modules/m/index.js", "m\n", 0o644)
	put(t, root, "build/out", "o\n", 0o644)
	put(t, root, "sub/.gitignore", "gen/\n", 0o644)
	put(t, root, "sub/gen/g.txt", "g\n", 0o644)
	put(t, root, "keep.log", "l\n", 0o644)
	os.Symlink("a.txt", filepath.Join(root, "link"))
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return root, s
}

// shellCommand is what an agent's shell command does in the tests: edit,
// delete, move, create, chmod, rewrite the ignored .env, write into the
// ignored node_modules/ and an ignored log.
func shellCommand(t *testing.T, root string) {
	t.Helper()
	put(t, root, "a.txt", "a edited by sed\n", 0o644)
	os.Remove(filepath.Join(root, "b.txt"))
	os.Rename(filepath.Join(root, "c.txt"), filepath.Join(root, "src/deep/c-moved.txt"))
	put(t, root, "new/dir/created.txt", "new\n", 0o644)
	os.Chmod(filepath.Join(root, "src/run.sh"), 0o755)
	put(t, root, ".env", "SECRET=2\n", 0o600)
	put(t, root, "node_modules/m/index.js", "m2\n", 0o644)
	put(t, root, "node_modules/n.js", "n\n", 0o644)
	put(t, root, "keep.log", "l2\n", 0o644)
	put(t, root, "sub/gen/g.txt", "g2\n", 0o644)
	os.Remove(filepath.Join(root, "link"))
	os.Symlink("src", filepath.Join(root, "link"))
}

var unswept = []string{"node_modules", "build", "sub/gen", "keep.log"}

func TestSweepShellCommand(t *testing.T) {
	root, s := shellProject(t)
	before := tree(t, root, unswept...)
	turn, err := s.NewTurn(TurnMeta{Label: "one"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.SweepBefore(turn, TurnMeta{}, "sh -c 'edit all the things'")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Fresh || len(res.Changed) != 0 || res.Read != 10 {
		t.Fatalf("first sweep: %+v, want fresh, nothing changed, 10 files read", res)
	}
	shellCommand(t, root)
	res, err = s.SweepAfter(turn, TurnMeta{}, "sh -c 'edit all the things'")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".env", "a.txt", "b.txt", "c.txt", "link", "new/dir/created.txt", "src/deep/c-moved.txt", "src/run.sh"}
	if !slices.Equal(res.Changed, want) || res.Turn != turn {
		t.Fatalf("after: changed %v in %q, want %v in %q (%+v)", res.Changed, res.Turn, want, turn, res)
	}
	files, err := s.Files(string(turn), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Shell != "sh -c 'edit all the things'" {
			t.Errorf("%s: shell %q", f.Path, f.Shell)
		}
	}
	after := tree(t, root, unswept...)

	// A hand edit between turns lands in the baseline, in no turn; the
	// sweep reads only it once no entry is racy.
	ageBaseline(t, s)
	put(t, root, "src/deep/x.go", "package x // by hand\n", 0o644)
	turn2, _ := s.NewTurn(TurnMeta{Label: "two"})
	res, err = s.SweepBefore(turn2, TurnMeta{}, "true")
	if err != nil || len(res.Changed) != 0 || res.Read != 1 {
		t.Fatalf("sweep before turn 2: %+v, %v; want 1 file read, none recorded", res, err)
	}
	res, err = s.SweepAfter(turn2, TurnMeta{}, "true")
	if err != nil || len(res.Changed) != 0 {
		t.Fatalf("sweep after a command that changed nothing: %+v, %v", res, err)
	}
	withHand := tree(t, root, unswept...)
	_ = after

	p, err := s.PlanRewind(string(turn))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Apply(p, nil)
	if err != nil || len(r.Failed) > 0 {
		t.Fatalf("rewind: %+v, %v", r, err)
	}
	handBefore := maps(before, "src/deep/x.go", withHand["src/deep/x.go"])
	sameTree(t, "after rewinding the shell command's turn", handBefore, tree(t, root, unswept...))
	p, err = s.PlanUndo(false)
	if err != nil {
		t.Fatal(err)
	}
	if r, err = s.Apply(p, nil); err != nil || len(r.Failed) > 0 {
		t.Fatalf("undo: %+v, %v", r, err)
	}
	sameTree(t, "after undo", withHand, tree(t, root, unswept...))
}

// ageBaseline moves the baseline's time on past the racy window, as if
// the files had been written long before it.
func ageBaseline(t *testing.T, s *Store) {
	t.Helper()
	b, err := s.loadBaseline()
	if err != nil || b == nil {
		t.Fatalf("baseline: %v", err)
	}
	b.at += 2*racyWindow + int64(time.Second)
	if err := s.saveBaseline(b); err != nil {
		t.Fatal(err)
	}
}

func maps(m map[string]string, k, v string) map[string]string {
	out := map[string]string{}
	for a, b := range m {
		out[a] = b
	}
	out[k] = v
	return out
}

// TestSweepSameTurn: changes made after a command in the turn of the last
// sweep are the agent's (a background command), not hand edits: the next
// command's sweep after it records them.
func TestSweepSameTurn(t *testing.T) {
	root, s := shellProject(t)
	turn, _ := s.NewTurn(TurnMeta{Label: "one"})
	if _, err := s.SweepBefore(turn, TurnMeta{}, "npm run dev &"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepAfter(turn, TurnMeta{}, "npm run dev &"); err != nil {
		t.Fatal(err)
	}
	put(t, root, "a.txt", "written by the dev server\n", 0o644)
	res, err := s.SweepBefore(turn, TurnMeta{}, "ls")
	if err != nil || !res.Skipped || len(res.Changed) != 0 {
		t.Fatalf("before the next command of the turn: %+v, %v; want it skipped", res, err)
	}
	res, err = s.SweepAfter(turn, TurnMeta{}, "ls")
	if err != nil || !slices.Equal(res.Changed, []string{"a.txt"}) {
		t.Fatalf("%+v, %v", res, err)
	}
	files, _ := s.Files(string(turn), false)
	if len(files) != 1 || files[0].Shell != "ls" || files[0].Pre.SHA256 != blobIDOf([]byte("a\n")) {
		t.Fatalf("files %+v", files)
	}
	// A rewind in between makes the next command's sweep before it a
	// real one: what the rewind changed is no command's doing.
	p, _ := s.PlanRewind(string(turn))
	s.Apply(p, nil)
	res, err = s.SweepBefore(turn, TurnMeta{}, "ls")
	if err != nil || res.Skipped {
		t.Fatalf("after a rewind: %+v, %v", res, err)
	}
}

// TestSweepDamagedBaseline: a damaged or missing baseline costs reading
// every file, never a wrong pre-image.
func TestSweepDamagedBaseline(t *testing.T) {
	for _, damage := range []string{"flip", "truncate", "remove"} {
		t.Run(damage, func(t *testing.T) {
			root, s := shellProject(t)
			turn, _ := s.NewTurn(TurnMeta{Label: "one"})
			if _, err := s.SweepBefore(turn, TurnMeta{}, "x"); err != nil {
				t.Fatal(err)
			}
			bp := filepath.Join(root, ".osfoundry/checkpoints/baseline")
			data, _ := os.ReadFile(bp)
			switch damage {
			case "flip":
				data[len(data)/2] ^= 1
				os.WriteFile(bp, data, 0o600)
			case "truncate":
				os.WriteFile(bp, data[:len(data)-7], 0o600)
			case "remove":
				os.Remove(bp)
			}
			put(t, root, "a.txt", "changed\n", 0o644)
			res, err := s.SweepAfter(turn, TurnMeta{}, "x")
			if err != nil || !res.Fresh || len(res.Changed) != 0 || res.Read != 10 {
				t.Fatalf("%+v, %v; want a fresh sweep reading 10 files and recording nothing", res, err)
			}
			put(t, root, "b.txt", "changed\n", 0o644)
			res, err = s.SweepAfter(turn, TurnMeta{}, "y")
			if err != nil || !slices.Equal(res.Changed, []string{"b.txt"}) {
				t.Fatalf("next sweep: %+v, %v", res, err)
			}
			files, _ := s.Files(string(turn), false)
			if len(files) != 1 || files[0].Pre.SHA256 != blobIDOf([]byte("b\n")) {
				t.Fatalf("files %+v", files)
			}
		})
	}
}

func TestBaselineRoundTrip(t *testing.T) {
	b := &baseline{at: 1234567890123, turn: "7.2", cmd: "rm -rf \x1b[2J", ops: 4321, entries: []baseEntry{
		{path: "a", kind: baseDir, mode: 0o755},
		{path: "a/b", kind: baseFile, mode: 0o644, size: 3, mtime: 5, ctime: -6, ino: 7, sum: [32]byte{1, 2}},
		{path: "a/bc", kind: baseLink, mode: 0o777, size: 2, link: "b"},
		{path: "big", kind: baseSkipped, mode: 0o600, size: 1 << 40, sum: [32]byte{9}},
		{path: "x", kind: baseUnknown, mode: 0o000, size: 1},
	}, rules: map[string][]byte{".gitignore": []byte("build/\n"), "a/.ckptignore": []byte("*.tmp\n")}}
	data := b.encode()
	got, err := decodeBaseline(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.at != b.at || got.turn != b.turn || got.cmd != b.cmd || got.ops != b.ops || !slices.Equal(got.entries, b.entries) || !sameRules(got.rules, b.rules) {
		t.Fatalf("round trip:\n%+v\n%+v", got, b)
	}
	// Any single damaged byte or cut is refused, never a panic.
	for i := range data {
		d := bytes.Clone(data)
		d[i] ^= 0x41
		if _, err := decodeBaseline(d); err == nil {
			t.Fatalf("byte %d flipped: accepted", i)
		}
		if _, err := decodeBaseline(data[:i]); err == nil {
			t.Fatalf("cut at %d: accepted", i)
		}
	}
}

func TestSweepRacy(t *testing.T) {
	b := &baseline{at: 10 * racyWindow}
	if !b.racy(&baseEntry{kind: baseFile, mtime: 9 * racyWindow}) || b.racy(&baseEntry{kind: baseFile, mtime: 8*racyWindow - 1, ctime: 8*racyWindow - 1}) {
		t.Fatal("racy rule")
	}
	// A file rewritten with the same size and mtime right after a sweep
	// is still seen: its entry is racy, so it is hashed again.
	root, s := shellProject(t)
	turn, _ := s.NewTurn(TurnMeta{Label: "one"})
	s.SweepBefore(turn, TurnMeta{}, "x")
	p := filepath.Join(root, "a.txt")
	fi, _ := os.Stat(p)
	put(t, root, "a.txt", "A\n", 0o644)
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	res, err := s.SweepAfter(turn, TurnMeta{}, "x")
	if err != nil || !slices.Equal(res.Changed, []string{"a.txt"}) {
		t.Fatalf("%+v %v", res, err)
	}
}

// TestSweepPruneKeepsBaseline: prune drops every turn but keeps the blobs
// the baseline names, so the next command's pre-images are still there.
func TestSweepPruneKeepsBaseline(t *testing.T) {
	root, s := shellProject(t)
	turn, _ := s.NewTurn(TurnMeta{Label: "one"})
	if _, err := s.SweepBefore(turn, TurnMeta{}, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prune(PruneOptions{OlderThan: time.Nanosecond}); err != nil {
		t.Fatal(err)
	}
	turn, _ = s.NewTurn(TurnMeta{Label: "two"})
	s.SweepBefore(turn, TurnMeta{}, "rm a.txt")
	os.Remove(filepath.Join(root, "a.txt"))
	if _, err := s.SweepAfter(turn, TurnMeta{}, "rm a.txt"); err != nil {
		t.Fatal(err)
	}
	p, err := s.PlanRewind(string(turn))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Apply(p, nil); err != nil || len(r.Failed) > 0 {
		t.Fatalf("rewind after prune: %+v, %v", r, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "a\n" {
		t.Fatalf("a.txt holds %q", b)
	}
}

// TestWalkOrder checks that the walk lays paths out in byte order, which
// the sweep's merge with the baseline depends on, where a folder's name
// is a prefix of a sibling's ("a", "a.go", "a/b").
func TestWalkOrder(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a/b.c", "a/b/c", "a/b-/c", "a.go", "a-b/x", "a0", "A", "a b/x",
		"b/a.b/x", "b/a/x", "b/a.c", "b/a/b/c", "b/a!", ".x", "z/z/z/z", "z/z.z", "z.z/z"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, _, _, err := walkTree(root)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range got {
		paths = append(paths, e.path)
	}
	want := slices.Clone(paths)
	slices.Sort(want)
	if !slices.Equal(paths, want) {
		t.Errorf("walk order:\n got %q\nwant %q", paths, want)
	}
	if len(paths) != 30 {
		t.Errorf("walk listed %d paths, want 30: %q", len(paths), paths)
	}
}

// baselinePaths lists the paths in s's baseline.
func baselinePaths(t *testing.T, s *Store) []string {
	t.Helper()
	b, err := s.loadBaseline()
	if err != nil || b == nil {
		t.Fatalf("baseline: %v", err)
	}
	var out []string
	for _, e := range b.entries {
		out = append(out, e.path)
	}
	return out
}

// TestSweepFolderListing: a folder whose stat is what the baseline
// recorded takes its listing from the baseline; one whose times moved, or
// whose ignore file changed in place, is read again.
func TestSweepFolderListing(t *testing.T) {
	root := t.TempDir()
	fd, err := os.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	kept := dirTimesKept(int(fd.Fd()))
	fd.Close()
	if !kept {
		t.Skip("folder times are not trusted on this file system")
	}
	put(t, root, "c/x", "x", 0o644)
	put(t, root, "c/y", "y", 0o644)
	put(t, root, "d/.gitignore", "sub/\n", 0o644)
	put(t, root, "d/sub/f", "f", 0o644)
	s := openStore(t, root)
	turn, _ := s.NewTurn(TurnMeta{Label: "t"})
	if _, err := s.SweepBefore(turn, TurnMeta{}, "make"); err != nil {
		t.Fatal(err)
	}
	ageBaseline(t, s)
	// Take c/y out of the baseline: c is as it was, so its listing comes
	// from the baseline, and c/y stays unseen.
	b, _ := s.loadBaseline()
	b.entries = slices.DeleteFunc(b.entries, func(e baseEntry) bool { return e.path == "c/y" })
	if err := s.saveBaseline(b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "c", "x"), []byte("x2"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := s.SweepAfter(turn, TurnMeta{}, "make")
	if err != nil || !slices.Equal(res.Changed, []string{"c/x"}) {
		t.Fatalf("after: %+v, %v; want c/x changed", res, err)
	}
	if ps := baselinePaths(t, s); slices.Contains(ps, "c/y") || slices.Contains(ps, "d/sub") {
		t.Fatalf("baseline %q: c was read again, or d/sub not ignored", ps)
	}
	// An entry made in c moves its times: c is read again.
	time.Sleep(20 * time.Millisecond)
	ageBaseline(t, s)
	put(t, root, "c/z", "z", 0o644)
	res, err = s.SweepAfter(turn, TurnMeta{}, "make")
	if err != nil || !slices.Equal(res.Changed, []string{"c/y", "c/z"}) {
		t.Fatalf("after c/z: %+v, %v; want c/y and c/z", res, err)
	}
	// d/.gitignore stops ignoring sub/, rewritten in place: d's own
	// times stay, but its rules moved, so it is read again.
	ageBaseline(t, s)
	f, err := os.OpenFile(filepath.Join(root, "d", ".gitignore"), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("other/\n")
	f.Close()
	turn2, _ := s.NewTurn(TurnMeta{Label: "t2"})
	if _, err := s.SweepBefore(turn2, TurnMeta{}, "make"); err != nil {
		t.Fatal(err)
	}
	if ps := baselinePaths(t, s); !slices.Contains(ps, "d/sub/f") {
		t.Fatalf("baseline %q lacks d/sub/f, which d/.gitignore no longer ignores", ps)
	}
}

// TestBaselineCutUnderMapping: a baseline cut short while it is mapped
// is a damaged baseline, not a crash.
func TestBaselineCutUnderMapping(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	b := &baseline{at: 1}
	for i := range 2000 {
		b.entries = append(b.entries, baseEntry{path: fmt.Sprintf("f%05d", i), kind: baseFile, mode: 0o644})
	}
	if err := s.saveBaseline(b); err != nil {
		t.Fatal(err)
	}
	err := s.mapBaseline(func(data []byte) error {
		if err := os.Truncate(filepath.Join(root, storeDir, baselineFile), 0); err != nil {
			t.Fatal(err)
		}
		_, err := decodeBaseline(data)
		return err
	})
	if !errors.Is(err, errBadBaseline) {
		t.Fatalf("cut under the mapping: %v, want errBadBaseline", err)
	}
	if got, err := s.loadBaseline(); got != nil || err == nil {
		t.Fatalf("empty baseline: %v, %v; want none, damaged", got, err)
	}
}

// TestSweepRacyHashed: a racy file whose stat is unchanged is hashed;
// bytes other than the baseline's make it a change, read and kept, and
// the baseline's bytes leave it as it was.
func TestSweepRacyHashed(t *testing.T) {
	root, s := shellProject(t)
	t1, _ := s.NewTurn(TurnMeta{Label: "one"})
	if _, err := s.SweepBefore(t1, TurnMeta{}, "x"); err != nil {
		t.Fatal(err)
	}
	sumOf := func() BlobID {
		b, err := s.loadBaseline()
		if err != nil || b == nil {
			t.Fatalf("baseline: %v", err)
		}
		for _, e := range b.entries {
			if e.path == "a.txt" {
				return e.sum
			}
		}
		t.Fatal("no a.txt in the baseline")
		return BlobID{}
	}
	data, _ := os.ReadFile(filepath.Join(root, "a.txt"))
	want := BlobID(sha256.Sum256(data))
	if sumOf() != want {
		t.Fatal("first sweep: wrong hash")
	}
	// racy makes a.txt's entry racy, after set(e) on it: the baseline's
	// time goes back to the clock tick a.txt last changed in, as for a
	// sweep right after a write. Left to the wall clock, a.txt would not
	// be racy on a machine slower than the racy window between writing it
	// and the sweep.
	racy := func(set func(e *baseEntry)) {
		t.Helper()
		b, err := s.loadBaseline()
		if err != nil || b == nil {
			t.Fatalf("baseline: %v", err)
		}
		for i := range b.entries {
			if e := &b.entries[i]; e.path == "a.txt" {
				set(e)
				b.at = max(e.mtime, e.ctime)
			}
		}
		if err := s.saveBaseline(b); err != nil {
			t.Fatal(err)
		}
	}
	// The baseline says other bytes, with a.txt's stat: the next sweep
	// hashes it, finds the difference, and reads it.
	racy(func(e *baseEntry) { e.sum = BlobID{1} })
	t2, _ := s.NewTurn(TurnMeta{Label: "two"})
	if _, err := s.SweepBefore(t2, TurnMeta{}, "x"); err != nil {
		t.Fatal(err)
	}
	if sumOf() != want {
		t.Fatal("racy file with other bytes than the baseline's: not read again")
	}
	racy(func(*baseEntry) {})
	t3, _ := s.NewTurn(TurnMeta{Label: "three"})
	res, err := s.SweepBefore(t3, TurnMeta{}, "x")
	if err != nil || sumOf() != want || len(res.Problems) > 0 {
		t.Fatalf("racy file with the baseline's bytes: %+v, %v", res, err)
	}
}

// TestBaselineSavedInPieces: a baseline written in several pieces reads
// back as it was.
func TestBaselineSavedInPieces(t *testing.T) {
	s, err := Open(t.TempDir(), Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := &baseline{at: 7, turn: "3", cmd: "make", ops: 9, rules: map[string][]byte{".gitignore": []byte("out/\n")}}
	for i := range 10000 {
		b.entries = append(b.entries, baseEntry{path: fmt.Sprintf("d%03d/f%05d", i/100, i), kind: baseFile, mode: 0o644, size: int64(i), mtime: int64(i) << 20, ino: uint64(i), sum: BlobID{byte(i)}})
	}
	if err := s.saveBaseline(b); err != nil {
		t.Fatal(err)
	}
	got, err := s.loadBaseline()
	if err != nil || got == nil || !slices.Equal(got.entries, b.entries) || got.turn != "3" || got.ops != 9 || !sameRules(got.rules, b.rules) {
		t.Fatalf("read back: %v", err)
	}
	if data := b.encode(); len(data) < 128<<10 {
		t.Fatalf("%d bytes: not several pieces", len(data))
	}
}
