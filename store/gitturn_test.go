package store

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitEnv is git's environment in these tests: a fixed identity, no
// user or system config.
func gitEnv() []string {
	return append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
}

func shIn(t *testing.T, root, script string) {
	t.Helper()
	c := exec.Command("sh", "-c", script)
	c.Dir, c.Env = root, gitEnv()
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// gitProject is a committed git project with a store whose baseline is
// taken.
func gitProject(t *testing.T) (string, *Store) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	wr(t, root, "a.txt", "a0\n")
	wr(t, root, "docs/notes.txt", "notes\n")
	shIn(t, root, "git init -q -b main && git add -A && git commit -qm init")
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.SweepBefore("", TurnMeta{}, ""); err != nil {
		t.Fatal(err)
	}
	return root, s
}

// shellStep runs script as a shell command of turn, swept before and
// after as an agent's hooks do.
func shellStep(t *testing.T, s *Store, root, turn, script string) {
	t.Helper()
	meta := TurnMeta{Source: &Source{Agent: "claude", Session: "s"}, Session: "claude:s"}
	if _, err := s.SweepBefore(TurnID(turn), meta, script); err != nil {
		t.Fatal(err)
	}
	shIn(t, root, script)
	if _, err := s.SweepAfter(TurnID(turn), meta, script); err != nil {
		t.Fatal(err)
	}
}

func ranGit(t *testing.T, s *Store) map[string]bool {
	t.Helper()
	es, err := s.Log(false)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range es {
		if e.Kind == KindAgent {
			out[e.ID] = e.RanGit
		}
	}
	return out
}

func wantRanGit(t *testing.T, s *Store, when string, want map[string]bool) {
	t.Helper()
	got := ranGit(t, s)
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: turn %s ran_git %v, want %v (all: %v)", when, id, got[id], w, got)
		}
	}
}

func openTestTurn(t *testing.T, s *Store, label string) string {
	t.Helper()
	id, err := s.NewTurn(TurnMeta{Label: label, Source: &Source{Agent: "claude", Session: "s"}})
	if err != nil {
		t.Fatal(err)
	}
	return string(id)
}

// TestGitChangeIsPerTurn: hook-fed turns, with git run by hand between
// them. Each turn is marked for what git did within it, from its start to
// its end: not for what happened between turns, nor for the next turn's
// commit. The newest turn, until it ends, is compared with git now.
func TestGitChangeIsPerTurn(t *testing.T) {
	root, s := gitProject(t)

	one := openTestTurn(t, s, "plain edit")
	shellStep(t, s, root, one, "echo a1 >> a.txt")
	if err := s.EndTurn(TurnID(one)); err != nil {
		t.Fatal(err)
	}
	shIn(t, root, "git commit -qam 'by hand, between turns'")
	wantRanGit(t, s, "after a commit by hand between turns", map[string]bool{one: false})

	two := openTestTurn(t, s, "rename and commit")
	shellStep(t, s, root, two, "git mv docs/notes.txt docs/NOTES.md && echo b > b.txt && git add b.txt && git commit -qm agent")
	if err := s.EndTurn(TurnID(two)); err != nil {
		t.Fatal(err)
	}
	three := openTestTurn(t, s, "plain edit, open")
	shellStep(t, s, root, three, "echo a3 >> a.txt")
	wantRanGit(t, s, "three turns", map[string]bool{one: false, two: true, three: false})

	// The newest turn is open: git as it is now counts as its.
	shIn(t, root, "git add a.txt")
	wantRanGit(t, s, "git add while turn 3 is open", map[string]bool{one: false, two: true, three: true})
	if err := s.EndTurn(TurnID(three)); err != nil {
		t.Fatal(err)
	}

	// Once a turn ended, what git does is not its.
	four := openTestTurn(t, s, "ended before the commit")
	shellStep(t, s, root, four, "echo d > d.txt")
	if err := s.EndTurn(TurnID(four)); err != nil {
		t.Fatal(err)
	}
	shIn(t, root, "git add -A && git commit -qm 'by hand, after turn 4'")
	wantRanGit(t, s, "a commit after the newest turn ended", map[string]bool{three: true, four: false})

	// A plan names the turns that ran git, within themselves.
	p, err := s.PlanRewind(one)
	if err != nil {
		t.Fatal(err)
	}
	if p.Git == nil || !slices.Equal(p.Git.Turns, []string{two, three}) || !p.Git.IndexChanged || !p.Git.MovedHead || p.Git.Commits != 1 {
		t.Fatalf("rewind %s: git %+v, want turns %s and %s, 1 commit, HEAD moved, the index changed", one, p.Git, two, three)
	}
	if p, err = s.PlanRewind(four); err != nil {
		t.Fatal(err)
	}
	if p.Git != nil {
		t.Fatalf("rewind %s: a turn without git claims %+v", four, *p.Git)
	}
}

// TestGitOnlyCommand: a command that only runs git (it changes no file in
// the tree) still gives its turn the git change, from the turn's first
// sweep; one that runs nothing of git makes no turn at all.
func TestGitOnlyCommand(t *testing.T) {
	root, s := gitProject(t)
	shIn(t, root, "echo a1 >> a.txt && git add a.txt")
	if _, err := s.SweepBefore("", TurnMeta{}, ""); err != nil { // the edit is a hand edit
		t.Fatal(err)
	}
	shellStep(t, s, root, "commit", "git commit -qm staged")
	if err := s.CloseTurn("commit"); err != nil {
		t.Fatal(err)
	}
	shellStep(t, s, root, "nothing", "true")
	if err := s.CloseTurn("nothing"); err != nil {
		t.Fatal(err)
	}
	got := ranGit(t, s)
	if !got["commit"] {
		t.Errorf("the turn that only committed is not marked: %v", got)
	}
	if _, ok := got["nothing"]; ok {
		t.Errorf("a command that changed nothing made a turn: %v", got)
	}
}

// TestGitEndRecordIsCheap: the sweep after a command that left git alone
// writes nothing to the turn's file for git.
func TestGitEndRecordIsCheap(t *testing.T) {
	root, s := gitProject(t)
	id := openTestTurn(t, s, "edits")
	shellStep(t, s, root, id, "echo 1 >> a.txt")
	before, err := os.ReadFile(filepath.Join(root, ".osfoundry", "checkpoints", "turns", id+".log"))
	if err != nil {
		t.Fatal(err)
	}
	shellStep(t, s, root, id, "true")
	after, err := os.ReadFile(filepath.Join(root, ".osfoundry", "checkpoints", "turns", id+".log"))
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("a command that changed nothing appended to the turn:\n%s", strings.TrimPrefix(string(after), string(before)))
	}
}

// TestPruneKeepsNotedIndex: prune runs while a turn's first command runs,
// after the sweep before it noted (and kept) git's index and before the
// turn's first record names that copy. The copy survives, so the turn
// can put git's index back.
func TestPruneKeepsNotedIndex(t *testing.T) {
	for _, watch := range []bool{false, true} {
		root, s := gitProject(t)
		old := openTestTurn(t, s, "old")
		shellStep(t, s, root, old, "echo 1 >> a.txt")
		shIn(t, root, "echo 2 >> a.txt && git add a.txt") // by hand: an index no copy holds
		indexBefore, err := os.ReadFile(filepath.Join(root, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		var id string
		if watch {
			// ckpt watch, between turns, notes git's state; its next
			// turn opens at the first change.
			s.NoteGitIdle()
		} else {
			id = "T"
			if _, err := s.SweepBefore(TurnID(id), TurnMeta{}, "git mv"); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Prune(PruneOptions{Keep: 1}); err != nil { // meanwhile
			t.Fatal(err)
		}
		shIn(t, root, "git mv docs/notes.txt docs/NOTES.md && echo b > b.txt && git add b.txt")
		if watch {
			res, err := s.SweepWatch("", TurnMeta{Label: "watched", Source: &Source{Agent: WatchAgent}})
			if err != nil {
				t.Fatal(err)
			}
			id = string(res.Turn)
		} else if _, err := s.SweepAfter(TurnID(id), TurnMeta{}, "git mv"); err != nil {
			t.Fatal(err)
		}
		p, err := s.PlanRewindWith(id, RewindOptions{GitIndex: true})
		if err != nil {
			t.Fatalf("watch %v: %v", watch, err)
		}
		if _, err := s.Apply(p, nil); err != nil {
			t.Fatalf("watch %v: %v", watch, err)
		}
		got, err := os.ReadFile(filepath.Join(root, ".git", "index"))
		if err != nil || !bytes.Equal(got, indexBefore) {
			t.Fatalf("watch %v: the index is not as before turn %s (%v)", watch, id, err)
		}
	}
}

// TestIndexRefreshIsNoGitChange: git rewriting its index to refresh the
// stat data it caches (git status, an editor's git panel), with nothing
// staged or unstaged, is no git change of the turn it happens in; staging
// is.
func TestIndexRefreshIsNoGitChange(t *testing.T) {
	root, s := gitProject(t)
	id := openTestTurn(t, s, "an edit, and git status beside it")
	before, _ := os.ReadFile(filepath.Join(root, ".git", "index"))
	// Make every entry's cached stat stale, so that git status rewrites
	// the index, staging nothing.
	shIn(t, root, "sleep 1; touch a.txt docs/notes.txt")
	shellStep(t, s, root, id, "echo b > b.txt && git status --porcelain >/dev/null")
	after, _ := os.ReadFile(filepath.Join(root, ".git", "index"))
	if bytes.Equal(before, after) {
		t.Skip("git status did not rewrite the index here")
	}
	wantRanGit(t, s, "git status refreshed the index", map[string]bool{id: false})
	shellStep(t, s, root, id, "git add b.txt")
	wantRanGit(t, s, "git add", map[string]bool{id: true})
}

// TestRedoPlanNamesGit: a redo undoes the rewound turns again, so its
// plan says what they did to git, as the rewind's plan did.
func TestRedoPlanNamesGit(t *testing.T) {
	root, s := gitProject(t)
	one := openTestTurn(t, s, "commit")
	shellStep(t, s, root, one, "echo b > b.txt && git add b.txt && git commit -qm agent")
	if err := s.EndTurn(TurnID(one)); err != nil {
		t.Fatal(err)
	}
	for _, plan := range []func() (*Plan, error){
		func() (*Plan, error) { return s.PlanRewind(one) },
		func() (*Plan, error) { return s.PlanUndo(false) },
	} {
		p, err := plan()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Apply(p, nil); err != nil {
			t.Fatal(err)
		}
	}
	p, err := s.PlanRedo(false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Git == nil || !slices.Equal(p.Git.Turns, []string{one}) || !p.Git.MovedHead || p.Git.Commits != 1 {
		t.Fatalf("redo: git %+v, want turn %s, 1 commit, HEAD moved", p.Git, one)
	}
}
