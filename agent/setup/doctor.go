package setup

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ckpt-dev/ckpt/agent"
	"github.com/ckpt-dev/ckpt/store"
)

// DoctorOptions tunes Diagnose.
type DoctorOptions struct {
	// Root is the project root, absolute.
	Root string
	// Exe is the ckpt binary asking: hooks should run this one.
	Exe string
	// Getenv reads the environment ($HOME, $CODEX_HOME); nil: os.Getenv.
	Getenv func(string) string
	// Version reports the version of the agent's executable found on
	// $PATH, or an error (not found). Nil: versions are not checked.
	Version func(agentName string) (string, error)
	// SameBuild reports whether the program at a path was built from the
	// same version as the one asking; a ckpt-hook that was not is flagged.
	// Nil: not checked. (It reads build information from executables,
	// which ckpt-hook has no use for.)
	SameBuild func(path string) bool
}

// Check is one finding of Diagnose. A check that fails with Blocking set
// means the agent's edits would not be captured.
type Check struct {
	Name     string `json:"check"`
	OK       bool   `json:"ok"`
	Blocking bool   `json:"blocking"`
	// Unchecked is a check that could not be made (the agent is not on
	// $PATH, no hook has run yet): never reported as ok.
	Unchecked bool   `json:"unchecked,omitempty"`
	Detail    string `json:"detail"`
	Fix       string `json:"fix"`
}

// Diagnosis is what ckpt doctor says about one agent in one project.
type Diagnosis struct {
	Agent     string     `json:"agent"`
	Installed bool       `json:"installed"`
	Config    string     `json:"config"`         // the project config file, relative to the root
	HookExe   string     `json:"hook_exe"`       // the ckpt binary the hooks run
	Version   string     `json:"version"`        // the agent's version, "" when unknown
	Tested    bool       `json:"version_tested"` // the harness ran this version
	LastEvent *time.Time `json:"last_event"`     // when a hook last ran here
	Errors    int        `json:"errors"`         // error-log lines from this agent's hooks, kept until ckpt log --errors
	LastError string     `json:"last_error"`     // the newest of them
	Capture   bool       `json:"capture"`        // the agent's edits would be captured
	Checks    []Check    `json:"checks"`
}

// Diagnose checks one agent's hooks in a project: installed, running this
// binary, approved (Codex) or in a trusted folder (Gemini, Codex), a tested
// agent version, the last hook event and the errors logged.
func Diagnose(agentName string, opt DoctorOptions) (*Diagnosis, error) {
	inst := installers[agentName]
	if inst == nil {
		return nil, fmt.Errorf("unknown agent %q (want %s)", agentName, strings.Join(agent.Agents(), ", "))
	}
	getenv := opt.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	d := &Diagnosis{Agent: agentName, Config: inst.path()}
	add := func(c Check) { d.Checks = append(d.Checks, c) }
	cfgPath := filepath.Join(opt.Root, filepath.FromSlash(inst.path()))
	data, err := os.ReadFile(cfgPath)
	exes := hookExes(agentName, data, opt.Exe)
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && len(exes) == 0:
		add(Check{Name: "installed", Detail: d.Config + " holds no ckpt hooks", Blocking: true,
			Fix: "ckpt install " + agentName})
	case err != nil:
		add(Check{Name: "installed", Detail: fmt.Sprintf("%s: %v", d.Config, err), Blocking: true,
			Fix: "make " + d.Config + " readable"})
	default:
		d.Installed = true
		d.HookExe = exes[0]
		// A fresh install for the binary the hooks name would change
		// nothing when every hook is there.
		c, ierr := Install(agentName, InstallOptions{Root: opt.Root, Exe: d.HookExe, DryRun: true})
		switch {
		case ierr != nil:
			add(Check{Name: "installed", Detail: ierr.Error(), Blocking: true, Fix: "repair " + d.Config + ", then ckpt install " + agentName})
		case len(exes) > 1:
			// Install makes every one of them run the binary installing.
			add(Check{Name: "installed", Detail: d.Config + " holds ckpt's hooks for different binaries (" + strings.Join(exes, ", ") + "), so every event runs more than one", Blocking: true,
				Fix: "ckpt install " + agentName + codexApproveHint(agentName)})
		case c.Changed():
			add(Check{Name: "installed", Detail: d.Config + " holds only some of ckpt's hooks, or some twice", Blocking: true,
				Fix: "ckpt install " + agentName + codexApproveHint(agentName)})
		default:
			add(Check{Name: "installed", OK: true, Detail: d.Config + " holds ckpt's hooks"})
		}
		fi, serr := os.Stat(d.HookExe)
		switch {
		case serr != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0:
			add(Check{Name: "binary", Detail: "the hooks run " + d.HookExe + ", which is missing or not executable", Blocking: true,
				Fix: "ckpt install " + agentName + (codexApproveHint(agentName))})
		case strings.TrimSuffix(filepath.Base(d.HookExe), ".exe") == "ckpt-hook" && opt.SameBuild != nil && !opt.SameBuild(d.HookExe):
			// It may refuse a store this ckpt wrote, and then it has no
			// store to log into either.
			add(Check{Name: "binary", Detail: "the hooks run " + d.HookExe + ", built from another version than this ckpt (" + opt.Exe + ")", Blocking: true,
				Fix: "install the two together (CGO_ENABLED=0 go install . ./cmd/ckpt-hook), or run ckpt install " + agentName + " to make the hooks run this ckpt" + codexApproveHint(agentName)})
		case !sameFile(d.HookExe, opt.Exe):
			add(Check{Name: "binary", OK: true, Detail: "the hooks run " + d.HookExe + ", not this ckpt (" + opt.Exe + ")",
				Fix: "ckpt install " + agentName + " to make them run this one" + codexApproveHint(agentName)})
		default:
			add(Check{Name: "binary", OK: true, Detail: "the hooks run this ckpt (" + d.HookExe + ")"})
		}
	}
	switch agentName {
	case "codex":
		diagnoseCodex(d, opt.Root, CodexHome(getenv), add)
	case "gemini":
		diagnoseGemini(opt.Root, getenv, add)
	case "claude":
		if d.Installed {
			add(Check{Name: "modes", OK: true, Detail: "claude --bare, --safe-mode and --restricted skip project hooks: edits made in those modes are not captured"})
		}
	case "copilot":
		diagnoseCopilot(opt.Root, getenv, add)
	case "pi":
		if d.Installed {
			add(Check{Name: "modes", OK: true, Detail: "pi --no-extensions skips project extensions: edits made so are not captured"})
		}
	case "qwen":
		if d.Installed {
			add(Check{Name: "modes", OK: true, Detail: "qwen --safe-mode skips hooks: edits made so are not captured"})
		}
	case "cline":
		if d.Installed {
			add(Check{Name: "modes", OK: true, Detail: "a one-shot `cline PROMPT` gives hooks no prompt: its turn is labelled by the task, not the prompt"})
		}
	}
	if opt.Version != nil {
		v, verr := opt.Version(agentName)
		tested := agent.TestedVersions[agentName]
		switch {
		case verr != nil:
			add(Check{Name: "version", Unchecked: true, Detail: verr.Error()})
		default:
			d.Version, d.Tested = v, v == tested
			if d.Tested {
				add(Check{Name: "version", OK: true, Detail: fmt.Sprintf("%s %s, the version ckpt's harness ran", agentName, v)})
			} else {
				add(Check{Name: "version", OK: true, Detail: fmt.Sprintf("%s %s; ckpt's harness ran %s (hooks may differ)", agentName, v, tested)})
			}
		}
	}
	if at, name, ok := agent.LastEvent(opt.Root, agentName); ok {
		t := at.UTC()
		d.LastEvent = &t
		add(Check{Name: "last event", OK: true, Detail: fmt.Sprintf("%s at %s", name, t.Format(time.RFC3339))})
	} else if d.Installed {
		add(Check{Name: "last event", Unchecked: true, Detail: "no hook event seen in this project yet"})
	}
	if lines := hookErrors(opt.Root, agentName); len(lines) > 0 {
		d.Errors, d.LastError = len(lines), lines[len(lines)-1]
		add(Check{Name: "errors", Detail: fmt.Sprintf("%d error(s) logged by %s's hooks; the newest: %s", len(lines), agentName, d.LastError),
			Fix: "ckpt log --errors shows them all, then clears them"})
	}
	d.Capture = true
	for _, c := range d.Checks {
		if !c.OK && c.Blocking {
			d.Capture = false
		}
	}
	return d, nil
}

func codexApproveHint(agentName string) string {
	if agentName == "codex" {
		return " --approve"
	}
	return ""
}

// sameFile reports whether a and b name the same file.
func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// HookExes lists, once each, the ckpt binaries that config data (the
// agent's project config file) runs for its hooks: none when ckpt's hooks
// are not in it. exe is the binary asking, whatever its name (see
// isCkptHook).
func HookExes(agentName string, data []byte, exe string) []string {
	return hookExes(agentName, data, exe)
}

// hookExes lists, once each, the ckpt binaries an agent's config runs for
// its hooks.
func hookExes(agentName string, data []byte, exe string) []string {
	inst := installers[agentName]
	if inst == nil {
		return nil
	}
	return inst.exes(agentName, data, exe)
}

func diagnoseCodex(d *Diagnosis, root, codexHome string, add func(Check)) {
	hooks, _ := CodexHooks(root)
	keys := make([]string, len(hooks))
	for i, h := range hooks {
		keys[i] = h.Key
	}
	trust, err := ReadCodexTrust(codexHome, root, keys)
	if err != nil {
		add(Check{Name: "trusted", Detail: err.Error(), Blocking: true, Fix: "make " + filepath.Join(codexHome, "config.toml") + " readable"})
		return
	}
	if trust.ProjectTrusted {
		add(Check{Name: "trusted", OK: true, Detail: "Codex trusts the project (" + trust.Config + ")"})
	} else {
		add(Check{Name: "trusted", Detail: "Codex does not trust the project, so it loads none of its hooks (" + trust.Config + ")", Blocking: true,
			Fix: "trust the folder when Codex asks, or ckpt install codex --approve"})
	}
	if !d.Installed {
		return
	}
	approved := 0
	changed := 0
	for _, h := range hooks {
		switch got, ok := trust.Approved[h.Key]; {
		case ok && got == h.Hash:
			approved++
		case ok:
			changed++
		}
	}
	switch {
	case approved == len(hooks):
		add(Check{Name: "approved", OK: true, Detail: fmt.Sprintf("all %d of ckpt's hooks are approved in Codex", len(hooks))})
	default:
		detail := fmt.Sprintf("%d of ckpt's %d hooks are approved in Codex; it skips the others silently", approved, len(hooks))
		if changed > 0 {
			detail += fmt.Sprintf(" (%d changed since approval: the ckpt binary moved or a timeout changed)", changed)
		}
		add(Check{Name: "approved", Detail: detail, Blocking: true,
			Fix: "approve them in Codex's /hooks screen, or ckpt install codex --approve"})
	}
}

// diagnoseCopilot says when Copilot CLI would skip the repo's hooks: in
// -p mode always, unless the run trusts the folder, and interactively
// until the folder is trusted ($COPILOT_HOME/config.json,
// trusted_folders). Neither blocks capture by itself: VS Code's agent
// reads the same file with no such step.
func diagnoseCopilot(root string, getenv func(string) string, add func(Check)) {
	add(Check{Name: "-p mode", OK: true, Detail: "copilot -p skips repo hooks silently unless run with --trust-folder, COPILOT_ALLOW_ALL=true or GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true"})
	home := getenv("COPILOT_HOME")
	if home == "" {
		h := getenv("HOME")
		if h == "" {
			h, _ = os.UserHomeDir()
		}
		home = filepath.Join(h, ".copilot")
	}
	file := filepath.Join(home, "config.json")
	var cfg struct {
		Trusted  []string `json:"trusted_folders"`
		Trusted2 []string `json:"trustedFolders"`
	}
	if data, err := os.ReadFile(file); err == nil {
		_ = json.Unmarshal(stripJSONComments(data), &cfg)
	}
	for _, f := range append(cfg.Trusted, cfg.Trusted2...) {
		f = filepath.Clean(f)
		if root == f || strings.HasPrefix(root, strings.TrimSuffix(f, "/")+"/") {
			add(Check{Name: "trusted", OK: true, Detail: "Copilot CLI trusts the folder (" + file + ")"})
			return
		}
	}
	add(Check{Name: "trusted", Detail: "Copilot CLI does not trust the folder yet (" + file + "), so it skips the repo's hooks until it does",
		Fix: "start copilot in the project and trust the folder when it asks"})
}

// diagnoseGemini checks that Gemini CLI trusts the project folder: in an
// untrusted folder it skips project hooks (and headless runs refuse to
// start).
func diagnoseGemini(root string, getenv func(string) string, add func(Check)) {
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	dir := filepath.Join(home, ".gemini")
	var settings struct {
		Security struct {
			FolderTrust struct {
				Enabled *bool `json:"enabled"`
			} `json:"folderTrust"`
		} `json:"security"`
	}
	if data, err := os.ReadFile(filepath.Join(dir, "settings.json")); err == nil {
		_ = json.Unmarshal(stripJSONComments(data), &settings)
	}
	if e := settings.Security.FolderTrust.Enabled; e != nil && !*e {
		add(Check{Name: "trusted", OK: true, Detail: "Gemini CLI's folder trust is off: every folder is trusted"})
		return
	}
	file := filepath.Join(dir, "trustedFolders.json")
	rules := map[string]string{}
	if data, err := os.ReadFile(file); err == nil {
		_ = json.Unmarshal(stripJSONComments(data), &rules)
	}
	if geminiTrusted(root, rules) {
		add(Check{Name: "trusted", OK: true, Detail: "Gemini CLI trusts the project folder (" + file + ")"})
		return
	}
	add(Check{Name: "trusted", Detail: "Gemini CLI does not trust the project folder, so it skips project hooks (" + file + ")", Blocking: true,
		Fix: "trust the folder in Gemini CLI (/permissions), or add \"" + root + "\": \"TRUST_FOLDER\" to " + file})
}

// geminiTrusted applies Gemini CLI's trust rules to root: TRUST_FOLDER
// trusts a folder and everything under it, TRUST_PARENT its parent and
// everything under that; the longest matching rule wins, and DO_NOT_TRUST
// distrusts.
func geminiTrusted(root string, rules map[string]string) bool {
	best, trusted := -1, false
	for p, level := range rules {
		p = filepath.Clean(p)
		if level == "TRUST_PARENT" {
			p = filepath.Dir(p)
		}
		if root != p && !strings.HasPrefix(root, strings.TrimSuffix(p, "/")+"/") {
			continue
		}
		if len(p) > best {
			best, trusted = len(p), level == "TRUST_FOLDER" || level == "TRUST_PARENT"
		}
	}
	return trusted
}

// stripJSONComments blanks // and /* */ comments outside strings, as
// Gemini CLI's settings allow them.
func stripJSONComments(data []byte) []byte {
	out := make([]byte, len(data))
	copy(out, data)
	inStr := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			for ; i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/'); i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			if i+1 < len(out) {
				out[i], out[i+1] = ' ', ' '
				i++
			}
		}
	}
	return out
}

// hookErrors are the store's error-log lines from agentName's hooks.
func hookErrors(root, agentName string) []string {
	s, err := store.Open(root, store.Options{})
	if err != nil {
		return nil
	}
	defer s.Close()
	lines, _ := s.Errors()
	var out []string
	for _, l := range lines {
		if strings.Contains(l, " hook "+agentName+":") || strings.Contains(l, " hook "+agentName+" ") {
			out = append(out, l)
		}
	}
	return out
}
