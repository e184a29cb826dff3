package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store"
)

// Claude Code and Codex in one folder, their prompts, edits and shell
// calls interleaved, a command of one still running while the other
// sweeps. Every change lands in some turn with its pre-image, and
// rewinding everything gives back the folder as it was before both.
func TestTwoSessionsInOneFolder(t *testing.T) {
	root := sessionsRoot(t)
	write := func(p, s string) {
		t.Helper()
		if err := putFile(root, p, s); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "a\n")
	write("b.txt", "b\n")
	write("c.txt", "c\n")
	write("d.txt", "d\n")
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	write("gen/old.txt", "generated\n")
	snap := func() map[string]string { return folderSnapshot(root) }
	hook := func(agentName string, ev map[string]any) {
		t.Helper()
		if err := sendHook(root, agentName, ev); err != nil {
			t.Fatalf("%s %v: %v", agentName, ev["hook_event_name"], err)
		}
	}
	claude := func(event string, kv ...any) {
		t.Helper()
		hook("claude", withFields(map[string]any{"session_id": "claude-1", "hook_event_name": event}, kv...))
	}
	codex := func(turn, event string, kv ...any) {
		t.Helper()
		hook("codex", withFields(map[string]any{"session_id": "codex-1", "turn_id": turn, "hook_event_name": event}, kv...))
	}
	bash := func(cmd string) map[string]any { return map[string]any{"command": cmd} }

	// A first shell call each, so the store has a baseline.
	claude("UserPromptSubmit", "prompt", "tidy a")
	claude("PreToolUse", "tool_name", "Bash", "tool_input", bash("true"), "tool_use_id", "c0")
	claude("PostToolUse", "tool_name", "Bash", "tool_input", bash("true"), "tool_use_id", "c0")
	before := snap()

	// Claude starts a long command that writes a.txt now and c.txt later.
	claude("PreToolUse", "tool_name", "Bash", "tool_input", bash("make gen"), "tool_use_id", "c1")
	write("a.txt", "a by claude's make\n")
	// Codex's prompt and shell call arrive meanwhile.
	codex("t-1", "UserPromptSubmit", "prompt", "fix b")
	codex("t-1", "PreToolUse", "tool_name", "Bash", "tool_input", bash("sed -i b.txt"), "tool_use_id", "x1")
	write("b.txt", "b by codex's sed\n")
	write("c.txt", "c by claude's make, late\n")
	// Claude's make also turns a folder into a file and a file into a
	// link, while Codex's command still runs.
	os.RemoveAll(filepath.Join(root, "gen"))
	write("gen", "one file now\n")
	os.Remove(filepath.Join(root, "a.txt"))
	os.Symlink("b.txt", filepath.Join(root, "a.txt"))
	codex("t-1", "PostToolUse", "tool_name", "Bash", "tool_input", bash("sed -i b.txt"), "tool_use_id", "x1", "tool_response", "ok")
	// Codex's file tool edits d.txt while claude's command still runs.
	patch := map[string]any{"command": "*** Begin Patch\n*** Update File: d.txt\n@@\n-d\n+d by codex\n*** End Patch\n"}
	codex("t-1", "PreToolUse", "tool_name", "apply_patch", "tool_input", patch, "tool_use_id", "x2")
	write("d.txt", "d by codex\n")
	codex("t-1", "PostToolUse", "tool_name", "apply_patch", "tool_input", patch, "tool_use_id", "x2", "tool_response", "ok")
	claude("PostToolUse", "tool_name", "Bash", "tool_input", bash("make gen"), "tool_use_id", "c1")
	codex("t-1", "Stop")
	claude("Stop")
	after := snap()

	s, err := store.Open(root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	log, err := s.Log(false)
	if err != nil {
		t.Fatal(err)
	}
	// The log is newest first. A change both commands shared is in both
	// turns, the later one's pre-image what its first sweep found; the
	// oldest turn holding a path has what it was before both.
	held := map[string]bool{}
	var turns []string
	for i := len(log) - 1; i >= 0; i-- {
		e := log[i]
		if e.Kind != store.KindAgent {
			continue
		}
		turns = append(turns, e.ID)
		files, err := s.Files(e.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if held[f.Path] {
				continue
			}
			held[f.Path] = true
			var got string
			switch f.Pre.Kind {
			case store.ImageContent:
				b, err := s.ReadImage(f.Pre)
				if err != nil {
					t.Errorf("turn %s, %s: %v", e.ID, f.Path, err)
				}
				got = string(b)
			case store.ImageLink:
				got = "-> " + f.Pre.Link
			case store.ImageDir:
				got = "folder"
			}
			want := before[f.Path]
			if f.Pre.Kind == store.ImageDir {
				want = before[f.Path+"/"]
			}
			if got != want {
				t.Errorf("turn %s, %s: pre-image %s %q; want %q", e.ID, f.Path, f.Pre.Kind, got, want)
			}
		}
	}
	for p := range after {
		if after[p] != before[p] && !held[strings.TrimSuffix(p, "/")] && after[p] != "folder" {
			t.Errorf("%s changed (%q → %q) but is in no turn", p, before[p], after[p])
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok && !held[p] && before[p] != "folder" {
			t.Errorf("%s (%q) is gone but in no turn", p, before[p])
		}
	}
	// Rewind the oldest turn: everything after it goes too.
	sort.Slice(turns, func(i, j int) bool { return turns[i] < turns[j] })
	p, err := s.PlanRewind(turns[0])
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Apply(p, nil)
	if err != nil || len(r.Failed) > 0 {
		t.Fatalf("rewind: %+v, %v", r, err)
	}
	if got := snap(); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("after rewinding both sessions:\n%v\nwant\n%v", got, before)
	}
}
