package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// claudeEvents plays Claude Code's hooks for one prompt that runs cmd in
// its shell tool: the prompt, the tool call around the command (which the
// test runs, as the agent would), and the end of the turn.
func claudeEvents(t *testing.T, root, prompt, cmd string) {
	t.Helper()
	send := func(js string) {
		t.Helper()
		r := ckptDo(t, ckptCall{Root: root, Stdin: []byte(js), Env: []string{"CLAUDE_PROJECT_DIR=" + root}}, "hook", "claude")
		if r.Code != 0 || r.Stderr != "" {
			t.Fatalf("hook %s\n%s", js, r)
		}
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	send(fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":%s,"prompt":%s}`, q(root), q(prompt)))
	tool := fmt.Sprintf(`"session_id":"s1","cwd":%s,"tool_name":"Bash","tool_use_id":%s,"tool_input":{"command":%s}`, q(root), q(prompt), q(cmd))
	send(`{"hook_event_name":"PreToolUse",` + tool + `}`)
	sh := exec.Command("sh", "-c", cmd)
	sh.Dir = root
	sh.Env = append(ckptEnv("", nil), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	send(`{"hook_event_name":"PostToolUse",` + tool + `,"tool_response":{}}`)
	send(fmt.Sprintf(`{"hook_event_name":"Stop","session_id":"s1","cwd":%s}`, q(root)))
}

// ranGitByTurn is log --json's ran_git of each agent turn.
func ranGitByTurn(t *testing.T, root string) map[string]bool {
	t.Helper()
	var rows []struct {
		Turn   string `json:"turn"`
		Kind   string `json:"kind"`
		RanGit bool   `json:"ran_git"`
	}
	if err := json.Unmarshal([]byte(ckptOK(t, root, "log", "--json").Stdout), &rows); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, r := range rows {
		if r.Kind == "agent" {
			out[r.Turn] = r.RanGit
		}
	}
	return out
}

// plainLogMarksGit checks that plain `ckpt log` marks `git` on exactly
// the turns log --json says ran git.
func plainLogMarksGit(t *testing.T, root string) {
	t.Helper()
	want := ranGitByTurn(t, root)
	out := ckptOK(t, root, "log").Stdout
	got := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) > 1 && f[1] == "agent" {
			got[f[0]] = strings.Contains(l, "  git")
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("plain log marks git on %v, log --json says %v\n%s", got, want, out)
	}
}

// TestHookTurnsGitPerTurn: Claude Code's hooks feed three turns. The
// first edits a file, then a person commits by hand; the second runs git
// mv, git add and git commit; the third edits again. Only the second is
// marked as running git, and a plan that undoes all three names it alone.
// Its rewind with --git-index (and the git reset the plan prints) leaves
// git status as it was before the turn.
func TestHookTurnsGitPerTurn(t *testing.T) {
	root := gitProject(t, map[string]string{"docs/notes.txt": "notes\n", "a.txt": "a 0\n"})

	claudeEvents(t, root, "append to a", "echo a1 >> a.txt")
	gitIn(t, root, "commit", "-qam", "by hand")
	indexBefore, statusBefore := readIndex(t, root), gitIn(t, root, "status", "--porcelain")
	head := strings.TrimSpace(gitIn(t, root, "rev-parse", "HEAD"))
	claudeEvents(t, root, "rename the notes", "git mv docs/notes.txt docs/NOTES.md && echo b > b.txt && git add b.txt && git commit -qm agent")
	claudeEvents(t, root, "append again", "echo a3 >> a.txt")

	if got, want := ranGitByTurn(t, root), map[string]bool{"1": false, "2": true, "3": false}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("ran_git %v, want %v", got, want)
	}
	plainLogMarksGit(t, root)
	r := ckptDo(t, ckptCall{Root: root}, "rewind", "1", "--dry-run")
	for _, want := range []string{"turn 2 ran git: HEAD moved", "1 commit", "the index changed"} {
		if !strings.Contains(r.Stdout, want) {
			t.Fatalf("the plan does not say %q\n%s", want, r)
		}
	}
	if r := ckptDo(t, ckptCall{Root: root}, "rewind", "3", "--dry-run", "--json"); strings.Contains(r.Stdout, `"git"`) {
		t.Fatalf("turn 3 ran no git, but its plan says\n%s", r)
	}

	ckptOK(t, root, "rewind", "2", "--git-index", "--yes")
	if !bytes.Equal(readIndex(t, root), indexBefore) {
		t.Fatal("--git-index did not give back the index as before turn 2")
	}
	gitIn(t, root, "reset", "-q", "--soft", head)
	if got := gitIn(t, root, "status", "--porcelain"); got != statusBefore {
		t.Fatalf("git status after the rewind:\n%s\nbefore turn 2:\n%s", got, statusBefore)
	}
}
