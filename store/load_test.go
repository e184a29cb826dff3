package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
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
