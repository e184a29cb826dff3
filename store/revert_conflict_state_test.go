package store

import "testing"

// TestRevertConflictFailedThroughUndoRedo: a file a revert left in
// conflict is failed (with the conflict as the reason), not changed since
// the agent; undoing the revert makes that moot (the file differs from
// what the agent left, as before the revert), and redoing it, which
// leaves the file as it is, makes it failed by the revert again, so the
// same revert retries it. A store opened afresh says the same.
func TestRevertConflictFailedThroughUndoRedo(t *testing.T) {
	root, s := conflictTurn(t)
	var revertOp, reason string
	check := func(what string, s *Store, failed bool) {
		t.Helper()
		f := statusOf(t, s, "1", "server.js")
		fl, err := s.Failures()
		if err != nil {
			t.Fatal(err)
		}
		if !failed {
			if f.Status != StatusHandEdited || len(fl) != 0 {
				t.Fatalf("after %s: server.js %s (reason %q), failures %+v; want hand_edited, none failed", what, f.Status, f.Reason, fl)
			}
			return
		}
		if f.Status != StatusFailed || f.HandEdited || f.Reason != reason {
			t.Fatalf("after %s: server.js %s hand_edited %v reason %q; want failed, %q", what, f.Status, f.HandEdited, f.Reason, reason)
		}
		if len(fl) != 1 || fl[0].Path != "server.js" || fl[0].Op != revertOp || fl[0].Kind != KindRevert {
			t.Fatalf("after %s: failures %+v; want server.js failed by the revert %s", what, fl, revertOp)
		}
		if got := failedPaths(t, s, revertOp); len(got) != 1 || got[0] != "server.js" {
			t.Fatalf("after %s: %s lists %v failed", what, revertOp, got)
		}
	}
	p, err := s.PlanRevert("1", RevertOptions{})
	r := apply(t, s, p, err)
	if len(r.Failed) != 1 || r.Failed[0].Path != "server.js" {
		t.Fatalf("revert: %+v", r)
	}
	revertOp, reason = r.Op, r.Failed[0].Reason
	check("the revert", s, true)
	for _, step := range []string{"undo", "redo", "undo", "redo"} {
		plan := s.PlanUndo
		if step == "redo" {
			plan = s.PlanRedo
		}
		p, err := plan(false)
		apply(t, s, p, err)
		check(step, s, step == "redo")
	}
	fresh, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	check("the redo, in a store opened afresh", fresh, true)
	// Edited so the turn's line stands alone again, the same revert
	// retries the file and takes it out; undoing that retry makes it
	// failed by the revert again, and redoing it puts it right again.
	wr(t, root, "server.js", "one 2\ntwo\nlisten(config.port)\n")
	p, err = s.PlanRevert("1", RevertOptions{})
	if err != nil || p.Retry == "" || len(p.Steps) != 1 || p.Steps[0].Path != "server.js" {
		t.Fatalf("revert again after the redo: %+v, %v; want a retry of server.js", p, err)
	}
	if r := apply(t, s, p, nil); len(r.Failed) != 0 || rd(t, root, "server.js") != "one 2\ntwo\nlisten(PORT)\n" {
		t.Fatalf("the retry: %+v, server.js %q", r, rd(t, root, "server.js"))
	}
	cleared := func(what string) {
		t.Helper()
		if fl, _ := s.Failures(); len(fl) != 0 {
			t.Fatalf("after %s: failures %+v, want none", what, fl)
		}
		if got := failedPaths(t, s, revertOp); len(got) != 0 {
			t.Fatalf("after %s: %s lists %v failed", what, revertOp, got)
		}
	}
	cleared("the retry")
	p, err = s.PlanUndo(false)
	apply(t, s, p, err)
	check("undoing the retry", s, true)
	p, err = s.PlanRedo(false)
	apply(t, s, p, err)
	cleared("redoing the retry")
}
