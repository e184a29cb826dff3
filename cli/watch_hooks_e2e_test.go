//go:build linux

package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hookPair puts ckpt and ckpt-hook side by side in a folder of their own.
func hookPair(t *testing.T) (ck, small string) {
	t.Helper()
	bin := t.TempDir()
	data, err := os.ReadFile(ckptBin)
	if err != nil {
		t.Fatal(err)
	}
	ck = filepath.Join(bin, "ckpt")
	if err := os.WriteFile(ck, data, 0o755); err != nil {
		t.Fatal(err)
	}
	small = filepath.Join(bin, "ckpt-hook")
	if out, err := exec.Command("go", "build", "-o", small, "../cmd/ckpt-hook").CombinedOutput(); err != nil {
		t.Fatalf("building ckpt-hook: %v\n%s", err, out)
	}
	return ck, small
}

// claudeEvent is a Claude Code hook event for the Bash tool (or, with
// path set, the Write tool).
func claudeEvent(root, name, command, path string) string {
	tool := `"tool_name":"Bash","tool_input":{"command":` + quoteJSON(command) + `}`
	if path != "" {
		tool = `"tool_name":"Write","tool_input":{"file_path":` + quoteJSON(filepath.Join(root, path)) + `,"content":"x"}`
	}
	return `{"session_id":"s1","cwd":` + quoteJSON(root) + `,"hook_event_name":"` + name + `","prompt":"do it",` + tool + `,"tool_use_id":"t1"}`
}

func quoteJSON(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// hookRun runs exe hook claude with the event on stdin and its output
// in pipes, and fails if it does not return, pipes closed, within a
// minute (a bound for a loaded machine, not a measure).
func hookRun(t *testing.T, exe, root, event string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "hook", "claude")
	cmd.Dir = root
	cmd.Env = append(ckptEnv("", env), "CLAUDE_PROJECT_DIR="+root)
	cmd.Stdin = strings.NewReader(event)
	cmd.WaitDelay = 10 * time.Second // a child holding the pipes shows as an error
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Fatalf("%s hook claude: %v, output %q", exe, err, out)
	}
}

// TestHookStartsWatcher: a shell step with no watcher running starts
// one by running the ckpt beside ckpt-hook, and returns at once with
// nothing of the watcher holding its pipes; the next sweeps are fed by
// it; a stopped (hung) watcher costs the hooks nothing but a full sweep.
func TestHookStartsWatcher(t *testing.T) {
	ck, small := hookPair(t)
	root := t.TempDir()
	writeText(t, root, "a.txt", "a\n")
	hookRun(t, small, root, claudeEvent(root, "UserPromptSubmit", "", ""), "CKPT_WATCHER=always")
	hookRun(t, small, root, claudeEvent(root, "PreToolUse", "echo b > b.txt", ""), "CKPT_WATCHER=always")
	sock := filepath.Join(storeFolder(root), "watch.sock")
	waitFor(t, func() string { return "the watcher's socket" }, func() bool { return pathExists(sock) })
	t.Cleanup(func() { exec.Command(ck, "--root", root, "watch", "--stop").Run() })
	writeText(t, root, "b.txt", "b\n")
	hookRun(t, small, root, claudeEvent(root, "PostToolUse", "echo b > b.txt", ""))
	if got := turnPaths(t, root, "1"); strings.Join(got, ",") != "b.txt" {
		t.Fatalf("turn 1 holds %v", got)
	}
	// The watcher answers within a few milliseconds or not at all: on a
	// loaded machine a sweep may go on without it, so sweep until one
	// was answered (watch.token holds the answer's token).
	waitFor(t, func() string { return "a sweep answered by the watcher (watch.token)" }, func() bool {
		hookRun(t, small, root, claudeEvent(root, "PostToolUse", "true", ""))
		return pathExists(filepath.Join(storeFolder(root), "watch.token"))
	})
	if r := ckpt(t, root, "doctor"); !strings.Contains(r.Stdout, "watcher: the background watcher runs") {
		t.Fatalf("doctor on a running watcher:\n%s", r.Stdout)
	}

	// A watcher that hangs (stopped by a signal) answers nothing: the
	// hooks go on with full sweeps, and record the same.
	pid := strings.Fields(readText(t, root, ".osfoundry/checkpoints/watch.pid"))[0]
	if out, err := exec.Command("kill", "-STOP", pid).CombinedOutput(); err != nil {
		t.Fatalf("kill -STOP %s: %v %s", pid, err, out)
	}
	defer exec.Command("kill", "-CONT", pid).Run()
	hookRun(t, small, root, claudeEvent(root, "PreToolUse", "rm a.txt", ""))
	removePath(t, root, "a.txt")
	hookRun(t, small, root, claudeEvent(root, "PostToolUse", "rm a.txt", ""))
	if got := turnPaths(t, root, "1"); strings.Join(got, ",") != "a.txt,b.txt" {
		t.Fatalf("turn 1 holds %v with the watcher stopped", got)
	}
	exec.Command("kill", "-CONT", pid).Run()
	if r := ckptOK(t, root, "watch", "--stop"); !strings.Contains(r.Stderr, "stopped") {
		t.Fatalf("watch --stop: %s", r)
	}
	if pathExists(sock) {
		t.Fatalf("the socket outlived the watcher")
	}
}

// TestWatchBesideHooks: an agent with hooks while ckpt watch runs:
// the hooks' turn holds what the agent did, and no change is recorded
// twice; what changes after the agent's turn ended is the watcher's.
func TestWatchBesideHooks(t *testing.T) {
	root, w := watchedProject(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	hookRun(t, ckptBin, root, claudeEvent(root, "UserPromptSubmit", "", ""))
	hookRun(t, ckptBin, root, claudeEvent(root, "PreToolUse", "", "a.txt"))
	writeText(t, root, "a.txt", "agent\n")
	hookRun(t, ckptBin, root, claudeEvent(root, "PostToolUse", "", "a.txt"))
	hookRun(t, ckptBin, root, claudeEvent(root, "PreToolUse", "sed -i s/b/B/ b.txt", ""))
	sh(t, root, "sed -i s/b/B/ b.txt && echo n > n.txt")
	// The watcher may see the command's writes before its hook returns.
	time.Sleep(300 * time.Millisecond)
	hookRun(t, ckptBin, root, claudeEvent(root, "PostToolUse", "sed -i s/b/B/ b.txt", ""))
	hookRun(t, ckptBin, root, claudeEvent(root, "Stop", "", ""))
	writeText(t, root, "mine.txt", "typed by hand after the agent\n")
	hasTurnWith(t, root, "mine.txt")
	if got := strings.Join(turnPaths(t, root, "1"), ","); got != "a.txt,b.txt,n.txt" {
		t.Fatalf("the hooks' turn holds %s", got)
	}
	for _, e := range watchedTurns(t, root) {
		for _, p := range turnPaths(t, root, e.Turn) {
			if p != "mine.txt" {
				t.Fatalf("watched turn %s recorded %s, which the hooks' turn holds", e.Turn, p)
			}
		}
	}
	w.stop(t, syscall.SIGINT)
}
