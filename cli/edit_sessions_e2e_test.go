//go:build linux

package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// claudeWrite is a Claude Code event of session for the Write tool
// writing path.
func claudeWrite(root, session, name, path string) string {
	ev := map[string]any{"session_id": session, "cwd": root, "hook_event_name": name, "prompt": "do it",
		"tool_name": "Write", "tool_input": map[string]any{"file_path": filepath.Join(root, path), "content": "x"},
		"tool_use_id": session + "-write-" + path}
	b, _ := json.Marshal(ev)
	return string(b)
}

// TestOtherSessionEditDuringCommand: while session A's shell command
// runs, session B's Write tool makes b.txt and rewrites a.txt (each
// captured and sealed in B's turn), then B runs a command making c.txt.
// A's closing sweep leaves B's writes to B's turn: reverting A's turn
// takes out A's own change and keeps B's edits (c.txt, made while both
// commands ran, is shared, so the revert leaves it as a conflict), and
// rewinding A's turn gives back the folder before both.
func TestOtherSessionEditDuringCommand(t *testing.T) {
	ck, small := hookPair(t)
	for name, exe := range map[string]string{"ckpt-hook": small, "ckpt hook": ck} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeTexts(t, root, map[string]string{"a.txt": "a\n", "x.txt": "x\n"})
			before := treeText(t, root)
			const cmdA = "make gen"
			a := func(name, command string) {
				agentHook(t, exe, "claude", root, claudeIn(root, "sess-a", name, command))
			}
			b := func(name, command string) {
				agentHook(t, exe, "claude", root, claudeIn(root, "sess-b", name, command))
			}
			bWrite := func(path, data string) {
				agentHook(t, exe, "claude", root, claudeWrite(root, "sess-b", "PreToolUse", path))
				writeText(t, root, path, data)
				agentHook(t, exe, "claude", root, claudeWrite(root, "sess-b", "PostToolUse", path))
			}
			a("UserPromptSubmit", "")
			b("UserPromptSubmit", "")
			a("PreToolUse", cmdA)
			writeText(t, root, "x.txt", "x by A\n")
			bWrite("b.txt", "b by B\n")
			bWrite("a.txt", "a by B\n")
			b("PreToolUse", "echo c > c.txt")
			writeText(t, root, "c.txt", "c by B\n")
			b("PostToolUse", "echo c > c.txt")
			b("Stop", "")
			a("PostToolUse", cmdA)
			a("Stop", "")

			turns := turnsOf(t, root, "claude")
			if len(turns) != 2 {
				t.Fatalf("claude turns %v", turns)
			}
			ta, tb := turns[0], turns[1]
			gotA, gotB := sharedIn(t, root, ta), sharedIn(t, root, tb)
			wantA := map[string]string{"x.txt": "", "c.txt": tb}
			wantB := map[string]string{"a.txt": "", "b.txt": "", "c.txt": ta}
			if !sameMap(gotA, wantA) || !sameMap(gotB, wantB) {
				t.Fatalf("A's turn %s holds %v, want %v; B's turn %s holds %v, want %v", ta, gotA, wantA, tb, gotB, wantB)
			}
			ckptCode(t, root, 3, "revert", ta, "--yes")
			want := map[string]string{"a.txt": "a by B\n", "b.txt": "b by B\n", "c.txt": "c by B\n", "x.txt": "x\n"}
			if got := treeText(t, root); !sameMap(got, want) {
				t.Fatalf("after reverting A's turn the folder holds %v, want %v", got, want)
			}
			ckptOK(t, root, "undo", "--yes")
			ckptOK(t, root, "rewind", ta, "--yes")
			if got := treeText(t, root); !sameMap(got, before) {
				t.Fatalf("after rewinding A's turn the folder holds %v, want %v", got, before)
			}
		})
	}
}
