//go:build linux

package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// manyFiles writes n small files under root, in folders of 100.
func manyFiles(t *testing.T, root string, n int) {
	t.Helper()
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("d%03d/f%05d.txt", i/100, i)] = fmt.Sprintf("file %d\n", i)
	}
	writeTexts(t, root, files)
}

// TestHookFirstCopyOutOfTime: a hook's first sweep that runs past its
// time (CKPT_HOOK_COPY_BUDGET, here a nanosecond) returns at once, with a
// clear line in the error log and no baseline; the next call, with time,
// takes the copy, and then the agent's commands are recorded.
func TestHookFirstCopyOutOfTime(t *testing.T) {
	root := t.TempDir()
	manyFiles(t, root, 3000)
	hookRun(t, ckptBin, root, claudeEvent(root, "UserPromptSubmit", "", ""), "CKPT_WATCHER=off")
	hookRun(t, ckptBin, root, claudeEvent(root, "PreToolUse", "make", ""), "CKPT_WATCHER=off", "CKPT_HOOK_COPY_BUDGET=1ns")
	if pathExists(filepath.Join(storeFolder(root), "baseline")) {
		t.Fatalf("a first copy out of time left a baseline")
	}
	r := ckptOK(t, root, "log", "--errors")
	for _, want := range []string{"the first copy of the folder (3000 files", "did not fit in the time given", "the next sweep goes on from there", "ckpt install claude --first-copy"} {
		if !strings.Contains(r.Stdout, want) {
			t.Fatalf("the error log lacks %q:\n%s", want, r.Stdout)
		}
	}
	hookRun(t, ckptBin, root, claudeEvent(root, "PostToolUse", "make", ""), "CKPT_WATCHER=off")
	if !pathExists(filepath.Join(storeFolder(root), "baseline")) {
		t.Fatalf("the next call did not take the first copy")
	}
	hookRun(t, ckptBin, root, claudeEvent(root, "PreToolUse", "echo x > d000/f00000.txt", ""), "CKPT_WATCHER=off")
	writeText(t, root, "d000/f00000.txt", "x\n")
	hookRun(t, ckptBin, root, claudeEvent(root, "PostToolUse", "echo x > d000/f00000.txt", ""), "CKPT_WATCHER=off")
	if got := ckptOK(t, root, "show", "1", "--json"); !strings.Contains(got.Stdout, `"d000/f00000.txt"`) {
		t.Fatalf("the command after the first copy was not recorded:\n%s", got.Stdout)
	}
}

// TestInstallFirstCopy: install --first-copy takes the first copy (no
// terminal: no bar, one line); --no-first-copy leaves it; without either
// and without a terminal install only says how; SIGINT stops the copy
// between files with no baseline written, and the next install finishes.
func TestInstallFirstCopy(t *testing.T) {
	root := t.TempDir()
	manyFiles(t, root, 400)
	r := ckptOK(t, root, "install", "claude", "--no-first-copy")
	if strings.Contains(r.Stdout, "first copy") || pathExists(filepath.Join(storeFolder(root), "baseline")) {
		t.Fatalf("--no-first-copy: %s", r)
	}
	r = ckptOK(t, root, "install", "claude")
	if !strings.Contains(r.Stdout, "ckpt install claude --first-copy") || pathExists(filepath.Join(storeFolder(root), "baseline")) {
		t.Fatalf("install with no terminal: %s", r)
	}
	r = ckptOK(t, root, "install", "claude", "--first-copy")
	if !strings.Contains(r.Stdout, "took the first copy: 401 files") || !pathExists(filepath.Join(storeFolder(root), "baseline")) {
		t.Fatalf("--first-copy: %s", r)
	}
	if r = ckptOK(t, root, "install", "claude", "--first-copy"); !strings.Contains(r.Stdout, "taken already") {
		t.Fatalf("--first-copy again: %s", r)
	}
	if r := ckpt(t, root, "install", "claude", "--first-copy", "--no-first-copy"); r.Code != 2 {
		t.Fatalf("both flags: %s", r)
	}

	// Interrupted: SIGINT as soon as the hooks are in.
	big := t.TempDir()
	manyFiles(t, big, 8000)
	ctx, cancel := context.WithTimeout(context.Background(), ckptTimeout)
	defer cancel()
	cmd := ckptCommand(ctx, ckptCall{Root: big}, "install", "claude", "--first-copy")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var stdout []string
	for sc.Scan() {
		stdout = append(stdout, sc.Text())
		if strings.HasPrefix(sc.Text(), "next:") {
			time.Sleep(20 * time.Millisecond)
			cmd.Process.Signal(syscall.SIGINT)
		}
	}
	err = cmd.Wait()
	if err == nil {
		t.Skipf("the copy of 8,000 files ended before SIGINT reached it: %s", stdout)
	}
	if !strings.Contains(stderr.String(), "the first copy stopped after") || !strings.Contains(stderr.String(), "nothing is half-written") {
		t.Fatalf("interrupted install: %v\n%s\n%s", err, stdout, stderr.String())
	}
	if pathExists(filepath.Join(storeFolder(big), "baseline")) {
		t.Fatalf("an interrupted first copy left a baseline")
	}
	entries, _ := os.ReadDir(storeFolder(big))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Fatalf("an interrupted first copy left %s", e.Name())
		}
	}
	ckptOK(t, big, "verify")
	if r := ckptOK(t, big, "install", "claude", "--first-copy"); !strings.Contains(r.Stdout, "took the first copy: 8001 files") {
		t.Fatalf("after the interrupted copy: %s", r)
	}
}
