package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailscale/hujson"

	"github.com/ckpt-dev/ckpt/agent"
)

const testExe = "/opt/ckpt tools/bin/ckpt"

// configs are existing agent configs install must merge into.
var configs = map[string]string{
	"empty object":          "{}",
	"empty object, lines":   "{\n}\n",
	"other keys":            "{\n  \"model\": \"opus\",\n  \"permissions\": {\"allow\": [\"Bash(ls:*)\"]}\n}\n",
	"empty hooks":           "{\"hooks\": {}}\n",
	"empty hooks, lines":    "{\n  \"hooks\": {\n  }\n}\n",
	"empty event arrays":    "{\"hooks\": {\"PreToolUse\": [], \"UserPromptSubmit\": [ ], \"BeforeTool\": [], \"AfterTool\": []}}",
	"compact":               `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo hi"}]}]},"model":"x"}`,
	"four spaces":           "{\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\n                \"matcher\": \"Bash\",\n                \"hooks\": [{\"type\": \"command\", \"command\": \"./guard.sh\"}]\n            }\n        ]\n    }\n}",
	"tabs":                  "{\n\t\"hooks\": {\n\t\t\"UserPromptSubmit\": [\n\t\t\t{\"hooks\": [{\"type\": \"command\", \"command\": \"date >> log\"}]}\n\t\t]\n\t},\n\t\"z\": 1\n}\n",
	"crlf":                  "{\r\n  \"hooks\": {\r\n    \"PostToolUse\": [\r\n      {\"matcher\": \"Write\", \"hooks\": [{\"type\": \"command\", \"command\": \"fmt\"}]}\r\n    ]\r\n  }\r\n}\r\n",
	"user hooks everywhere": userHooks,
	"near miss command":     `{"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "'/opt/ckpt tools/bin/ckpt' hook claude --verbose"}]}], "BeforeTool": [{"hooks": [{"type": "command", "command": "ckpt hook gemini"}]}]}}`,
	"duplicate keys":        `{"hooks": {"AfterTool": 1}, "hooks": {"PostToolUse": []}}`,
	"user's own ckpt calls": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "ckpt hook claude"}, {"type": "command", "command": "ckpt hook codex"}, {"type": "command", "command": "/usr/bin/ckpt-audit hook claude"}, {"type": "command", "command": "/usr/bin/ckpt hook claude --debug"}]}], "AfterAgent": [{"hooks": [{"type": "command", "command": "/usr/bin/ckpt  hook gemini"}, {"type": "command", "command": "/usr/bin/ck\\pt hook gemini"}]}]}}`,
	"unicode and escapes":   "{\"note\": \"caf\\u00e9 \\\"q\\\" } ]\", \"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo \\\"}\\\"\"}]}]}}",
}

const userHooks = `{
  "hooks": {
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/remind"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "./scripts/guard.sh"
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Write|Edit",
        "hooks": [
          {
            "type": "command",
            "command": "prettier --write"
          }
        ]
      }
    ],
    "BeforeTool": [
      {
        "matcher": "^run_shell_command$",
        "hooks": [
          {
            "name": "audit",
            "type": "command",
            "command": "./audit.sh"
          }
        ]
      }
    ],
    "AfterTool": []
  },
  "statusLine": {
    "type": "command",
    "command": "ckpt status"
  }
}
`

var jsonAgents = []string{"claude", "gemini", "codex", "qwen", "droid", "cursor", "windsurf"}

// ownsFiles reports an agent whose hooks are files of ckpt's own (a
// plugin, a hooks file, hook scripts), not entries in a shared config.
func ownsFiles(agentName string) bool {
	_, ok := installers[agentName].(jsonInstaller)
	return !ok
}

// hookCommands lists every (event, command) pair of a decoded config.
func hookCommands(t *testing.T, data []byte) []string {
	t.Helper()
	var cfg struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	var out []string
	for ev, raw := range cfg.Hooks {
		var groups []struct {
			Matcher string `json:"matcher"`
			Command string `json:"command"` // a flat config's hook (Cursor, Windsurf)
			Hooks   []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(raw, &groups) != nil {
			continue
		}
		for _, g := range groups {
			if g.Command != "" {
				out = append(out, ev+" "+g.Matcher+" "+g.Command)
			}
			for _, h := range g.Hooks {
				out = append(out, ev+" "+g.Matcher+" "+h.Command)
			}
		}
	}
	slices.Sort(out)
	return out
}

func ourCommands(agentName string) []string {
	var out []string
	for _, h := range installers[agentName].(jsonInstaller).hooks {
		out = append(out, h.event+" "+h.matcher+" "+HookCommand(testExe, agentName))
	}
	return out
}

func writeConfig(t *testing.T, root, agentName, content string) string {
	t.Helper()
	rel, err := ConfigPath(agentName)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestInstallRoundTrip(t *testing.T) {
	for _, agentName := range jsonAgents {
		for name, orig := range configs {
			t.Run(agentName+"/"+name, func(t *testing.T) {
				root := t.TempDir()
				path := writeConfig(t, root, agentName, orig)
				opt := InstallOptions{Root: root, Exe: testExe}

				c, err := Install(agentName, opt)
				if err != nil {
					t.Fatalf("install: %v", err)
				}
				if !c.Written {
					t.Fatalf("install wrote nothing")
				}
				installed := readFile(t, path)
				want := append(hookCommands(t, []byte(orig)), ourCommands(agentName)...)
				if name == "duplicate keys" {
					// The first "hooks" is dead for every JSON reader.
					want = ourCommands(agentName)
				}
				slices.Sort(want)
				if got := hookCommands(t, installed); !slices.Equal(got, want) {
					t.Fatalf("hooks after install:\n got %q\nwant %q\n%s", got, want, installed)
				}
				if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
					t.Errorf("mode after install = %v, want 0600 kept", fi.Mode().Perm())
				}

				c, err = Install(agentName, opt)
				if err != nil {
					t.Fatalf("second install: %v", err)
				}
				if c.Changed() || c.Written || string(readFile(t, path)) != string(installed) {
					t.Fatalf("second install changed the file")
				}

				if _, err := Uninstall(agentName, opt); err != nil {
					t.Fatalf("uninstall: %v\n%s", err, installed)
				}
				if got := string(readFile(t, path)); got != orig {
					t.Fatalf("uninstall left\n%q\nwant\n%q\ninstalled was\n%s", got, orig, installed)
				}
				if _, err := Uninstall(agentName, opt); !IsNotInstalled(err) {
					t.Fatalf("second uninstall: err %v, want not installed", err)
				}
			})
		}
	}
}

func TestInstallNewFile(t *testing.T) {
	for _, agentName := range agent.Agents() {
		t.Run(agentName, func(t *testing.T) {
			root := t.TempDir()
			opt := InstallOptions{Root: root, Exe: testExe}
			c, err := Install(agentName, opt)
			if err != nil {
				t.Fatal(err)
			}
			if c.Existed || !c.Exists || !c.Written {
				t.Fatalf("change = %+v", c)
			}
			data := readFile(t, c.Path)
			if !ownsFiles(agentName) {
				if got, want := hookCommands(t, data), ourCommands(agentName); !slices.Equal(got, sorted(want)) {
					t.Fatalf("hooks %q, want %q", got, want)
				}
			} else if got := hookExes(agentName, data, "/elsewhere/ckpt"); !slices.Equal(got, []string{testExe}) {
				t.Fatalf("%s runs %q, want [%s]:\n%s", c.Path, got, testExe, data)
			}
			if c, err := Install(agentName, opt); err != nil || c.Changed() {
				t.Fatalf("second install: %v, changed %v", err, c != nil && c.Changed())
			}
			if _, err := Uninstall(agentName, opt); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(c.Path); !os.IsNotExist(err) {
				t.Fatalf("uninstall left the file install created: %v", err)
			}
			entries, _ := os.ReadDir(root)
			if len(entries) != 0 {
				t.Fatalf("uninstall left %v in the root", entries)
			}
		})
	}
}

// TestReinstallMovedBinary: installing from a second path after the
// binary moved makes the hooks an install from the first path wrote run
// the second, where they are: one set of hooks, naming the new path. An
// uninstall from any path gives back the original bytes.
func TestReinstallMovedBinary(t *testing.T) {
	const exeA, exeB, exeC = "/tmp/a/ckpt", "/opt/ckpt tools/b/ckpt", "/usr/local/bin/ckpt"
	type start struct {
		name, content string
		exists        bool
	}
	starts := []start{{name: "no file"}}
	for name, c := range configs {
		if name != "duplicate keys" {
			starts = append(starts, start{name, c, true})
		}
	}
	for _, agentName := range agent.Agents() {
		for _, st := range starts {
			if ownsFiles(agentName) && st.exists {
				continue // ckpt's hooks are files of its own
			}
			t.Run(agentName+"/"+st.name, func(t *testing.T) {
				root := t.TempDir()
				path := filepath.Join(root, filepath.FromSlash(installers[agentName].path()))
				if st.exists {
					writeConfig(t, root, agentName, st.content)
				}
				if _, err := Install(agentName, InstallOptions{Root: root, Exe: exeA}); err != nil {
					t.Fatalf("install from A: %v", err)
				}
				c, err := Install(agentName, InstallOptions{Root: root, Exe: exeB})
				if err != nil {
					t.Fatalf("install from B: %v", err)
				}
				if !c.Written || !slices.Equal(c.Removed, []string{exeA}) {
					t.Fatalf("install from B: written %v, removed %q, want [%s]", c.Written, c.Removed, exeA)
				}
				installed := readFile(t, path)
				if got := hookExes(agentName, installed, exeB); !slices.Equal(got, []string{exeB}) {
					t.Fatalf("hooks run %q, want only %s:\n%s", got, exeB, installed)
				}
				if !ownsFiles(agentName) {
					want := commandsFor(agentName, exeB)
					if st.exists {
						want = append(hookCommands(t, []byte(st.content)), want...)
					}
					slices.Sort(want)
					if got := hookCommands(t, standard(t, installed)); !slices.Equal(got, want) {
						t.Fatalf("hooks after the second install:\n got %q\nwant %q\n%s", got, want, installed)
					}
				} else if agentName == "opencode" && !bytes.Equal(installed, renderPlugin(exeB)) {
					t.Fatalf("plugin is not B's:\n%s", installed)
				}
				if c, err := Install(agentName, InstallOptions{Root: root, Exe: exeB}); err != nil || c.Changed() {
					t.Fatalf("install from B again: %v, changed %v", err, c != nil && c.Changed())
				}
				// From a third path: ckpt's hooks go, whatever they run.
				u, err := Uninstall(agentName, InstallOptions{Root: root, Exe: exeC})
				if err != nil {
					t.Fatalf("uninstall: %v\n%s", err, installed)
				}
				if !slices.Equal(u.Removed, []string{exeB}) {
					t.Errorf("uninstall says it removed %q, want [%s]", u.Removed, exeB)
				}
				got, err := os.ReadFile(path)
				switch {
				case !st.exists && !os.IsNotExist(err):
					t.Fatalf("uninstall left the file install created: %v", err)
				case !st.exists:
					if entries, _ := os.ReadDir(root); len(entries) != 0 {
						t.Fatalf("uninstall left %v in the root", entries)
					}
				case string(got) != st.content:
					t.Fatalf("uninstall left\n%q\nwant\n%q\ninstalled was\n%s", got, st.content, installed)
				}
			})
		}
	}
}

// TestReinstallCollapsesDuplicates: a config that holds ckpt's hooks twice,
// for two binaries (as an install that did not recognise the first set
// left it), gets one set from the next install: the first set, now running
// the installing binary, where it was; the second goes. Uninstall then
// gives back the original bytes.
func TestReinstallCollapsesDuplicates(t *testing.T) {
	const exeA, exeB = "/tmp/a/ckpt", "/tmp/b/ckpt"
	for _, agentName := range jsonAgents {
		for _, name := range []string{"other keys", "user hooks everywhere", "compact", "crlf", "tabs"} {
			t.Run(agentName+"/"+name, func(t *testing.T) {
				orig := configs[name]
				twice := twoSets(t, agentName, orig, exeA, exeB)
				root := t.TempDir()
				path := writeConfig(t, root, agentName, twice)
				if got := hookExes(agentName, []byte(twice), exeB); !slices.Equal(got, []string{exeA, exeB}) {
					t.Fatalf("set up: hooks run %q", got)
				}
				c, err := Install(agentName, InstallOptions{Root: root, Exe: exeB})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(c.Removed, []string{exeA}) {
					t.Errorf("removed %q, want [%s]", c.Removed, exeA)
				}
				want := append(hookCommands(t, []byte(orig)), commandsFor(agentName, exeB)...)
				slices.Sort(want)
				if got := hookCommands(t, c.New); !slices.Equal(got, want) {
					t.Fatalf("hooks:\n got %q\nwant %q\n%s", got, want, c.New)
				}
				if _, err := Uninstall(agentName, InstallOptions{Root: root, Exe: exeB}); err != nil {
					t.Fatal(err)
				}
				if got := string(readFile(t, path)); got != orig {
					t.Fatalf("uninstall left\n%q\nwant\n%q", got, orig)
				}
			})
		}
	}
}

// twoSets is orig with ckpt's hooks added for exeA and then again for
// exeB, each set appended as an install appends it.
func twoSets(t *testing.T, agentName, orig, exeA, exeB string) string {
	t.Helper()
	inst := installers[agentName].(jsonInstaller)
	// A binary of another name is not recognised as ckpt's: its set stays
	// when exeB's is added, then takes exeA's path.
	other := filepath.Join(filepath.Dir(exeA), "other")
	a, err := inst.add(agentName, []byte(orig), true, other)
	if err != nil {
		t.Fatal(err)
	}
	b, err := inst.add(agentName, a, true, exeB)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), other, exeA)
}

// commandsFor is ourCommands for the binary at exe.
func commandsFor(agentName, exe string) []string {
	var out []string
	for _, h := range installers[agentName].(jsonInstaller).hooks {
		out = append(out, h.event+" "+h.matcher+" "+HookCommand(exe, agentName))
	}
	return out
}

// standard is JSONC data as plain JSON.
func standard(t *testing.T, data []byte) []byte {
	t.Helper()
	std, err := hujson.Standardize(slices.Clone(data))
	if err != nil {
		t.Fatalf("not JSONC: %v\n%s", err, data)
	}
	return std
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestInstallGeminiShape(t *testing.T) {
	root := t.TempDir()
	c, err := Install("gemini", InstallOptions{Root: root, Exe: "/usr/bin/ckpt"})
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Name, Type, Command string
				Timeout             int
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(c.New, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{"BeforeAgent", "BeforeTool", "AfterTool"} {
		g := cfg.Hooks[ev]
		if len(g) != 1 || len(g[0].Hooks) != 1 {
			t.Fatalf("%s: %+v", ev, g)
		}
		h := g[0].Hooks[0]
		if h.Command != "/usr/bin/ckpt hook gemini" || h.Type != "command" || h.Timeout != map[string]int{"BeforeAgent": 30000}[ev]+map[string]int{"BeforeTool": 120000, "AfterTool": 120000}[ev] || !strings.HasPrefix(h.Name, "ckpt-") {
			t.Errorf("%s hook = %+v", ev, h)
		}
		if ev != "BeforeAgent" && g[0].Matcher != geminiMatcher || !strings.HasPrefix(geminiMatcher, "^") || !strings.HasSuffix(geminiMatcher, "$") {
			t.Errorf("%s matcher %q is not anchored", ev, g[0].Matcher)
		}
	}
}

func TestUninstallKeepsLaterUserHooks(t *testing.T) {
	root := t.TempDir()
	orig := "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"a\"}]}\n    ]\n  }\n}\n"
	path := writeConfig(t, root, "claude", orig)
	opt := InstallOptions{Root: root, Exe: testExe}
	if _, err := Install("claude", opt); err != nil {
		t.Fatal(err)
	}
	// The user adds a hook of their own after ckpt's, and one inside
	// ckpt's own group.
	var cfg map[string]map[string][]map[string]any
	if err := json.Unmarshal(readFile(t, path), &cfg); err != nil {
		t.Fatal(err)
	}
	pre := cfg["hooks"]["PreToolUse"]
	pre = append(pre, map[string]any{"matcher": "Read", "hooks": []any{map[string]any{"type": "command", "command": "b"}}})
	post := cfg["hooks"]["PostToolUse"]
	post[0]["hooks"] = append(post[0]["hooks"].([]any), map[string]any{"type": "command", "command": "c"})
	cfg["hooks"]["PreToolUse"] = pre
	data, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall("claude", opt); err != nil {
		t.Fatal(err)
	}
	got := hookCommands(t, readFile(t, path))
	want := []string{"PostToolUse " + claudeMatcher + " c", "PreToolUse Bash a", "PreToolUse Read b"}
	if !slices.Equal(got, want) {
		t.Fatalf("after uninstall %q, want %q", got, want)
	}
}

// jsoncCase names the cases of TestInstallMalformed that are valid JSON
// with comments and trailing commas.
var jsoncCase = map[string]bool{"comments": true, "block comment": true, "trailing comma": true}

func TestInstallMalformed(t *testing.T) {
	cases := map[string]string{
		"truncated":          `{"hooks": {`,
		"comments":           "// my settings\n{\"model\": \"x\"}\n",
		"block comment":      "{\"model\": /* fast */ \"x\"}",
		"trailing comma":     `{"model": "x",}`,
		"not an object":      `[{"hooks": {}}]`,
		"hooks not object":   `{"hooks": []}`,
		"event not an array": `{"hooks": {"PreToolUse": {"matcher": "x"}, "BeforeTool": 3, "UserPromptSubmit": "x", "beforeSubmitPrompt": 3, "pre_user_prompt": 3}}`,
		"empty file":         "",
	}
	for _, agentName := range jsonAgents {
		for name, content := range cases {
			for _, dry := range []bool{false, true} {
				if installers[agentName].(jsonInstaller).jsonc && jsoncCase[name] {
					continue // allowed there: see TestInstallKeepsComments
				}
				t.Run(agentName+"/"+name, func(t *testing.T) {
					root := t.TempDir()
					path := writeConfig(t, root, agentName, content)
					_, err := Install(agentName, InstallOptions{Root: root, Exe: testExe, DryRun: dry})
					if err == nil {
						t.Fatalf("install accepted %q", content)
					}
					if !strings.Contains(err.Error(), path) {
						t.Errorf("error %q does not name %s", err, path)
					}
					if name == "comments" && !strings.Contains(err.Error(), "comments") {
						t.Errorf("error %q does not say comments", err)
					}
					if got := string(readFile(t, path)); got != content {
						t.Fatalf("file changed to %q", got)
					}
					if _, err := Uninstall(agentName, InstallOptions{Root: root, Exe: testExe}); err == nil {
						t.Fatalf("uninstall accepted %q", content)
					}
					if got := string(readFile(t, path)); got != content {
						t.Fatalf("uninstall changed the file to %q", got)
					}
				})
			}
		}
	}
}

func TestInstallDryRun(t *testing.T) {
	for _, agentName := range agent.Agents() {
		t.Run(agentName, func(t *testing.T) {
			root := t.TempDir()
			c, err := Install(agentName, InstallOptions{Root: root, Exe: testExe, DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			if c.Written {
				t.Fatal("dry run says written")
			}
			if _, err := os.Lstat(c.Path); !os.IsNotExist(err) {
				t.Fatalf("dry run created %s", c.Path)
			}
			rel, _ := ConfigPath(agentName)
			d := c.Diff(rel)
			if !strings.HasPrefix(d, "--- /dev/null\n+++ b/"+rel+"\n@@ -0,0 +1,") || !strings.Contains(d, "+") || !strings.Contains(d, "ckpt tools/bin/ckpt") {
				t.Fatalf("diff:\n%s", d)
			}
			// Real install, then a dry-run uninstall: shows the removal, keeps the file.
			if _, err := Install(agentName, InstallOptions{Root: root, Exe: testExe}); err != nil {
				t.Fatal(err)
			}
			before := readFile(t, c.Path)
			u, err := Uninstall(agentName, InstallOptions{Root: root, Exe: testExe, DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			if u.Written || u.Exists || string(readFile(t, c.Path)) != string(before) {
				t.Fatalf("dry-run uninstall: %+v", u)
			}
			if d := u.Diff(rel); !strings.Contains(d, "+++ /dev/null") {
				t.Fatalf("uninstall diff:\n%s", d)
			}
		})
	}
}

func TestInstallDryRunDiffExisting(t *testing.T) {
	root := t.TempDir()
	orig := userHooks
	path := writeConfig(t, root, "claude", orig)
	c, err := Install("claude", InstallOptions{Root: root, Exe: "/usr/local/bin/ckpt", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if string(readFile(t, path)) != orig {
		t.Fatal("dry run wrote the file")
	}
	d := c.Diff(".claude/settings.local.json")
	var plus, minus int
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			plus++
		case strings.HasPrefix(l, "-"):
			minus++
		}
	}
	if plus == 0 || !strings.Contains(d, `"command": "/usr/local/bin/ckpt hook claude"`) {
		t.Fatalf("diff adds nothing of ckpt's:\n%s", d)
	}
	// Lines of the user's that the diff shows as removed must come back
	// as added: nothing of theirs is dropped.
	if minus > plus {
		t.Fatalf("diff removes more than it adds:\n%s", d)
	}
}

func TestOpencodePlugin(t *testing.T) {
	root := t.TempDir()
	opt := InstallOptions{Root: root, Exe: testExe}
	c, err := Install("opencode", opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, ours := installers["opencode"].(ownedInstaller).owner(readFile(t, c.Path)); !ours {
		t.Fatal("install wrote a plugin it does not recognise")
	}
	// A newer binary path rewrites the plugin in place.
	c2, err := Install("opencode", InstallOptions{Root: root, Exe: "/usr/bin/ckpt"})
	if err != nil || !c2.Written || !strings.Contains(string(c2.New), `"/usr/bin/ckpt"`) {
		t.Fatalf("reinstall with a new path: %v %+v", err, c2)
	}
	// An edited plugin is the user's: uninstall leaves it.
	edited := strings.Replace(string(readFile(t, c.Path)), "quiet()", "quiet() ", 1)
	if err := os.WriteFile(c.Path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall("opencode", opt); err == nil || !strings.Contains(err.Error(), c.Path) {
		t.Fatalf("uninstall of an edited plugin: %v", err)
	}
	if _, err := Install("opencode", opt); err == nil {
		t.Fatal("install overwrote a plugin that is not ckpt's")
	}
	if string(readFile(t, c.Path)) != edited {
		t.Fatal("edited plugin changed")
	}
	// The user's other plugins stay.
	other := filepath.Join(root, ".opencode", "plugins", "mine.ts")
	if err := os.WriteFile(other, []byte("export const Mine = async () => ({})\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.Path, renderPlugin(testExe), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall("opencode", opt); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("uninstall touched the user's plugin: %v", err)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/local/bin/ckpt": "/usr/local/bin/ckpt",
		"/opt/my tools/ckpt":  "'/opt/my tools/ckpt'",
		"/home/o'neil/ckpt":   `'/home/o'\''neil/ckpt'`,
		"/x/$HOME/ckpt":       "'/x/$HOME/ckpt'",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzInstallRoundTrip: for any JSON object config, install gives valid
// JSON holding ckpt's hooks, and uninstall gives back the exact bytes.
func FuzzInstallRoundTrip(f *testing.F) {
	for _, c := range configs {
		f.Add(c, uint8(0))
	}
	f.Add(`{"a":[1,2,{"b":null}],"hooks":{"PreToolUse":[{"hooks":[]}]}}`, uint8(1))
	f.Add("  {  \"hooks\" :  { \"BeforeAgent\" : [ ] }  }  ", uint8(2))
	f.Fuzz(func(t *testing.T, orig string, which uint8) {
		root, err := parseConfig([]byte(orig))
		if err != nil || root == nil {
			t.Skip()
		}
		agentName := jsonAgents[int(which)%len(jsonAgents)]
		inst := installers[agentName].(jsonInstaller)
		if _, _, err := inst.remove(agentName, []byte(orig), testExe); !IsNotInstalled(err) {
			t.Skip() // holds ckpt's hooks already
		}
		out, err := inst.add(agentName, []byte(orig), true, testExe)
		if err != nil {
			return // a config whose hooks are not objects and arrays
		}
		if !json.Valid(out) {
			t.Fatalf("install made invalid JSON from %q:\n%s", orig, out)
		}
		again, err := inst.add(agentName, out, true, testExe)
		if err != nil || string(again) != string(out) {
			t.Fatalf("second install changed %q", out)
		}
		back, keep, err := inst.remove(agentName, out, testExe)
		if err != nil || !keep || string(back) != orig {
			t.Fatalf("round trip of %q: keep %v err %v\ngot %q", orig, keep, err, back)
		}
	})
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A config folder or file that is a symlink is refused by install and
// uninstall: nothing is written through it, and it is never replaced.
func TestInstallRefusesSymlinks(t *testing.T) {
	for _, agentName := range agent.Agents() {
		rel, _ := ConfigPath(agentName)
		dir, file := filepath.Split(rel)
		dir = strings.TrimSuffix(dir, "/")
		top, _, _ := strings.Cut(dir, "/")
		t.Run(agentName+"/folder", func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			if err := os.Symlink(outside, filepath.Join(root, top)); err != nil {
				t.Fatal(err)
			}
			for _, install := range []bool{true, false} {
				_, err := edit(agentName, InstallOptions{Root: root, Exe: testExe}, install)
				if !errors.Is(err, ErrSymlink) {
					t.Fatalf("install=%v: err %v, want ErrSymlink", install, err)
				}
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Fatalf("wrote outside the project: %v", entries)
			}
		})
		t.Run(agentName+"/file", func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(root, "real-"+file)
			old := "{}\n"
			if err := os.WriteFile(target, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(root, filepath.FromSlash(rel))
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			if _, err := Install(agentName, InstallOptions{Root: root, Exe: testExe}); !errors.Is(err, ErrSymlink) {
				t.Fatalf("err %v, want ErrSymlink", err)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the link was replaced: %v %v", fi, err)
			}
			if got := readFile(t, target); string(got) != old {
				t.Fatalf("target changed: %q", got)
			}
		})
	}
}

// TestInstallKeepsComments: Gemini CLI's settings may hold comments and
// trailing commas; install keeps every one of them and uninstall gives
// back the original bytes.
func TestInstallKeepsComments(t *testing.T) {
	cases := map[string]string{
		"line comments":   "// my settings\n{\n  // the model\n  \"model\": \"x\" // fast\n}\n",
		"block comment":   "{\"model\": /* fast */ \"x\"}",
		"trailing commas": "{\n  \"model\": \"x\",\n  \"tools\": [\"a\", \"b\",],\n}\n",
		"comment in hooks": `{
  "hooks": {
    // mine
    "BeforeTool": [
      {"matcher": "x", "hooks": [{"type": "command", "command": "echo hi"}]}, // keep
    ],
    /* none here yet */
  },
}
`,
		"empty object with comment": "{ // nothing yet\n}\n",
		"comment after last item":   "{\n  \"a\": 1 // one\n}",
		"crlf":                      "{\r\n  // c\r\n  \"a\": 1,\r\n}\r\n",
	}
	for name, orig := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			path := writeConfig(t, root, "gemini", orig)
			opt := InstallOptions{Root: root, Exe: testExe}
			if _, err := Install("gemini", opt); err != nil {
				t.Fatalf("install: %v", err)
			}
			installed := readFile(t, path)
			std, err := hujson.Standardize(slices.Clone(installed))
			if err != nil {
				t.Fatalf("install left invalid JSONC: %v\n%s", err, installed)
			}
			origStd, _ := hujson.Standardize([]byte(orig)) // a copy: it blanks comments in place
			want := append(hookCommands(t, origStd), ourCommands("gemini")...)
			slices.Sort(want)
			if got := hookCommands(t, std); !slices.Equal(got, want) {
				t.Fatalf("hooks after install:\n got %q\nwant %q\n%s", got, want, installed)
			}
			for _, c := range comments(orig) {
				if !bytes.Contains(installed, []byte(c)) {
					t.Errorf("install lost the comment %q:\n%s", c, installed)
				}
			}
			if c, err := Install("gemini", opt); err != nil || c.Changed() {
				t.Fatalf("second install: changed %v, %v", c != nil && c.Changed(), err)
			}
			if _, err := Uninstall("gemini", opt); err != nil {
				t.Fatalf("uninstall: %v\n%s", err, installed)
			}
			if got := string(readFile(t, path)); got != orig {
				t.Fatalf("uninstall left\n%q\nwant\n%q\ninstalled was\n%s", got, orig, installed)
			}
		})
	}
}

// comments lists the // and /* */ comments in JSONC text.
func comments(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case strings.HasPrefix(s[i:], "//"):
			end := strings.IndexAny(s[i:], "\r\n")
			if end < 0 {
				end = len(s) - i
			}
			out = append(out, s[i:i+end])
			i += end
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i:], "*/") + 2
			out = append(out, s[i:i+end])
			i += end
		}
	}
	return out
}

// TestOpencodePluginWithoutBun runs the plugin under Node, where opencode
// passes $ as undefined: the events still reach ckpt, through
// node:child_process.
func TestOpencodePluginWithoutBun(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	got := filepath.Join(dir, "got.jsonl")
	fake := filepath.Join(dir, "ckpt")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"$@\" >> "+got+"\ncat >> "+got+"\necho >> "+got+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plugin.mjs"), renderPlugin(fake), 0o644); err != nil {
		t.Fatal(err)
	}
	run := `import { CkptPlugin } from "./plugin.mjs"
const hooks = await CkptPlugin({ $: undefined, directory: "/proj" })
await hooks["tool.execute.before"]({ tool: "write", sessionID: "s", callID: "c" }, { args: { filePath: "a.txt" } })
`
	if err := os.WriteFile(filepath.Join(dir, "run.mjs"), []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "run.mjs")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	data, err := os.ReadFile(got)
	if err != nil {
		t.Fatalf("ckpt was not run: %v", err)
	}
	if !strings.HasPrefix(string(data), "hook opencode\n") || !strings.Contains(string(data), `"filePath":"a.txt"`) || !strings.Contains(string(data), `"directory":"/proj"`) {
		t.Errorf("ckpt got:\n%s", data)
	}
}

// TestEveryAgentHasAnInstaller: the agents package agent has adapters for
// and those this package installs are the same.
func TestEveryAgentHasAnInstaller(t *testing.T) {
	for _, name := range agent.Agents() {
		if installers[name] == nil {
			t.Errorf("agent %s has an adapter and no installer", name)
		}
	}
	for name := range installers {
		if !agent.Known(name) {
			t.Errorf("installer for %s, which package agent does not know", name)
		}
	}
}
