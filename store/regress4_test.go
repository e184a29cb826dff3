package store

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRegressFileReplacedByFolder(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "x", "X0")
	s, _ := Open(root, Options{Create: true})
	if _, err := s.Remove("1", TurnMeta{}, []string{filepath.Join(root, "x")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("1", TurnMeta{}, filepath.Join(root, "x/y"), []byte("Y")); err != nil {
		t.Fatal(err)
	}
	p, err := s.PlanRewind("1")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range p.Steps {
		t.Logf("step %s %s %q", st.Path, st.Do, st.Reason)
	}
	r, err := s.Apply(p, nil)
	t.Logf("%+v err=%v", r, err)
	if err != nil || rd(t, root, "x") != "X0" {
		t.Errorf("x not restored: %q", rd(t, root, "x"))
	}
	_ = os.Remove
}
