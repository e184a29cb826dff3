package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitIn runs git in root with the tests' environment; optional locks off,
// so `git status` never rewrites the index it looks at.
func gitIn(t *testing.T, root string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	cmd.Env = append(ckptEnv("", nil), "GIT_OPTIONAL_LOCKS=0", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// gitProject is a fresh git repository on branch main holding files, all
// committed; a test without git installed is skipped.
func gitProject(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	writeTexts(t, root, files)
	gitIn(t, root, "init", "-q", "-b", "main")
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "commit", "-qm", "init")
	return root
}

func readIndex(t *testing.T, root string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRewindGitIndex: an agent turn runs git mv, git add and git commit.
// The plan names what it did to git; --git-index gives back the index
// byte for byte, and with HEAD put back by the command the plan prints,
// git status is as before the turn. Undo is exact, the index included. A
// turn that ran no git claims no git change.
func TestRewindGitIndex(t *testing.T) {
	root := gitProject(t, map[string]string{"docs/notes.txt": "notes\n", "a.txt": "a 0\n"})
	ckptOK(t, root, "write", "--turn", "0", "--label", "warm up", "b.txt") // makes the store; no git
	gitIn(t, root, "add", "-A")                                            // the store's folder ignores itself
	gitIn(t, root, "commit", "-qm", "b")
	indexBefore, statusBefore := readIndex(t, root), gitIn(t, root, "status", "--porcelain")
	head := strings.TrimSpace(gitIn(t, root, "rev-parse", "HEAD"))

	ckptOK(t, root, "exec", "--turn", "1", "--label", "rename and commit", "--", "sh", "-c",
		`git mv docs/notes.txt docs/NOTES.md && echo a1 >> a.txt && git add a.txt && `+
			`GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com git commit -qm agent`)
	indexAfter := readIndex(t, root)
	if bytes.Equal(indexAfter, indexBefore) {
		t.Fatal("the agent's git commands did not change the index")
	}

	r := ckptDo(t, ckptCall{Root: root}, "rewind", "1", "--dry-run")
	for _, want := range []string{"turn 1 ran git: HEAD moved", "1 commit", "the index changed", "git reset --soft " + head[:8], "--git-index"} {
		if !strings.Contains(r.Stdout, want) {
			t.Fatalf("the plan does not say %q\n%s", want, r)
		}
	}
	r = ckptDo(t, ckptCall{Root: root}, "rewind", "1", "--dry-run", "--json")
	var plan struct {
		Git *struct {
			Head         []string `json:"head"`
			Commits      int      `json:"commits"`
			IndexChanged bool     `json:"index_changed"`
		} `json:"git"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &plan); err != nil || plan.Git == nil {
		t.Fatalf("dry-run JSON without \"git\": %v\n%s", err, r)
	}
	if plan.Git.Commits != 1 || !plan.Git.IndexChanged || len(plan.Git.Head) != 2 || plan.Git.Head[0] != head {
		t.Fatalf("dry-run JSON git %+v", *plan.Git)
	}

	ckptOK(t, root, "rewind", "1", "--git-index", "--yes")
	if !bytes.Equal(readIndex(t, root), indexBefore) {
		t.Fatal("--git-index did not give back the index byte for byte")
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "index.lock")); err == nil {
		t.Fatal("index.lock left behind")
	}
	if got := strings.TrimSpace(gitIn(t, root, "rev-parse", "HEAD")); got == head {
		t.Fatal("ckpt moved HEAD")
	}
	gitIn(t, root, "reset", "--soft", head) // the command the plan printed
	if got := gitIn(t, root, "status", "--porcelain"); got != statusBefore {
		t.Fatalf("git status after the rewind:\n%s\nbefore the turn:\n%s", got, statusBefore)
	}

	ckptOK(t, root, "undo", "--yes")
	if !bytes.Equal(readIndex(t, root), indexAfter) {
		t.Fatal("undo did not give back the index as the agent left it")
	}
	if b, err := os.ReadFile(filepath.Join(root, "docs", "NOTES.md")); err != nil || string(b) != "notes\n" {
		t.Fatalf("undo did not bring back docs/NOTES.md: %q %v", b, err)
	}

	// A turn with no git in it claims no git change.
	gitIn(t, root, "reset", "-q", "--soft", "HEAD@{1}") // HEAD back on the agent's commit
	ckptOK(t, root, "exec", "--turn", "2", "--", "sh", "-c", "echo plain > plain.txt")
	r = ckptDo(t, ckptCall{Root: root}, "rewind", "2", "--dry-run", "--json")
	if strings.Contains(r.Stdout, `"git"`) {
		t.Fatalf("a turn without git claims a git change\n%s", r)
	}
	r = ckptDo(t, ckptCall{Root: root}, "rewind", "2", "--dry-run")
	if strings.Contains(r.Stdout, "ran git") {
		t.Fatalf("a turn without git claims a git change\n%s", r)
	}
	// The log marks the turn that ran git.
	r = ckptOK(t, root, "log", "--json")
	var log []struct {
		Turn   string `json:"turn"`
		RanGit bool   `json:"ran_git"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &log); err != nil {
		t.Fatal(err)
	}
	for _, e := range log {
		if want := e.Turn == "1"; (e.Turn == "1" || e.Turn == "2") && e.RanGit != want {
			t.Fatalf("turn %s: ran_git %v, want %v\n%s", e.Turn, e.RanGit, want, r)
		}
	}
}

// TestRevertGitIndex: turn 1 runs git mv, git add and git commit, turn 2
// stages another file, turn 3 runs no git. A revert of turn 1 says what
// it did to git and what putting the index back drops (turn 2's staging),
// in the plan and its JSON; --git-index puts the index back as before
// turn 1 byte for byte, moving no ref and deleting no object, and undo
// gives the index back as it was, without the flag. A revert of turn 3
// claims no git change.
func TestRevertGitIndex(t *testing.T) {
	root := gitProject(t, map[string]string{"docs/notes.txt": "notes\n", "a.txt": "a 0\n", "c.txt": "c 0\n"})
	ckptOK(t, root, "write", "--turn", "0", "--label", "warm up", "b.txt")
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "commit", "-qm", "b")
	indexBefore := readIndex(t, root)
	head := strings.TrimSpace(gitIn(t, root, "rev-parse", "HEAD"))
	ckptOK(t, root, "exec", "--turn", "1", "--label", "rename and commit", "--", "sh", "-c",
		`git mv docs/notes.txt docs/NOTES.md && echo a1 >> a.txt && git add a.txt && `+
			`GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com git commit -qm agent`)
	agentCommit := strings.TrimSpace(gitIn(t, root, "rev-parse", "HEAD"))
	ckptOK(t, root, "exec", "--turn", "2", "--label", "stage c", "--", "sh", "-c", "echo c2 >> c.txt && git add c.txt")
	ckptOK(t, root, "exec", "--turn", "3", "--label", "no git", "--", "sh", "-c", "echo new > new.txt")
	indexNow := readIndex(t, root)

	r := ckptDo(t, ckptCall{Root: root}, "revert", "1", "--dry-run")
	for _, want := range []string{"git during turn 1: HEAD moved", "1 commit", "the index changed",
		"git reset --soft " + head[:8], "--git-index puts it back as it was before turn 1, dropping what was staged after it: c.txt"} {
		if !strings.Contains(r.Stdout, want) {
			t.Fatalf("the plan does not say %q\n%s", want, r)
		}
	}
	type gitJSON struct {
		Head         []string `json:"head"`
		Commits      int      `json:"commits"`
		IndexChanged bool     `json:"index_changed"`
		IndexRestore bool     `json:"index_restore"`
		IndexDrops   []string `json:"index_drops"`
	}
	var plan struct {
		Git  *gitJSON `json:"git"`
		Plan string   `json:"plan"`
	}
	r = ckptDo(t, ckptCall{Root: root}, "revert", "1", "--dry-run", "--json")
	if err := json.Unmarshal([]byte(r.Stdout), &plan); err != nil || plan.Git == nil {
		t.Fatalf("dry-run JSON without \"git\": %v\n%s", err, r)
	}
	if g := plan.Git; g.Commits != 1 || !g.IndexChanged || g.IndexRestore || len(g.Head) != 2 || g.Head[0] != head || g.Head[1] != agentCommit ||
		strings.Join(g.IndexDrops, ",") != "c.txt" {
		t.Fatalf("dry-run JSON git %+v", *g)
	}
	without := plan.Plan
	r = ckptDo(t, ckptCall{Root: root}, "revert", "1", "--git-index", "--dry-run")
	for _, want := range []string{"git's index: put back as it was before turn 1 (under git's index.lock)", "this drops what was staged after it: c.txt"} {
		if !strings.Contains(r.Stdout, want) {
			t.Fatalf("the --git-index plan does not say %q\n%s", want, r)
		}
	}
	r = ckptDo(t, ckptCall{Root: root}, "revert", "1", "--git-index", "--dry-run", "--json")
	if err := json.Unmarshal([]byte(r.Stdout), &plan); err != nil || plan.Git == nil || !plan.Git.IndexRestore {
		t.Fatalf("--git-index dry-run JSON: %v\n%s", err, r)
	}
	if plan.Plan == without {
		t.Fatal("the plan that writes git's index has the id of the one that does not")
	}
	// The plan shown without the index cannot be applied with it.
	if r := ckptDo(t, ckptCall{Root: root}, "revert", "1", "--git-index", "--plan", without); r.Code != 1 {
		t.Fatalf("--plan of the plan without the index applied with --git-index: %s", r)
	}

	ckptOK(t, root, "revert", "1", "--git-index", "--plan", plan.Plan)
	if !bytes.Equal(readIndex(t, root), indexBefore) {
		t.Fatal("revert --git-index did not put back the index byte for byte")
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "index.lock")); err == nil {
		t.Fatal("index.lock left behind")
	}
	if got := strings.TrimSpace(gitIn(t, root, "rev-parse", "HEAD")); got != agentCommit {
		t.Fatalf("ckpt moved HEAD to %s", got)
	}
	gitIn(t, root, "cat-file", "-e", agentCommit) // the commit is still there
	for p, want := range map[string]string{"docs/notes.txt": "notes\n", "a.txt": "a 0\n", "c.txt": "c 0\nc2\n", "new.txt": "new\n"} {
		if b, err := os.ReadFile(filepath.Join(root, p)); err != nil || string(b) != want {
			t.Errorf("%s after the revert: %q %v, want %q", p, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "docs", "NOTES.md")); err == nil {
		t.Error("docs/NOTES.md, turn 1's, is still there")
	}

	ckptOK(t, root, "undo", "--yes")
	if !bytes.Equal(readIndex(t, root), indexNow) {
		t.Fatal("undo did not give back the index as it was before the revert")
	}
	if b, err := os.ReadFile(filepath.Join(root, "docs", "NOTES.md")); err != nil || string(b) != "notes\n" {
		t.Fatalf("undo did not bring back docs/NOTES.md: %q %v", b, err)
	}
	ckptOK(t, root, "redo", "--yes")
	if !bytes.Equal(readIndex(t, root), indexBefore) {
		t.Fatal("redo did not write the index again as before turn 1")
	}
	ckptOK(t, root, "undo", "--yes")
	if !bytes.Equal(readIndex(t, root), indexNow) {
		t.Fatal("the second undo did not give back the index")
	}

	r = ckptDo(t, ckptCall{Root: root}, "revert", "3", "--dry-run", "--json")
	if strings.Contains(r.Stdout, `"git"`) {
		t.Fatalf("a turn without git claims a git change\n%s", r)
	}
}
