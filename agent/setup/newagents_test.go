package setup

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExcludeRoundTrip: install's exclude lines go in under their marker,
// the user's lines (and a pattern the user wrote already) stay, and
// removal gives back the file's bytes.
func TestExcludeRoundTrip(t *testing.T) {
	root := t.TempDir()
	info := filepath.Join(root, ".git", "info")
	if err := os.MkdirAll(info, 0o755); err != nil {
		t.Fatal(err)
	}
	orig := "# git ls-files --others --exclude-from=.git/info/exclude\n*.swp" // no final newline
	path := filepath.Join(info, "exclude")
	os.WriteFile(path, []byte(orig), 0o644)
	x, err := Exclude(root, "cline", true)
	if err != nil || len(x.Lines) != len(clineEvents) || x.Path != path {
		t.Fatalf("add: %+v, %v", x, err)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), orig+"\n") || !strings.Contains(string(b), "\n/.clinerules/hooks/PreToolUse\n") {
		t.Fatalf("exclude after add:\n%s", b)
	}
	if x, _ := Exclude(root, "cline", true); len(x.Lines) != 0 {
		t.Fatalf("second add added %v", x.Lines)
	}
	if x, err := Exclude(root, "cline", false); err != nil || len(x.Lines) != len(clineEvents) {
		t.Fatalf("remove: %+v, %v", x, err)
	}
	// The missing final newline was added; everything else is as it was.
	if b, _ := os.ReadFile(path); string(b) != orig+"\n" {
		t.Fatalf("exclude after remove: %q", b)
	}
	// A pattern the user wrote is theirs: not added, never removed.
	os.WriteFile(path, []byte("/.claude/settings.local.json\n"), 0o644)
	if x, _ := Exclude(root, "claude", true); len(x.Lines) != 0 {
		t.Fatalf("added %v over the user's own line", x.Lines)
	}
	if x, _ := Exclude(root, "claude", false); len(x.Lines) != 0 {
		t.Fatalf("removed the user's line: %v", x.Lines)
	}
	// A shared config (Gemini CLI's settings.json) is the user's to commit.
	if f := ExcludedFiles("gemini"); len(f) != 0 {
		t.Fatalf("gemini: %v", f)
	}
	// Outside a git repository nothing happens.
	if x, err := Exclude(t.TempDir(), "claude", true); err != nil || x.Path != "" {
		t.Fatalf("no repository: %+v %v", x, err)
	}
}

// TestExcludeWorktree: a worktree's .git file leads to the common git
// dir's info/exclude.
func TestExcludeWorktree(t *testing.T) {
	top := t.TempDir()
	common := filepath.Join(top, "repo", ".git")
	wt := filepath.Join(common, "worktrees", "w")
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(wt, "commondir"), []byte("../..\n"), 0o644)
	root := filepath.Join(top, "w")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: "+wt+"\n"), 0o644)
	x, err := Exclude(root, "pi", true)
	if err != nil || x.Path != filepath.Join(common, "info", "exclude") || !slices.Equal(x.Lines, []string{"/.pi/extensions/ckpt.ts"}) {
		t.Fatalf("%+v %v", x, err)
	}
}

// TestClineInstall: five executable scripts, all or none: a hook file of
// the user's in the way leaves every file as it was.
func TestClineInstall(t *testing.T) {
	root := t.TempDir()
	opt := InstallOptions{Root: root, Exe: testExe}
	c, err := Install("cline", opt)
	if err != nil || len(c.More) != len(clineEvents)-1 {
		t.Fatalf("%+v %v", c, err)
	}
	for _, ev := range clineEvents {
		fi, err := os.Stat(filepath.Join(root, ".clinerules", "hooks", ev))
		if err != nil || fi.Mode().Perm() != 0o755 {
			t.Fatalf("%s: %v %v", ev, fi, err)
		}
	}
	if _, err := Uninstall("cline", opt); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(root, ".clinerules", "hooks", "PostToolUse")
	os.MkdirAll(filepath.Dir(mine), 0o755)
	os.WriteFile(mine, []byte("#!/bin/sh\necho mine\n"), 0o755)
	if _, err := Install("cline", opt); err == nil || !strings.Contains(err.Error(), mine) {
		t.Fatalf("install over the user's hook: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(mine))
	if len(entries) != 1 {
		t.Fatalf("a refused install left %v", entries)
	}
	if _, err := Uninstall("cline", opt); err == nil {
		t.Fatalf("uninstall with only the user's hook: %v", err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "#!/bin/sh\necho mine\n" {
		t.Fatalf("the user's hook changed: %q", b)
	}
}

// TestCopilotFile: one file both Copilot CLI (bash, timeoutSec) and VS
// Code (command, timeout) read, each event once.
func TestCopilotFile(t *testing.T) {
	data := renderCopilotHooks("/opt/ckpt & co/ckpt")
	var f struct {
		Version int                      `json:"version"`
		Hooks   map[string][]copilotHook `json:"hooks"`
	}
	if err := json.Unmarshal(data, &f); err != nil || f.Version != 1 || len(f.Hooks) != len(copilotEvents) {
		t.Fatalf("%v\n%s", err, data)
	}
	for ev, hs := range f.Hooks {
		want := HookCommand("/opt/ckpt & co/ckpt", "copilot")
		if len(hs) != 1 || hs[0].Bash != want || hs[0].Command != want || hs[0].Timeout == 0 || hs[0].Timeout != hs[0].TimeoutSec {
			t.Fatalf("%s: %+v", ev, hs)
		}
	}
	if exe, ok := (ownedInstaller{render: renderCopilotHooks, find: findCopilotExe}).owner(data); !ok || exe != "/opt/ckpt & co/ckpt" {
		t.Fatalf("owner %q %v", exe, ok)
	}
}
