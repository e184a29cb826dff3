package store

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Undo of a rewind that deleted a sparse file writes it back with its
// holes: it takes the room it took, not its whole length.
func TestSparseFileComesBackSparse(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "disk.img")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	const size = 64 << 20
	f.WriteAt([]byte("header"), 0)
	f.WriteAt([]byte("middle"), size/2)
	f.Truncate(size)
	f.Close()
	blocks := func() int64 {
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			t.Fatal(err)
		}
		return st.Blocks * 512
	}
	if blocks() > 1<<20 {
		t.Skip("this file system keeps no holes")
	}
	want, _ := os.ReadFile(p)
	s, err := Open(root, Options{Create: true, MaxBlob: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The agent made it; the rewind deletes it; the undo gives it back.
	if _, err := s.Capture("1", TurnMeta{}, []string{"new.txt"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "new.txt"), []byte("n"), 0o644)
	if _, err := s.Capture("2", TurnMeta{}, []string{"disk.img"}); err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	rewind(t, s, "2")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the rewind did not bring disk.img back: %v", err)
	}
	if got := blocks(); got > 1<<20 {
		t.Fatalf("disk.img came back taking %d bytes of %d: written dense", got, size)
	}
	got, _ := os.ReadFile(p)
	if string(got) != string(want) {
		t.Fatal("disk.img came back with other bytes")
	}
}

// A small sparse file (held in memory as it is written back, here over
// the agent's bytes) keeps its holes too.
func TestSmallSparseFileComesBackSparse(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "small.img")
	const size = 256 << 10
	write := func() {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteAt([]byte("header"), 0)
		f.WriteAt([]byte("tail"), size-4)
		f.Close()
	}
	used := func() int64 {
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			t.Fatal(err)
		}
		return st.Blocks * 512
	}
	write()
	if used() > size/2 {
		t.Skip("this file system keeps no holes")
	}
	want, _ := os.ReadFile(p)
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Capture("1", TurnMeta{}, []string{"small.img"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte("the agent's\n"), 0o644)
	rewind(t, s, "1")
	if got, _ := os.ReadFile(p); string(got) != string(want) {
		t.Fatal("small.img came back with other bytes")
	}
	if got := used(); got > size/2 {
		t.Fatalf("after the rewind small.img takes %d bytes of its %d: written dense", got, size)
	}
}
