package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallThroughBinary: dry run, install, the installed command
// working as a hook, idempotence, uninstall giving the bytes back, a
// malformed config, a usage error, and the warning for a `go run` build.
func TestInstallThroughBinary(t *testing.T) {
	bin := buildHookBinary(t)
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "src")
	if err := os.MkdirAll(filepath.Join(root, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(root, ".claude", "settings.local.json")
	if err := os.WriteFile(settings, []byte(userClaudeSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	env := hookEnv(nil)
	read := func() string {
		b, err := os.ReadFile(settings)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	// From a subfolder: the root is found by walking up to .git.
	r := runBinary(bin, sub, nil, env, "install", "claude", "--dry-run")
	if r.Code != 4 || !strings.Contains(r.Stdout, "+++ b/.claude/settings.local.json") || !strings.Contains(r.Stdout, bin+" hook claude") {
		t.Fatalf("dry run: %+v", r)
	}
	if read() != userClaudeSettings {
		t.Fatal("dry run wrote the file")
	}
	r = runBinary(bin, sub, nil, env, "install", "claude")
	if r.Code != 0 || r.Stderr != "" {
		t.Fatalf("install: %+v", r)
	}
	installed := read()
	// The per-user file names this machine's binary: kept out of git, and
	// said so; then the next step.
	exclude := filepath.Join(root, ".git", "info", "exclude")
	wantExclude := "# ckpt install claude (ckpt uninstall claude removes this and the next line)\n/.claude/settings.local.json\n"
	if b, _ := os.ReadFile(exclude); string(b) != wantExclude || !strings.Contains(r.Stdout, "added /.claude/settings.local.json to .git/info/exclude") {
		t.Fatalf("install: exclude holds %q; said %q", b, r.Stdout)
	}
	if !strings.Contains(r.Stdout, "next: open `ckpt` beside Claude Code") {
		t.Fatalf("install names no next step: %q", r.Stdout)
	}
	if !strings.Contains(installed, `"./scripts/guard.sh"`) || !strings.Contains(installed, `"Bash(go test:*)"`) {
		t.Fatalf("install dropped the user's settings:\n%s", installed)
	}
	if r := runBinary(bin, sub, nil, env, "install", "claude"); r.Code != 0 || read() != installed {
		t.Fatalf("second install: %+v", r)
	}

	// The command install wrote works as the agent runs it: through a
	// shell, from wherever the agent happens to be.
	var cfg struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(installed), &cfg); err != nil {
		t.Fatal(err)
	}
	command := cfg.Hooks["UserPromptSubmit"][0].Hooks[0].Command
	shell := func(stdin string) {
		t.Helper()
		cmd := exec.Command("sh", "-c", command)
		cmd.Dir = sub
		cmd.Env = hookEnv(map[string]string{"CLAUDE_PROJECT_DIR": root})
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil || len(out) != 0 {
			t.Fatalf("%s: %v %q", command, err, out)
		}
	}
	shell(fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":"s","cwd":%q,"prompt":"make main.go"}`, sub))
	shell(fmt.Sprintf(`{"hook_event_name":"PreToolUse","session_id":"s","cwd":%q,"tool_name":"Write","tool_input":{"file_path":%q}}`, sub, filepath.Join(sub, "main.go")))
	log := runBinary(bin, root, nil, env, "log", "--json")
	var entries []struct {
		Turn, Label string
		Files       int
		Source      struct{ Agent string }
	}
	if err := json.Unmarshal([]byte(log.Stdout), &entries); err != nil || len(entries) != 1 {
		t.Fatalf("log: %v %+v", err, log)
	}
	if e := entries[0]; e.Label != "make main.go" || e.Files != 1 || e.Source.Agent != "claude" {
		t.Fatalf("turn %+v", e)
	}

	r = runBinary(bin, sub, nil, env, "uninstall", "claude")
	if r.Code != 0 || read() != userClaudeSettings {
		t.Fatalf("uninstall: %+v\n%s", r, read())
	}
	if b, _ := os.ReadFile(exclude); len(b) != 0 || !strings.Contains(r.Stdout, "removed /.claude/settings.local.json from .git/info/exclude") {
		t.Fatalf("uninstall: exclude holds %q; said %q", b, r.Stdout)
	}
	if r := runBinary(bin, sub, nil, env, "uninstall", "claude"); r.Code != 1 || !strings.Contains(r.Stderr, settings) {
		t.Fatalf("uninstall when not installed: %+v", r)
	}

	// Malformed: exit 1, the file named, nothing written. Codex's config
	// is strict JSON (Gemini's may hold comments: TestGeminiCommentedSettings).
	bad := "{\n  // my hooks\n  \"hooks\": {}\n}\n"
	codex := filepath.Join(root, ".codex", "hooks.json")
	os.MkdirAll(filepath.Dir(codex), 0o755)
	os.WriteFile(codex, []byte(bad), 0o644)
	r = runBinary(bin, root, nil, env, "install", "codex")
	if b, _ := os.ReadFile(codex); r.Code != 1 || !strings.Contains(r.Stderr, codex) || !strings.Contains(r.Stderr, "comments") || string(b) != bad {
		t.Fatalf("install over a commented config: %+v", r)
	}
	os.Remove(codex)

	if r := runBinary(bin, root, nil, env, "install", "nosuchagent"); r.Code != 2 || !strings.Contains(r.Stderr, "unknown agent") {
		t.Fatalf("unknown agent: %+v", r)
	}
	if r := runBinary(bin, root, nil, env, "install"); r.Code != 2 {
		t.Fatalf("no agent: %+v", r)
	}

	// A ckpt on $PATH that links to this binary (a package manager's
	// install) is named by the link, which survives upgrades.
	linkDir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(linkDir, "ckpt")); err != nil {
		t.Fatal(err)
	}
	linkEnv := []string{"PATH=" + linkDir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	r = runBinary(filepath.Join(linkDir, "ckpt"), root, nil, linkEnv, "install", "codex", "--dry-run")
	if r.Code != 4 || !strings.Contains(r.Stdout, `"command": "`+filepath.Join(linkDir, "ckpt")+` hook codex"`) {
		t.Fatalf("install through a link on PATH: %+v", r)
	}
	r = runBinary(bin, root, nil, env, "install", "codex", "--dry-run")
	if r.Code != 4 || !strings.Contains(r.Stdout, `"command": "`+bin+` hook codex"`) {
		t.Fatalf("install with no ckpt on PATH: %+v", r)
	}

	// A binary where `go run` leaves its builds gets a warning.
	tmpBuild, err := os.MkdirTemp("", "go-build")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmpBuild)
	tmpBin := filepath.Join(tmpBuild, "b001", "exe", "ckpt")
	os.MkdirAll(filepath.Dir(tmpBin), 0o755)
	data, _ := os.ReadFile(bin)
	if err := os.WriteFile(tmpBin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	r = runBinary(tmpBin, root, nil, env, "install", "codex", "--dry-run")
	if r.Code != 4 || !strings.Contains(r.Stderr, "temporary") {
		t.Fatalf("go run build: %+v", r)
	}
}

// TestOpencodePluginInNode runs the plugin install writes (Node standing in
// for Bun) against the built binary.
func TestOpencodePluginInNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	bin := buildHookBinary(t)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	os.WriteFile(filepath.Join(root, "README.md"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(root, "src", "a.txt"), []byte("a\n"), 0o644)
	if r := runBinary(bin, root, nil, hookEnv(nil), "install", "opencode"); r.Code != 0 {
		t.Fatalf("install: %+v", r)
	}
	// Node loads ES modules by extension: a copy named .mjs.
	src, err := os.ReadFile(filepath.Join(root, ".opencode", "plugins", "ckpt.ts"))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	plugin := filepath.Join(work, "ckpt.mjs")
	harness := filepath.Join(work, "harness.mjs")
	os.WriteFile(plugin, src, 0o644)
	os.WriteFile(harness, []byte(pluginHarness), 0o644)
	out, err := exec.Command(node, harness, plugin, root).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != `["chat.message","tool.execute.before","tool.execute.after","tool.execute.before","tool.execute.after"]` {
		t.Fatalf("events sent: %s", got)
	}
	r := runBinary(bin, root, nil, hookEnv(nil), "show", "1", "--json")
	var show struct {
		Files []struct{ Path, Status string }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &show); err != nil {
		t.Fatalf("show: %v %+v", err, r)
	}
	got := map[string]string{}
	for _, f := range show.Files {
		got[f.Path] = f.Status
	}
	want := map[string]string{"README.md": "modified", "src/a.txt": "deleted", "lib/a.txt": "created"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("turn 1 files %v, want %v", got, want)
	}
	r = runBinary(bin, root, nil, hookEnv(nil), "log", "--json")
	if !strings.Contains(r.Stdout, `"label": "tidy the readme"`) && !strings.Contains(r.Stdout, `"label":"tidy the readme"`) {
		t.Fatalf("log: %s", r.Stdout)
	}
	// Sealed: a hand edit now shows as such.
	os.WriteFile(filepath.Join(root, "README.md"), []byte("by hand\n"), 0o644)
	r = runBinary(bin, root, nil, hookEnv(nil), "show", "1", "--json")
	if !strings.Contains(r.Stdout, "hand_edited") {
		t.Fatalf("the edit was not sealed: %s", r.Stdout)
	}
	if r := runBinary(bin, root, nil, hookEnv(nil), "uninstall", "opencode"); r.Code != 0 {
		t.Fatalf("uninstall: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(root, ".opencode")); !os.IsNotExist(err) {
		t.Fatalf("uninstall left .opencode: %v", err)
	}
}
