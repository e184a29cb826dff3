package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestRegressSeedRelativeThroughLink(t *testing.T) {
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

func TestRegressWatchRace(t *testing.T) {
	root := t.TempDir()
	s, _ := Open(root, Options{Create: true})
	for i := 0; i < 50; i++ {
		wr(t, root, fmt.Sprintf("f%d", i), "x")
	}
	s.Capture("1", TurnMeta{}, []string{filepath.Join(root, "f0")})
	s.Log(false)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 1; i < 50; i++ {
			s.Capture("1", TurnMeta{}, []string{filepath.Join(root, fmt.Sprintf("f%d", i))})
			s.Log(false)
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 50; i++ {
			s.WatchTargets()
		}
	}()
	wg.Wait()
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
