package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
	s := openStore(t, root)
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
	s := openStore(t, root)
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
	s := openStore(t, root)
	_, err := s.Remove("1", TurnMeta{}, []string{filepath.Join(root, "loop/x"), filepath.Join(root, "a.txt")})
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

// TestBulkCaptureOddPaths: among the plain files of a batch, every path
// that is not one is captured as the careful, one-at-a-time read sees it
// (a link as a link, a missing path as absent, a FIFO refused without
// waiting on it), and the plain files keep their bytes and modes.
func TestBulkCaptureOddPaths(t *testing.T) {
	root := t.TempDir()
	var paths []string
	for i := range 40 {
		p := fmt.Sprintf("d%d/f%02d.txt", i%4, i)
		wr(t, root, p, strings.Repeat(fmt.Sprintf("line %d\n", i), i*40))
		paths = append(paths, p)
	}
	wr(t, root, "top.txt", "at the root")
	for _, p := range []string{"d0/same.txt", "d1/same.txt", "d2/same.txt"} {
		wr(t, root, p, strings.Repeat("the same bytes\n", 100))
		paths = append(paths, p)
	}
	wr(t, root, "real/inner.txt", "behind a linked folder")
	if err := os.Chmod(filepath.Join(root, "d1/f01.txt"), 0o751); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("f00.txt", filepath.Join(root, "d0/link.txt")))
	must(os.Symlink("../real", filepath.Join(root, "d2/linkdir")))
	must(syscall.Mkfifo(filepath.Join(root, "d3/fifo"), 0o600))
	odd := []string{"top.txt", "d0/link.txt", "d2/linkdir", "d2/linkdir/inner.txt", "d3/fifo", "d1", "gone.txt", "d9/new/gone.txt"}
	paths = append(paths, odd...)

	s := openStore(t, root)
	want := map[string]Image{}
	for _, p := range paths {
		img, _, err := s.ReadDisk(p)
		if err != nil {
			t.Fatalf("ReadDisk %s: %v", p, err)
		}
		want[p] = img
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Capture("1", TurnMeta{}, paths)
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		// Not a timing assertion: a hang is the failure.
		t.Fatal("the capture hung")
	}
	var be *BatchError
	if !errors.As(err, &be) {
		t.Fatalf("capture: %v, want a batch error for the FIFO and the folder", err)
	}
	refused := map[string]bool{}
	for _, pe := range be.Paths {
		refused[pe.Path] = true
	}
	if len(refused) != 2 || !refused["d3/fifo"] || !refused["d1"] {
		t.Fatalf("refused %v, want d3/fifo and d1", be.Paths)
	}
	files, err := s.Files("1", false)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Image{}
	for _, f := range files {
		got[f.Path] = f.Pre
	}
	for _, p := range paths {
		if refused[p] {
			continue
		}
		rel, err := s.Rel(p) // a path through a linked folder is kept as its target
		if err != nil {
			t.Fatal(err)
		}
		w, g := want[p], got[rel]
		if g.Kind != w.Kind || g.SHA256 != w.SHA256 || g.Size != w.Size || g.Mode != w.Mode || g.Link != w.Link {
			t.Errorf("%s captured as %+v, read alone as %+v", p, g, w)
		}
		if g.Kind == ImageContent {
			data, err := s.readBlobOf(g)
			if b, _ := os.ReadFile(filepath.Join(root, rel)); err != nil || string(data) != string(b) {
				t.Errorf("%s: blob %d bytes (%v), file %d", p, len(data), err, len(b))
			}
		}
	}
}
