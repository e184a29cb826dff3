//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// agentHook runs ckpt-hook for agent with the event on stdin, as the
// agent would, and fails on an error or any output.
func agentHook(t *testing.T, exe, agent, root, event string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "hook", agent)
	cmd.Dir = root
	cmd.Env = append(ckptEnv("", []string{"CKPT_WATCHER=off"}), "CLAUDE_PROJECT_DIR="+root)
	cmd.Stdin = strings.NewReader(event)
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Fatalf("%s hook %s %s: %v, output %q", exe, agent, event, err, out)
	}
}

// claudeIn is a Claude Code event of session for the Bash tool running
// command (none for a prompt or the turn's end).
func claudeIn(root, session, name, command string) string {
	ev := map[string]any{"session_id": session, "cwd": root, "hook_event_name": name, "prompt": "do it"}
	if command != "" {
		ev["tool_name"] = "Bash"
		ev["tool_input"] = map[string]any{"command": command}
		ev["tool_use_id"] = session + "-" + command
	}
	b, _ := json.Marshal(ev)
	return string(b)
}

// cursorIn is a Cursor event of conversation c1: the prompt (which
// sweeps), an edit of path (swept after) or the end.
func cursorIn(root, name, path string) string {
	ev := map[string]any{"conversation_id": "c1", "generation_id": "g1", "workspace_roots": []string{root}, "hook_event_name": name, "prompt": "edit"}
	if path != "" {
		ev["file_path"] = filepath.Join(root, path)
	}
	b, _ := json.Marshal(ev)
	return string(b)
}

// sharedIn is turn's paths, each with the turns it is shared with, from
// show --json.
func sharedIn(t *testing.T, root, turn string) map[string]string {
	t.Helper()
	var doc struct {
		Files []struct {
			Path   string   `json:"path"`
			Shared []string `json:"shared"`
		} `json:"files"`
	}
	decodeJSON(t, ckptOK(t, root, "show", turn, "--json"), &doc)
	out := map[string]string{}
	for _, f := range doc.Files {
		out[f.Path] = strings.Join(f.Shared, ",")
	}
	return out
}

// turnsOf is the ids of the turns whose source is agent, oldest first.
func turnsOf(t *testing.T, root, agent string) []string {
	var out []string
	for _, e := range ckptLog(t, root) {
		if e.Kind == "agent" && e.Source != nil && e.Source.Agent == agent {
			out = append(out, e.Turn)
		}
	}
	slices.Reverse(out) // the log is newest first
	return out
}

// TestOtherSessionTransientFiles: session A's shell command (an editor
// keeping a swap file, sed -i writing its temporary file and renaming it
// over b.txt) is still running while session B's hooks sweep, as a
// Claude Code shell call or as a Cursor edit. What exists only inside
// A's command is in no turn; what B made while A's command ran is in
// both turns, shared; what A changed of the files there before is in
// A's turn. Rewinding A's turn gives back the folder before both.
func TestOtherSessionTransientFiles(t *testing.T) {
	_, small := hookPair(t)
	for _, b := range []string{"claude", "cursor"} {
		t.Run(b, func(t *testing.T) {
			root := t.TempDir()
			writeTexts(t, root, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
			before := treeText(t, root)
			const cmdA = "vi b.txt; sed -i s/b/B/ b.txt"
			a := func(name, command string) {
				agentHook(t, small, "claude", root, claudeIn(root, "sess-a", name, command))
			}
			a("UserPromptSubmit", "")
			a("PreToolUse", cmdA)
			writeText(t, root, ".b.txt.swp", "swap\n")
			switch b {
			case "claude":
				bh := func(name, command string) {
					agentHook(t, small, "claude", root, claudeIn(root, "sess-b", name, command))
				}
				bh("UserPromptSubmit", "")
				bh("PreToolUse", "echo c > c.txt")
				writeText(t, root, "c.txt", "c by B\n")
				writeText(t, root, "sedX3b9q", "B\n")
				bh("PostToolUse", "echo c > c.txt")
				bh("Stop", "")
			case "cursor":
				agentHook(t, small, "cursor", root, cursorIn(root, "beforeSubmitPrompt", ""))
				writeText(t, root, "c.txt", "c by B\n")
				writeText(t, root, "sedX3b9q", "B\n")
				agentHook(t, small, "cursor", root, cursorIn(root, "afterFileEdit", "c.txt"))
				agentHook(t, small, "cursor", root, cursorIn(root, "stop", ""))
			}
			if err := os.Rename(filepath.Join(root, "sedX3b9q"), filepath.Join(root, "b.txt")); err != nil {
				t.Fatal(err)
			}
			removePath(t, root, ".b.txt.swp")
			a("PostToolUse", cmdA)
			a("Stop", "")

			ta, tb := turnsOf(t, root, "claude"), turnsOf(t, root, b)
			if b == "claude" {
				if len(ta) != 2 {
					t.Fatalf("claude turns %v", ta)
				}
				ta, tb = ta[:1], ta[1:]
			}
			if len(ta) != 1 || len(tb) != 1 {
				t.Fatalf("A's turns %v, B's %v", ta, tb)
			}
			gotA, gotB := sharedIn(t, root, ta[0]), sharedIn(t, root, tb[0])
			wantA := map[string]string{"b.txt": "", "c.txt": tb[0]}
			wantB := map[string]string{"c.txt": ta[0]}
			if !sameMap(gotA, wantA) || !sameMap(gotB, wantB) {
				t.Fatalf("A's turn %s holds %v, want %v; B's turn %s holds %v, want %v", ta[0], gotA, wantA, tb[0], gotB, wantB)
			}
			if r := ckptOK(t, root, "verify"); r.Code != 0 {
				t.Fatalf("verify: %s", r)
			}
			ckptOK(t, root, "rewind", ta[0], "--yes")
			if got := treeText(t, root); !sameMap(got, before) {
				t.Fatalf("after rewinding A's turn the folder holds %v, want %v", got, before)
			}
		})
	}
}

// treeText is the project's files and their bytes, the store and agent
// settings aside.
func treeText(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if slices.Contains([]string{".osfoundry", ".claude", ".cursor"}, rel) {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
