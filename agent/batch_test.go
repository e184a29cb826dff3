package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store"
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

// A hook.lock that is a symlink out of the project is never followed: the
// hook creates nothing outside the root, and still captures.
func TestHookLockSymlinkNotFollowed(t *testing.T) {
	for _, at := range []string{".osfoundry/hook.lock", ".osfoundry/checkpoints/hook.lock"} {
		t.Run(filepath.Base(filepath.Dir(at)), func(t *testing.T) {
			root := t.TempDir()
			target := filepath.Join(t.TempDir(), "created")
			if err := os.MkdirAll(filepath.Join(root, ".osfoundry/checkpoints"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(at))); err != nil {
				t.Fatal(err)
			}
			ev, _ := json.Marshal(map[string]any{
				"hook_event_name": "PreToolUse", "session_id": "s", "cwd": root,
				"tool_name": "Write", "tool_input": map[string]string{"file_path": filepath.Join(root, "a.txt")},
			})
			Hook("claude", bytes.NewReader(ev), &bytes.Buffer{}, HookOptions{Root: root, Getenv: func(string) string { return "" }})
			if _, err := os.Lstat(target); !os.IsNotExist(err) {
				t.Fatalf("hook.lock was followed out of the project: %v", err)
			}
			s, err := store.Open(root, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if log, err := s.Log(false); err != nil || len(log) != 1 || log[0].Files != 1 {
				t.Fatalf("log %+v, %v: want one turn holding a.txt", log, err)
			}
		})
	}
}
