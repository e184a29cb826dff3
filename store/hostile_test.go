package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// appendRaw appends records to a turn file as a hostile or hand-made
// store might hold them.
func appendRaw(t *testing.T, root, turn string, recs ...record) {
	t.Helper()
	var buf []byte
	for i := range recs {
		buf = appendRecord(buf, &recs[i])
	}
	f, err := os.OpenFile(filepath.Join(root, storeDir, turnFileName(turn)), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(buf); err != nil {
		t.Fatal(err)
	}
}

// Records naming "../x" (or an absolute path, or the store) are reported
// by verify, shown as refused (not "modified"), and failed by a rewind
// without touching anything outside the root.
func TestHostileRecordPaths(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "proj")
	wr(t, parent, "x", "outside")
	wr(t, root, "a.txt", "A0")
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Write("1", TurnMeta{}, filepath.Join(root, "a.txt"), []byte("A1")); err != nil {
		t.Fatal(err)
	}
	absent := &Image{Kind: ImageAbsent}
	appendRaw(t, root, "1",
		record{R: "pre", Path: "../x", Img: absent, N: 1},
		record{R: "pre", Path: filepath.Join(parent, "x"), Img: absent, N: 1},
		record{R: "pre", Path: ".osfoundry/checkpoints/lock", Img: absent, N: 1},
		record{R: "pre", Path: "sub/../../x", Img: absent, N: 1})
	fs, err := s.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 4 {
		t.Fatalf("verify found %+v, want the four records", fs)
	}
	for _, f := range fs {
		if !strings.Contains(f.Reason, "refused") {
			t.Errorf("finding %+v", f)
		}
	}
	files, err := s.Files("1", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 5 {
		t.Fatalf("files %+v", files)
	}
	for _, f := range files[1:] {
		if f.Status != StatusRefused {
			t.Errorf("%q: status %q, want refused", f.Path, f.Status)
		}
	}
	r := rewind(t, s, "1")
	if len(r.Failed) != 4 {
		t.Errorf("rewind failed %+v", r.Failed)
	}
	for _, f := range r.Failed {
		// The reason the plan gave, not one made up from an empty image.
		if !strings.Contains(f.Reason, "refused") {
			t.Errorf("rewind failed %q: %q, want the refusal", f.Path, f.Reason)
		}
	}
	if rd(t, parent, "x") != "outside" || rd(t, root, "a.txt") != "A0" {
		t.Fatalf("x=%q a=%q", rd(t, parent, "x"), rd(t, root, "a.txt"))
	}
}

// Records for "b.txt" and "./b.txt" are one path: the first capture wins,
// and a rewind has one step for it.
func TestRecordPathsCleaned(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "b.txt", "B0")
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Write("1", TurnMeta{}, filepath.Join(root, "b.txt"), []byte("B1")); err != nil {
		t.Fatal(err)
	}
	appendRaw(t, root, "1",
		record{R: "pre", Path: "./b.txt", Img: &Image{Kind: ImageAbsent}, N: 1},
		record{R: "pre", Path: "c//d/./e.txt", Img: &Image{Kind: ImageAbsent}, N: 1})
	files, err := s.Files("1", false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if strings.Join(got, " ") != "b.txt c/d/e.txt" {
		t.Fatalf("paths %q", got)
	}
	p, err := s.PlanRewind("1")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, st := range p.Steps {
		if st.Path == "b.txt" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d steps for b.txt: %+v", n, p.Steps)
	}
	rewind(t, s, "1")
	if rd(t, root, "b.txt") != "B0" {
		t.Fatalf("b.txt = %q", rd(t, root, "b.txt"))
	}
}
