package store

import (
	"path/filepath"
	"testing"
)

// TestRevertInPartUndoRedo: a revert that left a file in conflict stays a
// revert in part through its undo and redo (the redo puts back what the
// revert took out, not the file it left), so the turn is active, not
// reverted; retrying the revert once the file is edited takes the rest
// out, and the turn is reverted, through undo and redo too.
func TestRevertInPartUndoRedo(t *testing.T) {
	root, s := conflictTurn(t)
	state := func() State {
		t.Helper()
		es, err := s.Log(false)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if e.ID == "1" {
				return e.State
			}
		}
		t.Fatal("no turn 1 in the log")
		return ""
	}
	apply := func(what string, p *Plan, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if _, err := s.Apply(p, nil); err != nil {
			t.Fatalf("%s: apply: %v", what, err)
		}
	}
	p, err := s.PlanRevert("1", RevertOptions{})
	apply("revert", p, err)
	if got := state(); got != StateActive {
		t.Fatalf("after a revert with a conflict turn 1 is %s, want active", got)
	}
	p, err = s.PlanUndo(false)
	apply("undo", p, err)
	p, err = s.PlanRedo(false)
	apply("redo", p, err)
	if got := rd(t, root, "env"); got != "PORT=8080\n" {
		t.Fatalf("env after the redo: %q", got)
	}
	if got := state(); got != StateActive {
		t.Fatalf("after undo and redo of a revert in part turn 1 is %s, want active: server.js was never taken out", got)
	}
	// The redo of a revert rewinds nothing: show says no rewind of it.
	if sh, err := s.Show("1", false); err != nil {
		t.Fatal(err)
	} else if sh.RewoundBy != "" {
		t.Fatalf("show 1 after the redo of its revert: rewound by %q, want none", sh.RewoundBy)
	}
	// Edited so the turn's line stands alone again, the retry takes it out.
	wr(t, root, "server.js", "one 2\ntwo\nlisten(config.port)\n")
	p, err = s.PlanRevert("1", RevertOptions{})
	apply("revert again", p, err)
	if got := rd(t, root, "server.js"); got != "one 2\ntwo\nlisten(PORT)\n" {
		t.Fatalf("server.js after the retry: %q", got)
	}
	if got := state(); got != StateReverted {
		t.Fatalf("after the retry took the rest out turn 1 is %s, want reverted", got)
	}
	for _, step := range []string{"undo", "undo", "redo", "redo"} {
		plan := s.PlanUndo
		if step == "redo" {
			plan = s.PlanRedo
		}
		p, err = plan(false)
		apply(step, p, err)
	}
	if got := state(); got != StateReverted {
		t.Fatalf("after undoing and redoing the revert and its retry turn 1 is %s, want reverted", got)
	}
	p, err = s.PlanUndo(false)
	apply("undo the retry", p, err)
	if got := state(); got != StateActive {
		t.Fatalf("with the retry undone turn 1 is %s, want active (its revert in part stands)", got)
	}
}

// conflictTurn is a store whose turn 1 rewrote server.js and env, with
// server.js then changed by hand on the turn's line: a revert of turn 1
// leaves server.js in conflict and puts env back.
func conflictTurn(t *testing.T) (string, *Store) {
	t.Helper()
	root := tempRoot(t)
	s := openStore(t, root)
	wr(t, root, "server.js", "one\ntwo\nlisten(PORT)\n")
	wr(t, root, "env", "PORT=8080\n")
	for _, w := range [][2]string{{"server.js", "one\ntwo\nlisten(config.port)\n"}, {"env", "PORT=3000\n"}} {
		if _, err := s.Write("1", TurnMeta{Label: "read the port"}, filepath.Join(root, w[0]), []byte(w[1])); err != nil {
			t.Fatal(err)
		}
	}
	wr(t, root, "server.js", "one\ntwo\nlisten(config.port, host)\n") // changed since, on the turn's line
	return root, s
}
