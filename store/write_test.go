package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file name that is not valid UTF-8 is kept as bytes: a rewind restores
// that very file, and never creates one with U+FFFD in its name.
func TestNonUTF8Names(t *testing.T) {
	root := t.TempDir()
	bad := "bad\xffname.txt"
	dir := "new\xfe"
	wr(t, root, bad, "B0")
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("1", TurnMeta{}, filepath.Join(root, bad), []byte("B1")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("1", TurnMeta{}, filepath.Join(root, dir, "f"), []byte("F1")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Capture("1", TurnMeta{}, []string{filepath.Join(root, "link")}); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("to\xfd", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := s.Seal("1", []string{filepath.Join(root, "link")}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Read back from disk, not from the cache of the store that wrote it.
	if s, err = Open(root, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	files, err := s.Files("1", true)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
		if f.Status != StatusModified && f.Status != StatusCreated {
			t.Errorf("%q: status %q", f.Path, f.Status)
		}
	}
	if strings.Join(got, "|") != bad+"|"+dir+"/f|link" {
		t.Fatalf("paths %q", got)
	}
	if p := rewindPost(t, s, "1"); p.Post == nil || p.Post.Link != "to\xfd" {
		t.Fatalf("the link's target is %+v", p.Post)
	}
	rewind(t, s, "1")
	if rd(t, root, bad) != "B0" {
		t.Fatalf("%q holds %q after the rewind", bad, rd(t, root, bad))
	}
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if strings.Contains(e.Name(), "\uFFFD") || e.Name() == dir || e.Name() == "link" {
			t.Errorf("the rewind left %q", e.Name())
		}
	}
	if fs, err := s.Verify(); err != nil || len(fs) != 0 {
		t.Fatalf("verify: %v %v", fs, err)
	}
	// Undo puts back the agent's bytes under the same names.
	undo(t, s)
	if rd(t, root, bad) != "B1" || rd(t, root, dir+"/f") != "F1" {
		t.Fatalf("after undo: %q %q", rd(t, root, bad), rd(t, root, dir+"/f"))
	}
	if l, err := os.Readlink(filepath.Join(root, "link")); err != nil || l != "to\xfd" {
		t.Fatalf("link after undo: %q %v", l, err)
	}
}

func rewindPost(t *testing.T, s *Store, turn string) File {
	t.Helper()
	files, err := s.Files(turn, false)
	if err != nil {
		t.Fatal(err)
	}
	return files[len(files)-1]
}
