package ui

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store"
)

// TestPreviewNamesGit: a rewind's preview says what its turns did to git,
// prints the command a person would run to move HEAD back, and i puts
// git's index back with the rewind.
func TestPreviewNamesGit(t *testing.T) {
	f := sample()
	f.git = &store.GitChange{FromRef: "refs/heads/main", FromCommit: "1111111111aaaa", ToRef: "refs/heads/feature",
		ToCommit: "2222222222bbbb", Commits: 2, IndexChanged: true, MovedHead: true, Turns: []string{"3"}}
	m := testModel(t, f, 140, 36)
	press(t, m, kp("r"))
	s := plain(m)
	mustContain(t, s, "turn 3 ran git: HEAD moved main→feature, 2 commits, the index changed.",
		"git switch main", "i puts it back as before turn 3")
	if !m.bindings().GitIndex.Enabled() {
		t.Fatal("i is not offered")
	}
	press(t, m, kp("i"))
	if m.dlg.plan == nil || m.dlg.plan.Index == nil {
		t.Fatal("i did not plan the index back")
	}
	mustContain(t, plain(m), "git's index: put back as before turn 3")
	press(t, m, kp("y"))
	if f.gitIndexApplied != 1 {
		t.Fatalf("%d plans wrote the index, want 1", f.gitIndexApplied)
	}
}

// TestPreviewWithoutGit: a turn that ran no git claims no git change.
func TestPreviewWithoutGit(t *testing.T) {
	m := testModel(t, sample(), 140, 36)
	press(t, m, kp("r"))
	if s := plain(m); strings.Contains(s, "ran git") || strings.Contains(s, "git's index") {
		t.Fatalf("a turn without git claims a git change:\n%s", s)
	}
	if m.bindings().GitIndex.Enabled() {
		t.Fatal("i offered without a git change")
	}
}
