package store

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// tempRoot is a fresh project folder, its path resolved through links
// (the temporary folder is behind one on macOS), so the paths the store
// reports compare equal to it.
func tempRoot(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return root
}

// openStore opens or creates the store in root, closed when t ends.
func openStore(t *testing.T, root string) *Store {
	t.Helper()
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func rd(t *testing.T, root, p string) string {
	b, err := os.ReadFile(filepath.Join(root, p))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}
func wr(t testing.TB, root, p, s string) {
	os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
	if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// apply is the result of applying p, planned with err.
func apply(t *testing.T, s *Store, p *Plan, err error) *Result {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Apply(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// rewind plans and applies a rewind to before turn id.
func rewind(t *testing.T, s *Store, id string) *Result {
	t.Helper()
	p, err := s.PlanRewind(id)
	return apply(t, s, p, err)
}

// undo plans and applies an undo of the last operation.
func undo(t *testing.T, s *Store) *Result {
	t.Helper()
	p, err := s.PlanUndo(false)
	return apply(t, s, p, err)
}

// redo plans and applies a redo of the last undone operation.
func redo(t *testing.T, s *Store) *Result {
	t.Helper()
	p, err := s.PlanRedo(false)
	return apply(t, s, p, err)
}

// editIn is an edit tool's write in turn: the capture before it, the
// write, the seal after it.
func editIn(t *testing.T, s *Store, root string, turn TurnID, rel, data string) {
	t.Helper()
	if _, err := s.Capture(turn, TurnMeta{}, []string{root + "/" + rel}); err != nil {
		t.Fatal(err)
	}
	put(t, root, rel, data, 0o644)
	if err := s.Seal(turn, []string{root + "/" + rel}); err != nil {
		t.Fatal(err)
	}
}

// commandIn is a whole shell command of turn: the sweep before it, run
// (nil for a command that changes nothing), the sweep after it.
func commandIn(t *testing.T, s *Store, turn TurnID, cmd string, run func()) {
	t.Helper()
	if _, err := s.SweepBefore(turn, TurnMeta{}, cmd); err != nil {
		t.Fatal(err)
	}
	if run != nil {
		run()
	}
	if _, err := s.SweepAfter(turn, TurnMeta{}, cmd); err != nil {
		t.Fatal(err)
	}
}

// commandTurn is a new turn of s (labelled label) running one shell
// command, run; before and after are the folder before and after it.
func commandTurn(t *testing.T, s *Store, label string, run func()) (turn TurnID, before, after map[string]string) {
	t.Helper()
	turn, err := s.NewTurn(TurnMeta{Label: label})
	if err != nil {
		t.Fatal(err)
	}
	commandIn(t, s, turn, "cmd", func() {
		before = tree(t, s.Root())
		run()
	})
	return turn, before, tree(t, s.Root())
}

// rewindUndoRedo rewinds turn, undoes the rewind and redoes it, none of
// them failing a path, and wants the folder as before the turn, as after
// it, and as before it again. With afresh the redo is a store's opened
// after the undo, whose reading of the records must say the same.
func rewindUndoRedo(t *testing.T, s *Store, turn TurnID, before, after map[string]string, afresh bool) {
	t.Helper()
	root := s.Root()
	if r := rewind(t, s, string(turn)); len(r.Failed) > 0 {
		t.Fatalf("rewind: %+v", r)
	}
	sameTree(t, "after the rewind", before, tree(t, root))
	if r := undo(t, s); len(r.Failed) > 0 {
		t.Fatalf("undo: %+v", r)
	}
	sameTree(t, "after the undo", after, tree(t, root))
	if afresh {
		s = openStore(t, root)
	}
	if r := redo(t, s); len(r.Failed) > 0 {
		t.Fatalf("redo: %+v", r)
	}
	sameTree(t, "after the redo", before, tree(t, root))
}

// folderInTheWay moves the file rel aside and puts a folder, not empty,
// in its place, so an operation writing rel fails it; clear puts the
// file back.
func folderInTheWay(t *testing.T, root, rel string) (clear func()) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.Rename(p, p+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p, "in the way"), 0o755); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p+".away", p); err != nil {
			t.Fatal(err)
		}
	}
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

// twoTurns is a store with files (each "<name> before") in a warm
// baseline, as after an earlier turn, and two sessions' turns, A (claude,
// the older) and B (codex), with nothing running; before is the folder
// then.
func twoTurns(t *testing.T, files ...string) (root string, s *Store, a, b TurnID, before map[string]string) {
	t.Helper()
	root = tempRoot(t)
	for _, p := range files {
		put(t, root, p, p+" before\n", 0o644)
	}
	s = openStore(t, root)
	if _, err := s.SweepBefore("0", TurnMeta{}, "true"); err != nil {
		t.Fatal(err)
	}
	if err := s.EndTurn("0"); err != nil {
		t.Fatal(err)
	}
	before = tree(t, root)
	a, _ = s.NewTurn(TurnMeta{Label: "A", Source: &Source{Agent: "claude", Session: "sa"}})
	b, _ = s.NewTurn(TurnMeta{Label: "B", Source: &Source{Agent: "codex", Session: "sb"}})
	return root, s, a, b, before
}

// twoRunning sets two agents to work in one folder: x.txt, y.txt and
// z.txt in a warm baseline, as after an earlier turn; turns A (claude)
// and B (codex) open; A's command "make gen" started and still running,
// having written x.txt. before is the folder before that write.
func twoRunning(t *testing.T) (root string, s *Store, a, b TurnID, before map[string]string) {
	t.Helper()
	root, s, a, b, before = twoTurns(t, "x.txt", "y.txt", "z.txt")
	if _, err := s.SweepBefore(a, TurnMeta{}, "make gen"); err != nil {
		t.Fatal(err)
	}
	put(t, root, "x.txt", "x by A's running command\n", 0o644)
	return root, s, a, b, before
}
