package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// One path under a symlink loop must not cost the others in its batch:
// each path stands alone, and the bad one is named in the error.
func TestBatchBadPathKeepsOthers(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	wr(t, root, "c.txt", "C0")
	if err := os.Symlink("loop", filepath.Join(root, "loop")); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	paths := []string{filepath.Join(root, "a.txt"), filepath.Join(root, "loop/x.txt"), filepath.Join(root, "c.txt")}
	id, err := s.Capture("1", TurnMeta{}, paths)
	var be *BatchError
	if !errors.As(err, &be) || len(be.Paths) != 1 || be.Paths[0].Path != "loop/x.txt" {
		t.Fatalf("capture: id %q, err %v; want a batch error naming loop/x.txt alone", id, err)
	}
	if id != "1" {
		t.Fatalf("capture returned turn %q", id)
	}
	wr(t, root, "a.txt", "A1")
	wr(t, root, "c.txt", "C1")
	err = s.Seal("1", paths)
	if !errors.As(err, &be) || len(be.Paths) != 1 {
		t.Fatalf("seal: %v", err)
	}
	files, err := s.Files("1", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Path != "a.txt" || files[1].Path != "c.txt" || files[0].Post == nil || files[1].Post == nil {
		t.Fatalf("turn holds %+v, want a.txt and c.txt sealed", files)
	}
	rewind(t, s, "1")
	if rd(t, root, "a.txt") != "A0" || rd(t, root, "c.txt") != "C0" {
		t.Fatalf("rewind gave a=%q c=%q", rd(t, root, "a.txt"), rd(t, root, "c.txt"))
	}
}

// A batch whose every path fails starts no turn.
func TestBatchAllBadStartsNoTurn(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Capture("1", TurnMeta{}, []string{filepath.Join(root, "dir"), "/elsewhere/x"}); err == nil {
		t.Fatal("capture of a folder and an outside path succeeded")
	}
	log, err := s.Log(false)
	if err != nil || len(log) != 0 {
		t.Fatalf("log %+v, %v; want empty", log, err)
	}
}

// rm removes and seals the paths it could capture, and names the others.
func TestBatchRemove(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	if err := os.Symlink("loop", filepath.Join(root, "loop")); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Remove("1", TurnMeta{}, []string{filepath.Join(root, "loop/x"), filepath.Join(root, "a.txt")})
	var be *BatchError
	if !errors.As(err, &be) || len(be.Paths) != 1 {
		t.Fatalf("rm: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(root, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("a.txt not removed: %v", err)
	}
	rewind(t, s, "1")
	if rd(t, root, "a.txt") != "A0" {
		t.Fatalf("a.txt = %q after rewind", rd(t, root, "a.txt"))
	}
}
