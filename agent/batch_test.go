package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ckpt/store"
)

// A Codex patch naming a.txt and a path under a symlink loop captures
// a.txt, and logs the bad path alone.
func TestHookBatchBadPathKeepsOthers(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("A0"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop", filepath.Join(root, "loop")); err != nil {
		t.Fatal(err)
	}
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n-A0\n+A1\n*** Add File: loop/x.txt\n+x\n*** End Patch\n"
	ev := func(name string) []byte {
		b, _ := json.Marshal(map[string]any{
			"hook_event_name": name, "session_id": "s", "turn_id": "t", "cwd": root,
			"tool_name": "apply_patch", "tool_input": map[string]string{"command": patch},
		})
		return b
	}
	opt := HookOptions{Root: root, Getenv: func(string) string { return "" }}
	Hook("codex", bytes.NewReader(ev("PreToolUse")), &bytes.Buffer{}, opt)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("A1"), 0o644)
	Hook("codex", bytes.NewReader(ev("PostToolUse")), &bytes.Buffer{}, opt)

	s, err := store.Open(root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	log, err := s.Log(false)
	if err != nil || len(log) != 1 {
		t.Fatalf("log %+v, %v", log, err)
	}
	files, err := s.Files(log[0].ID, false)
	if err != nil || len(files) != 1 || files[0].Path != "a.txt" || files[0].Post == nil {
		t.Fatalf("turn holds %+v, %v; want a.txt captured and sealed", files, err)
	}
	lines, _ := s.Errors()
	if len(lines) == 0 || !strings.Contains(strings.Join(lines, "\n"), "loop/x.txt") {
		t.Fatalf("the bad path is not logged: %q", lines)
	}
}
