package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

func TestTornOpsLog(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	s, _ := Open(root, Options{Create: true})
	s.Write("1", TurnMeta{}, filepath.Join(root, "a.txt"), []byte("A1"))
	rewind(t, s, "1")
	// torn tail on ops.log
	f, _ := os.OpenFile(filepath.Join(root, storeDir, "ops.log"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`1234abcd {"r":"op","id":"op-`)
	f.Close()
	s2, _ := Open(root, Options{})
	p, err := s2.PlanUndo(false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s2.Apply(p, nil)
	t.Logf("undo: %+v %v; a=%q", r, err, rd(t, root, "a.txt"))
	s3, _ := Open(root, Options{})
	log, _ := s3.Log(false)
	for _, e := range log {
		t.Logf("log %s %s %s", e.ID, e.Kind, e.State)
	}
	if _, err := s3.PlanRedo(false); err != nil {
		t.Errorf("redo after undo over a torn ops.log: %v (a=%q)", err, rd(t, root, "a.txt"))
	}
	fs, _ := s3.Verify()
	t.Logf("verify: %+v", fs)
}

func TestSeedRelativeThroughLink(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	s, _ := Open(root, Options{Create: true})
	s.Write("1", TurnMeta{}, filepath.Join(root, "a.txt"), []byte("A1"))
	rewind(t, s, "1")
	s.Close()
	os.Symlink(".osfoundry", filepath.Join(root, "lnk"))
	idx := `[{"turn": 9, "label": "hostile", "at": 1, "files": [{"path": "lnk/checkpoints/ops.log", "pre": {"kind": "absent"}}]}]`
	os.WriteFile(filepath.Join(root, storeDir, "index.json"), []byte(idx), 0o600)
	s2, _ := Open(root, Options{})
	p, err := s2.PlanRewind("9")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range p.Steps {
		t.Logf("step %s %s %s", st.Path, st.Do, st.Reason)
	}
	r, err := s2.Apply(p, nil)
	t.Logf("%+v %v", r, err)
	b, _ := os.ReadFile(filepath.Join(root, storeDir, "ops.log"))
	t.Logf("ops.log now: %s", b)
}

// A seed index lists its turns oldest first; their "at" may not agree (a
// clock stepped back, or no "at" at all). The array's order is the turns'
// order: the log follows it, and rewinding a turn undoes it and the turns
// after it in the array, never one before it.
func TestSeedOrderIsTheArrays(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a", "b", "c"} {
		wr(t, root, f, f)
	}
	if err := os.MkdirAll(filepath.Join(root, storeDir), 0o700); err != nil {
		t.Fatal(err)
	}
	idx := `[{"turn": 1, "at": 300, "files": [{"path": "a", "pre": {"kind": "absent"}}]},
	 {"turn": 2, "files": [{"path": "b", "pre": {"kind": "absent"}}]},
	 {"turn": 3, "at": 200, "files": [{"path": "c", "pre": {"kind": "absent"}}]}]`
	if err := os.WriteFile(filepath.Join(root, storeDir, "index.json"), []byte(idx), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	log, err := s.Log(false)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range log {
		ids = append(ids, e.ID)
	}
	if fmt.Sprint(ids) != "[3 2 1]" {
		t.Errorf("log order %v, want [3 2 1]", ids)
	}
	p, err := s.PlanRewind("2")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(p.Turns) != "[2 3]" {
		t.Errorf("rewind 2 undoes %v, want [2 3]", p.Turns)
	}
}

// appendRaw appends records to a turn file as a hostile or hand-made
// store might hold them.
func appendRaw(t *testing.T, root, turn string, recs ...record.Line) {
	t.Helper()
	var buf []byte
	for i := range recs {
		buf = record.Append(buf, &recs[i])
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
	s := openStore(t, root)
	if _, err := s.Write("1", TurnMeta{}, filepath.Join(root, "a.txt"), []byte("A1")); err != nil {
		t.Fatal(err)
	}
	absent := &Image{Kind: ImageAbsent}
	appendRaw(t, root, "1",
		record.Line{R: "pre", File: record.File{Path: "../x", Img: absent}, N: 1},
		record.Line{R: "pre", File: record.File{Path: filepath.Join(parent, "x"), Img: absent}, N: 1},
		record.Line{R: "pre", File: record.File{Path: ".osfoundry/checkpoints/lock", Img: absent}, N: 1},
		record.Line{R: "pre", File: record.File{Path: "sub/../../x", Img: absent}, N: 1})
	fs, err := s.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 4 {
		t.Fatalf("verify found %+v, want the four records", fs)
	}
	for _, f := range fs {
		if f.Kind != FindBadPath || !strings.Contains(f.Detail, "refused") {
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
	s := openStore(t, root)
	if _, err := s.Write("1", TurnMeta{}, filepath.Join(root, "b.txt"), []byte("B1")); err != nil {
		t.Fatal(err)
	}
	appendRaw(t, root, "1",
		record.Line{R: "pre", File: record.File{Path: "./b.txt", Img: &Image{Kind: ImageAbsent}}, N: 1},
		record.Line{R: "pre", File: record.File{Path: "c//d/./e.txt", Img: &Image{Kind: ImageAbsent}}, N: 1})
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
