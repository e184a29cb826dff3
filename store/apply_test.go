package store

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestApplyIgnoresPendingOp(t *testing.T) {
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

func TestHardlinkEscape(t *testing.T) {
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

func TestReadOnlyRestore(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "gen.txt", "G0")
	s, _ := Open(root, Options{Create: true})
	s.Capture("1", TurnMeta{}, []string{filepath.Join(root, "gen.txt")})
	os.WriteFile(filepath.Join(root, "gen.txt"), []byte("G1"), 0o644)
	os.Chmod(filepath.Join(root, "gen.txt"), 0o444)
	s.Seal("1", []string{filepath.Join(root, "gen.txt")})
	r := rewind(t, s, "1")
	if len(r.Failed) > 0 || rd(t, root, "gen.txt") != "G0" {
		t.Errorf("read-only file not restored: %+v now %q", r.Failed, rd(t, root, "gen.txt"))
	}
}

func TestFileReplacedByFolder(t *testing.T) {
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

// TestUndoLeavesFoldersOfAFailedStep: a rewind's write into a missing
// folder failed, so the rewind made no folder; a later turn made that
// folder and left it empty. Undoing the rewind leaves the folder alone.
func TestUndoLeavesFoldersOfAFailedStep(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	wr(t, root, "d/e/c.sh", "C0")
	s := openStore(t, root)
	agentTurn(t, s, "1", map[string]string{"a.txt": "A1", "d/e/c.sh": ""})
	os.RemoveAll(filepath.Join(root, "d"))

	SetRestoreFault(s, func(p string) error {
		if p == "d/e/c.sh" {
			return syscall.ENOSPC
		}
		return nil
	})
	r := rewind(t, s, "1")
	SetRestoreFault(s, nil)
	if len(r.Failed) != 1 || r.Failed[0].Path != "d/e/c.sh" || rd(t, root, "a.txt") != "A0" {
		t.Fatalf("rewind %+v", r)
	}
	if _, err := os.Lstat(filepath.Join(root, "d")); !os.IsNotExist(err) {
		t.Fatalf("d after the failed write: %v", err)
	}

	agentTurn(t, s, "2", map[string]string{"a.txt": "A2", "d/x.txt": "X"})
	agentTurn(t, s, "3", map[string]string{"d/x.txt": ""})

	u, err := s.PlanUndo(true)
	if r := apply(t, s, u, err); len(r.Failed) != 0 {
		t.Fatalf("undo %+v", r)
	}
	if rd(t, root, "a.txt") != "A1" {
		t.Fatalf("a.txt %q after the undo, want A1", rd(t, root, "a.txt"))
	}
	if fi, err := os.Lstat(filepath.Join(root, "d")); err != nil || !fi.IsDir() {
		t.Fatalf("d, made by turn 2, is gone after undoing the rewind: %v", err)
	}
}
