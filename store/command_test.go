package store

import (
	"slices"
	"testing"
)

// TestCommandOpensAndSweeps: a session's shell step with no turn open is
// one call that opens the turn (labelled as asked, recorded for the
// session) and sweeps for it; the step after the command records what it
// changed there, and the next step goes on in the same turn.
func TestCommandOpensAndSweeps(t *testing.T) {
	root := t.TempDir()
	put(t, root, "a.txt", "a0\n", 0o644)
	s := openStore(t, root)
	src := &Source{Agent: "claude", Session: "s1"}
	meta := TurnMeta{Source: src, Session: "claude:s1"}
	if _, err := s.BeginCommand(TurnMeta{Source: src}, "x", "true"); err == nil {
		t.Fatal("a shell step without a session was taken")
	}
	if _, err := s.BeginCommand(meta, "claude: edits with no prompt seen", "sed -i a.txt"); err != nil {
		t.Fatal(err)
	}
	open, ok := s.SessionTurn("claude:s1")
	if !ok {
		t.Fatal("no turn recorded for the session")
	}
	put(t, root, "a.txt", "a1\n", 0o644)
	res, err := s.EndCommand(meta, "unused", "sed -i a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if res.Turn != TurnID(open) || !slices.Equal(res.Changed, []string{"a.txt"}) {
		t.Fatalf("after the command: %+v; want a.txt in turn %s", res, open)
	}
	if _, err := s.BeginCommand(meta, "unused", "ls"); err != nil {
		t.Fatal(err)
	}
	if again, _ := s.SessionTurn("claude:s1"); again != open {
		t.Fatalf("the next step went to turn %s, not %s", again, open)
	}
	log, err := s.Log(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 || log[0].ID != open || log[0].Label != "claude: edits with no prompt seen" || log[0].Source == nil || log[0].Source.Agent != "claude" {
		t.Fatalf("log %+v; want the one turn the step opened", log)
	}
}
