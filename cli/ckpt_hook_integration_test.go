package cli

import (
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// TestHookExecutable: where ckpt-hook stands next to ckpt, install points
// the agents' hooks at it, the commands it writes record a turn as `ckpt
// hook` does, a reinstall without it goes back to `ckpt hook`, and
// uninstall takes either out.
func TestHookExecutable(t *testing.T) {
	bin := t.TempDir()
	data, err := os.ReadFile(ckptBin)
	if err != nil {
		t.Fatal(err)
	}
	ck := filepath.Join(bin, "ckpt")
	if err := os.WriteFile(ck, data, 0o755); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(bin, "ckpt-hook")
	if out, err := exec.Command("go", "build", "-o", small, "../cmd/ckpt-hook").CombinedOutput(); err != nil {
		t.Fatalf("building ckpt-hook: %v\n%s", err, out)
	}
	root := t.TempDir()
	gitRun(t, root, "init", "-q")
	writeText(t, root, "a.txt", "before\n")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(ck, args...)
		cmd.Dir = root
		cmd.Env = ckptEnv("", nil)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("ckpt %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("install", "claude")
	var cfg struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	commands := func() map[string]string {
		t.Helper()
		cfg.Hooks = nil
		if err := json.Unmarshal([]byte(readText(t, root, ".claude/settings.local.json")), &cfg); err != nil {
			t.Fatal(err)
		}
		byEvent := map[string]string{}
		for ev, groups := range cfg.Hooks {
			for _, g := range groups {
				for _, h := range g.Hooks {
					byEvent[ev] = h.Command
				}
			}
		}
		return byEvent
	}
	cmds := commands()
	want := small + " hook claude"
	if cmds["PreToolUse"] != want || cmds["UserPromptSubmit"] != want || cmds["PostToolUse"] != want {
		t.Fatalf("install wrote %v, want every command to be %q", cmds, want)
	}
	// The agent runs the command through a shell, its event on stdin.
	hook := func(event string) {
		t.Helper()
		cmd := exec.Command("sh", "-c", cmds["PreToolUse"])
		cmd.Dir = root
		cmd.Env = append(ckptEnv("", nil), "CLAUDE_PROJECT_DIR="+root)
		cmd.Stdin = strings.NewReader(event)
		out, err := cmd.CombinedOutput()
		if err != nil || len(out) != 0 {
			t.Fatalf("the hook: %v, output %q", err, out)
		}
	}
	ev := func(name string) string {
		return `{"session_id":"s1","cwd":"` + root + `","hook_event_name":"` + name + `","prompt":"edit a","tool_name":"Write","tool_input":{"file_path":"` + filepath.Join(root, "a.txt") + `","content":"agent\n"},"tool_use_id":"t1"}`
	}
	hook(ev("UserPromptSubmit"))
	hook(ev("PreToolUse"))
	writeText(t, root, "a.txt", "agent\n")
	hook(ev("PostToolUse"))
	if show := run("show", "1"); !strings.Contains(show, "a.txt") || !strings.Contains(show, "modified") {
		t.Fatalf("the turn ckpt-hook recorded:\n%s", show)
	}
	run("rewind", "1", "--yes")
	if got := readText(t, root, "a.txt"); got != "before\n" {
		t.Fatalf("after the rewind a.txt holds %q", got)
	}
	// doctor finds the two from one build, and a ckpt-hook from another
	// (no source revision recorded) it flags.
	binaryCheck := func() string {
		t.Helper()
		cmd := exec.Command(ck, "doctor", "claude", "--json")
		cmd.Dir = root
		cmd.Env = ckptEnv("", nil)
		out, _ := cmd.Output()
		var ds []struct {
			Checks []struct {
				Check  string `json:"check"`
				OK     bool   `json:"ok"`
				Detail string `json:"detail"`
			} `json:"checks"`
		}
		if err := json.Unmarshal(out, &ds); err != nil || len(ds) != 1 {
			t.Fatalf("doctor --json: %v\n%s", err, out)
		}
		for _, c := range ds[0].Checks {
			if c.Check == "binary" {
				return fmt.Sprint(c.OK, " ", c.Detail)
			}
		}
		t.Fatalf("doctor --json has no binary check:\n%s", out)
		return ""
	}
	if got := binaryCheck(); !strings.HasPrefix(got, "true the hooks run this ckpt") {
		t.Fatalf("doctor on ckpt-hook from the same build: %s", got)
	}
	// Another build: with the source revision where ckpt has none, or
	// without it where ckpt has one.
	bi, err := buildinfo.ReadFile(ck)
	if err != nil {
		t.Fatal(err)
	}
	hasRev := func(bi *debug.BuildInfo) bool {
		return slices.ContainsFunc(bi.Settings, func(s debug.BuildSetting) bool { return s.Key == "vcs.revision" })
	}
	vcs := "-buildvcs=true"
	if hasRev(bi) {
		vcs = "-buildvcs=false"
	}
	out, err := exec.Command("go", "build", vcs, "-o", small, "../cmd/ckpt-hook").CombinedOutput()
	if err == nil {
		var hb *debug.BuildInfo
		if hb, err = buildinfo.ReadFile(small); err == nil && hasRev(hb) == hasRev(bi) {
			err = fmt.Errorf("go build %s records the revision as ckpt's build does", vcs)
		}
	}
	if err != nil {
		t.Logf("no ckpt-hook of another build to check doctor with (%v): %s", err, out)
	} else if got := binaryCheck(); !strings.HasPrefix(got, "false") || !strings.Contains(got, "another version") {
		t.Fatalf("doctor on ckpt-hook from another build: %s", got)
	}
	// A usage mistake still answers Gemini and says nothing on stderr.
	out, err = exec.Command(small, "hook", "nope", "gemini").Output()
	if err != nil || string(out) != "{}\n" {
		t.Fatalf("ckpt-hook with a bad agent: %v, %q", err, out)
	}
	if err := os.Remove(small); err != nil {
		t.Fatal(err)
	}
	run("install", "claude")
	if got := commands()["PreToolUse"]; got != ck+" hook claude" {
		t.Fatalf("without ckpt-hook, install wrote %q", got)
	}
	run("uninstall", "claude")
	if _, err := os.Stat(filepath.Join(root, ".claude", "settings.local.json")); !os.IsNotExist(err) {
		t.Fatalf("uninstall left the settings file: %v", err)
	}
}

// TestHookExecutableArgs: ckpt-hook takes its arguments as ckpt hook
// does — --root before or after, as one argument or two — and answers a
// usage mistake the same way, with Gemini's {} and nothing captured.
func TestHookExecutableArgs(t *testing.T) {
	small := filepath.Join(t.TempDir(), "ckpt-hook")
	if out, err := exec.Command("go", "build", "-o", small, "../cmd/ckpt-hook").CombinedOutput(); err != nil {
		t.Fatalf("building ckpt-hook: %v\n%s", err, out)
	}
	for _, form := range [][]string{
		{"hook", "gemini", "--root", "ROOT"},
		{"hook", "gemini", "--root=ROOT"},
		{"hook", "--root", "ROOT", "gemini"},
		{"--root", "ROOT", "hook", "gemini"},
		{"hook", "gemini", "extra"},
		{"hook", "gemini", "--root"},
		{"hook", "nope", "gemini"},
	} {
		var got [2]string
		for i, prog := range []string{ckptBin, small} {
			root := t.TempDir()
			writeText(t, root, "a.txt", "a\n")
			args := make([]string, len(form))
			for k, a := range form {
				args[k] = strings.ReplaceAll(a, "ROOT", root)
			}
			cmd := exec.Command(prog, args...)
			cmd.Dir = t.TempDir() // the root comes from --root alone
			cmd.Env = ckptEnv("", nil)
			cmd.Stdin = strings.NewReader(`{"hook_event_name":"BeforeTool","session_id":"g","cwd":"` + root + `","tool_name":"write_file","tool_input":{"file_path":"` + filepath.Join(root, "a.txt") + `","content":"b"}}`)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || stderr.Len() != 0 {
				t.Fatalf("%s %q: %v, stderr %q", filepath.Base(prog), args, err, stderr.String())
			}
			_, serr := os.Stat(filepath.Join(root, ".osfoundry", "checkpoints", "turns"))
			got[i] = fmt.Sprintf("stdout %q, captured %v", out, serr == nil)
		}
		if got[0] != got[1] {
			t.Errorf("%q: ckpt hook gives %s, ckpt-hook %s", form, got[0], got[1])
		}
		if !strings.HasPrefix(got[1], `stdout "{}\n"`) {
			t.Errorf("%q: Gemini gets %s", form, got[1])
		}
	}
}
