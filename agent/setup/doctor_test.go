package setup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/agent"
)

// doctorEnv is a project and a home for Diagnose, with a fake ckpt binary.
type doctorEnv struct {
	root, home, exe string
}

func newDoctorEnv(t *testing.T) doctorEnv {
	t.Helper()
	e := doctorEnv{root: t.TempDir(), home: t.TempDir()}
	e.exe = filepath.Join(t.TempDir(), "ckpt")
	if err := os.WriteFile(e.exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e doctorEnv) diagnose(t *testing.T, name string, version func(string) (string, error)) *Diagnosis {
	t.Helper()
	getenv := func(k string) string {
		switch k {
		case "HOME":
			return e.home
		}
		return ""
	}
	d, err := Diagnose(name, DoctorOptions{Root: e.root, Exe: e.exe, Getenv: getenv, Version: version})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (e doctorEnv) install(t *testing.T, name, exe string) {
	t.Helper()
	if _, err := Install(name, InstallOptions{Root: e.root, Exe: exe}); err != nil {
		t.Fatal(err)
	}
}

func (e doctorEnv) write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// check finds the named check.
func check(d *Diagnosis, name string) Check {
	for _, c := range d.Checks {
		if c.Name == name {
			return c
		}
	}
	return Check{Name: name, Detail: "(no such check)"}
}

func TestDoctor(t *testing.T) {
	cases := []struct {
		name    string
		agent   string
		setup   func(t *testing.T, e doctorEnv)
		capture bool
		check   string // a check that must hold …
		ok      bool   // … with this outcome
		detail  string // … and this text in its detail
	}{
		{"not installed", "claude", func(*testing.T, doctorEnv) {}, false, "installed", false, "no ckpt hooks"},
		{"installed", "claude", func(t *testing.T, e doctorEnv) { e.install(t, "claude", e.exe) }, true, "binary", true, "this ckpt"},
		{"opencode installed", "opencode", func(t *testing.T, e doctorEnv) { e.install(t, "opencode", e.exe) }, true, "installed", true, "holds ckpt's hooks"},
		{"pi installed", "pi", func(t *testing.T, e doctorEnv) { e.install(t, "pi", e.exe) }, true, "installed", true, "holds ckpt's hooks"},
		{"cline installed", "cline", func(t *testing.T, e doctorEnv) { e.install(t, "cline", e.exe) }, true, "binary", true, "this ckpt"},
		{"cline script edited", "cline", func(t *testing.T, e doctorEnv) {
			e.install(t, "cline", e.exe)
			e.write(t, filepath.Join(e.root, ".clinerules", "hooks", "TaskComplete"), "#!/bin/sh\necho mine\n")
		}, false, "installed", false, "TaskComplete"},
		{"copilot -p", "copilot", func(t *testing.T, e doctorEnv) { e.install(t, "copilot", e.exe) }, true, "-p mode", true, "--trust-folder"},
		{"copilot untrusted", "copilot", func(t *testing.T, e doctorEnv) { e.install(t, "copilot", e.exe) }, true, "trusted", false, "does not trust"},
		{"copilot trusted", "copilot", func(t *testing.T, e doctorEnv) {
			e.install(t, "copilot", e.exe)
			e.write(t, filepath.Join(e.home, ".copilot", "config.json"), "// managed\n{\"trusted_folders\": [\""+filepath.Dir(e.root)+"\"]}\n")
		}, true, "trusted", true, "trusts the folder"},
		{"qwen installed", "qwen", func(t *testing.T, e doctorEnv) { e.install(t, "qwen", e.exe) }, true, "modes", true, "--safe-mode"},
		{"missing binary", "claude", func(t *testing.T, e doctorEnv) { e.install(t, "claude", "/nowhere/ckpt") }, false, "binary", false, "missing or not executable"},
		{"another binary", "claude", func(t *testing.T, e doctorEnv) {
			other := filepath.Join(t.TempDir(), "ckpt")
			e.write(t, other, "#!/bin/sh\n")
			os.Chmod(other, 0o755)
			e.install(t, "claude", other)
		}, true, "binary", true, "not this ckpt"},
		{"some hooks missing", "claude", func(t *testing.T, e doctorEnv) {
			e.install(t, "claude", e.exe)
			p := filepath.Join(e.root, ".claude", "settings.local.json")
			data, _ := os.ReadFile(p)
			i := strings.Index(string(data), `"UserPromptSubmit"`)
			if i < 0 {
				t.Fatal("no UserPromptSubmit")
			}
			os.WriteFile(p, []byte(strings.Replace(string(data), `"UserPromptSubmit"`, `"Notification"`, 1)), 0o644)
		}, false, "installed", false, "only some"},
		{"codex untrusted", "codex", func(t *testing.T, e doctorEnv) { e.install(t, "codex", e.exe) }, false, "trusted", false, "does not trust"},
		{"codex trusted, not approved", "codex", func(t *testing.T, e doctorEnv) {
			e.install(t, "codex", e.exe)
			e.write(t, filepath.Join(e.home, ".codex", "config.toml"), "[projects."+tomlQuote(e.root)+"]\ntrust_level = \"trusted\"\n")
		}, false, "approved", false, "0 of ckpt's"},
		{"codex approved", "codex", func(t *testing.T, e doctorEnv) {
			e.install(t, "codex", e.exe)
			if _, _, err := ApproveCodex(e.root, filepath.Join(e.home, ".codex"), nil, false); err != nil {
				t.Fatal(err)
			}
		}, true, "approved", true, "are approved"},
		{"codex binary moved after approval", "codex", func(t *testing.T, e doctorEnv) {
			e.install(t, "codex", "/old/ckpt")
			if _, _, err := ApproveCodex(e.root, filepath.Join(e.home, ".codex"), nil, false); err != nil {
				t.Fatal(err)
			}
			if _, err := Uninstall("codex", InstallOptions{Root: e.root, Exe: "/old/ckpt"}); err != nil {
				t.Fatal(err)
			}
			e.install(t, "codex", e.exe)
		}, false, "approved", false, "changed since approval"},
		{"gemini untrusted", "gemini", func(t *testing.T, e doctorEnv) { e.install(t, "gemini", e.exe) }, false, "trusted", false, "does not trust"},
		{"gemini trusted", "gemini", func(t *testing.T, e doctorEnv) {
			e.install(t, "gemini", e.exe)
			e.write(t, filepath.Join(e.home, ".gemini", "trustedFolders.json"), `{`+quote(e.root)+`: "TRUST_FOLDER"}`)
		}, true, "trusted", true, "trusts the project"},
		{"gemini parent trusted", "gemini", func(t *testing.T, e doctorEnv) {
			e.install(t, "gemini", e.exe)
			e.write(t, filepath.Join(e.home, ".gemini", "trustedFolders.json"), `{`+quote(filepath.Join(e.root, "sub"))+`: "TRUST_PARENT"}`)
		}, true, "trusted", true, "trusts the project"},
		{"gemini distrusted below a trusted folder", "gemini", func(t *testing.T, e doctorEnv) {
			e.install(t, "gemini", e.exe)
			e.write(t, filepath.Join(e.home, ".gemini", "trustedFolders.json"), `{`+quote(filepath.Dir(e.root))+`: "TRUST_FOLDER", `+quote(e.root)+`: "DO_NOT_TRUST"}`)
		}, false, "trusted", false, "does not trust"},
		{"gemini folder trust off", "gemini", func(t *testing.T, e doctorEnv) {
			e.install(t, "gemini", e.exe)
			e.write(t, filepath.Join(e.home, ".gemini", "settings.json"), "{\n  // mine\n  \"security\": {\"folderTrust\": {\"enabled\": false}}\n}")
		}, true, "trusted", true, "trust is off"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newDoctorEnv(t)
			c.setup(t, e)
			d := e.diagnose(t, c.agent, nil)
			got := check(d, c.check)
			if d.Capture != c.capture || got.OK != c.ok || !strings.Contains(got.Detail, c.detail) {
				t.Errorf("capture %v (want %v); %s: ok %v (want %v) %q (want %q)\nchecks: %+v", d.Capture, c.capture, c.check, got.OK, c.ok, got.Detail, c.detail, d.Checks)
			}
			if !d.Capture && got.OK == false && got.Fix == "" {
				t.Errorf("%s fails with no fix", c.check)
			}
		})
	}
}

func TestDoctorVersion(t *testing.T) {
	e := newDoctorEnv(t)
	e.install(t, "claude", e.exe)
	d := e.diagnose(t, "claude", func(string) (string, error) { return agent.TestedVersions["claude"], nil })
	if !d.Tested || !strings.Contains(check(d, "version").Detail, "the version ckpt's harness ran") {
		t.Errorf("tested version: %+v", check(d, "version"))
	}
	d = e.diagnose(t, "claude", func(string) (string, error) { return "0.0.1", nil })
	if d.Tested || !d.Capture || !strings.Contains(check(d, "version").Detail, "harness ran "+agent.TestedVersions["claude"]) {
		t.Errorf("untested version: %+v", check(d, "version"))
	}
	d = e.diagnose(t, "claude", func(string) (string, error) { return "", errors.New("claude is not on $PATH") })
	if d.Version != "" || !d.Capture {
		t.Errorf("no agent: %+v", d)
	}
}

// TestDoctorEventsAndErrors: a hook call leaves its time for doctor, and
// the errors it logs are counted.
func TestDoctorEventsAndErrors(t *testing.T) {
	e := newDoctorEnv(t)
	e.install(t, "claude", e.exe)
	if d := e.diagnose(t, "claude", nil); d.LastEvent != nil || d.Errors != 0 {
		t.Fatalf("before any event: %+v", d)
	}
	ev := `{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"go","cwd":` + quote(e.root) + `}`
	if err := agent.Hook("claude", strings.NewReader(ev), nil, agent.HookOptions{Root: e.root}); err != nil {
		t.Fatal(err)
	}
	bad := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{},"cwd":` + quote(e.root) + `}`
	_ = agent.Hook("claude", strings.NewReader(bad), nil, agent.HookOptions{Root: e.root})
	d := e.diagnose(t, "claude", nil)
	if d.LastEvent == nil || !strings.Contains(check(d, "last event").Detail, "PreToolUse") {
		t.Errorf("last event: %+v", check(d, "last event"))
	}
	if d.Errors != 1 || !strings.Contains(d.LastError, "names no file") {
		t.Errorf("errors: %d %q", d.Errors, d.LastError)
	}
}

// TestDoctorTwoBinaries: hooks for a binary that moved beside the new
// one's fail the installed check, and its fix, ckpt install, clears it.
func TestDoctorTwoBinaries(t *testing.T) {
	for _, agentName := range jsonAgents {
		t.Run(agentName, func(t *testing.T) {
			e := newDoctorEnv(t)
			gone := filepath.Join(t.TempDir(), "ckpt")
			e.write(t, filepath.Join(e.root, filepath.FromSlash(installers[agentName].path())), twoSets(t, agentName, "{}\n", gone, e.exe))
			d := e.diagnose(t, agentName, nil)
			c := check(d, "installed")
			if c.OK || d.Capture || !strings.Contains(c.Detail, "different binaries") || !strings.HasPrefix(c.Fix, "ckpt install "+agentName) || strings.Contains(c.Fix, "uninstall") {
				t.Fatalf("two binaries: %+v", c)
			}
			if _, err := Install(agentName, InstallOptions{Root: e.root, Exe: e.exe}); err != nil {
				t.Fatal(err)
			}
			d = e.diagnose(t, agentName, nil)
			if c := check(d, "installed"); !c.OK || d.HookExe != e.exe {
				t.Fatalf("after ckpt install: %+v, hooks run %s", c, d.HookExe)
			}
		})
	}
}

// TestDoctorNotCheckedIsNotOK: a check doctor could not make is marked so,
// never ok.
func TestDoctorNotCheckedIsNotOK(t *testing.T) {
	e := newDoctorEnv(t)
	e.install(t, "claude", e.exe)
	d := e.diagnose(t, "claude", func(string) (string, error) {
		return "", errors.New("claude is not on $PATH; its version is not checked")
	})
	for _, name := range []string{"version", "last event"} {
		if c := check(d, name); c.OK || !c.Unchecked {
			t.Errorf("%s: ok %v, unchecked %v; want not ok, unchecked", name, c.OK, c.Unchecked)
		}
	}
	if !d.Capture {
		t.Error("a check not made blocks capture")
	}
}
