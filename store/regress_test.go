package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func rd(t *testing.T, root, p string) string {
	b, err := os.ReadFile(filepath.Join(root, p))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}
func wr(t *testing.T, root, p, s string) {
	os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
	if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
func rewind(t *testing.T, s *Store, id string) *Result {
	p, err := s.PlanRewind(id)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Apply(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// stripLastDone removes the final "done" line of ops.log: the state a kill
// between the op record and the done record leaves.
func stripLastDone(t *testing.T, root string) {
	f := filepath.Join(root, storeDir, "ops.log")
	b, _ := os.ReadFile(f)
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines = lines[:len(lines)-1] // trailing empty
	last := lines[len(lines)-1]
	if !bytes.Contains(last, []byte(`"r":"done"`)) {
		t.Fatalf("last line not done: %s", last)
	}
	os.WriteFile(f, bytes.Join(lines[:len(lines)-1], nil), 0o600)
}

func TestRegressApplyIgnoresPendingOp(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	wr(t, root, "b.txt", "B0")
	wr(t, root, "c.txt", "C0")
	ui, err := Open(root, Options{Create: true}) // long-lived UI store
	if err != nil {
		t.Fatal(err)
	}
	ui.Write("1", TurnMeta{}, filepath.Join(root, "a.txt"), []byte("A1"))
	ui.Write("2", TurnMeta{}, filepath.Join(root, "b.txt"), []byte("B1"))
	ui.Write("3", TurnMeta{}, filepath.Join(root, "c.txt"), []byte("C1"))
	// another process: rewind 2 (b,c -> B0,C0), killed after op logged and b restored but before c and done.
	cli, _ := Open(root, Options{})
	rewind(t, cli, "2")
	cli.Close()
	stripLastDone(t, root)
	wr(t, root, "c.txt", "C1") // c not yet restored when killed
	// The UI (already open) asks to rewind turn 3. Apply first finishes
	// op-1, which already rewound turn 3: the UI's rewind is refused.
	p, err := ui.PlanRewind("3")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ui.Apply(p, nil); !errors.Is(err, ErrRewound) {
		t.Fatalf("rewind 3 over an interrupted op-1 that rewound it: %v, want ErrRewound", err)
	}
	if got := rd(t, root, "c.txt"); got != "C0" {
		t.Fatalf("op-1 was not finished before the next operation: c.txt = %q", got)
	}
	t.Logf("after: a=%q b=%q c=%q", rd(t, root, "a.txt"), rd(t, root, "b.txt"), rd(t, root, "c.txt"))
	// A fresh Open must recover op-1
	notes := []string{}
	s3, err := Open(root, Options{Notify: func(m string) { notes = append(notes, m) }})
	if err != nil {
		t.Fatal(err)
	}
	log, _ := s3.Log(false)
	for _, e := range log {
		t.Logf("log %s %s %s turns=%v", e.ID, e.Kind, e.State, e.Turns)
	}
	t.Logf("recovery notes on reopen: %v", notes)
	ops, _ := s3.readOps()
	for _, o := range ops {
		t.Logf("op %s done=%v", o.id, o.done)
	}
	// user works on b.
	wr(t, root, "b.txt", "B-user-work")
	// Later a rewind of turn 1 (a only) is killed before done
	rewind(t, s3, "1")
	stripLastDone(t, root)
	s4, _ := Open(root, Options{Notify: func(m string) { t.Logf("notify: %s", m) }})
	_ = s4
	t.Logf("after recovery: a=%q b=%q c=%q", rd(t, root, "a.txt"), rd(t, root, "b.txt"), rd(t, root, "c.txt"))
	if rd(t, root, "b.txt") != "B-user-work" {
		t.Errorf("user's b.txt clobbered by re-running stale op-1: %q", rd(t, root, "b.txt"))
	}
}

func TestRegressTornOpsLog(t *testing.T) {
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

func TestRegressHardlinkEscape(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "proj")
	os.Mkdir(root, 0o755)
	outside := filepath.Join(top, "secret.txt")
	os.WriteFile(outside, []byte("OUTSIDE"), 0o644)
	wr(t, root, "notes.txt", "N0")
	s, _ := Open(root, Options{Create: true})
	s.Capture("1", TurnMeta{}, []string{filepath.Join(root, "notes.txt")})
	os.Remove(filepath.Join(root, "notes.txt"))
	os.Link(outside, filepath.Join(root, "notes.txt"))
	s.Seal("1", []string{filepath.Join(root, "notes.txt")})
	rewind(t, s, "1")
	b, _ := os.ReadFile(outside)
	if string(b) != "OUTSIDE" {
		t.Errorf("rewind wrote through a hard link to a file outside the root: %s now holds %q", outside, b)
	}
}

func TestRegressNewerTurnByWriteTime(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	wr(t, root, "x.txt", "X0")
	s, _ := Open(root, Options{Create: true})
	s.Write("old", TurnMeta{}, filepath.Join(root, "x.txt"), []byte("X1")) // older session's turn, stays active
	s.Write("1", TurnMeta{}, filepath.Join(root, "a.txt"), []byte("A1"))
	rewind(t, s, "1")                                                                  // a -> A0
	s.Write("old", TurnMeta{}, filepath.Join(root, "a.txt"), []byte("A-after-rewind")) // older turn writes a after the rewind
	_, err := s.PlanUndo(false)
	if err == nil || !strings.Contains(err.Error(), "old") {
		t.Errorf("undo not refused though turn old wrote a.txt after the rewind: %v", err)
	}
}
