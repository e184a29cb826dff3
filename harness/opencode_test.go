package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// opencodeSpec runs opencode headless (`opencode run`) with a custom
// OpenAI-compatible provider pointing at a mock chat API. opencode quotes
// a prompt holding spaces before sending it, so the turn's label checks
// that ckpt takes those quotes off again.
var opencodeSpec = agentSpec{
	name:         "opencode",
	conversation: true,
	steps:        []step{writeStep, readStep, editStep, shellStep},
	shellTool:    `"bash"`,
	handler:      (*mock).chat,
	prepare: func(t *testing.T, r *run, url string) {
		r.write(t, "home/.config/opencode/opencode.json", fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "model": "mock/harness-model",
  "permission": {"edit": "allow", "bash": "allow", "read": "allow"},
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Mock",
      "options": {"baseURL": "%s/v1", "apiKey": "harness"},
      "models": {"harness-model": {"name": "Harness model", "tool_call": true}}
    }
  }
}
`, url))
		// opencode installs @opencode-ai/plugin into .opencode before it
		// loads a project's plugins, from npm: bring a copy from the last
		// run, so a warm run needs no registry.
		if c := pluginDepsCache(); c != "" {
			if _, err := os.Stat(c); err == nil {
				if out, err := exec.Command("cp", "-a", c+"/.", filepath.Join(r.project, ".opencode")).CombinedOutput(); err != nil {
					t.Logf("copy opencode's plugin dependencies: %v: %s", err, out)
				}
			}
		}
	},
	finish: func(t *testing.T, r *run) {
		c := pluginDepsCache()
		if c == "" {
			return
		}
		if _, err := os.Stat(c); err == nil {
			return
		}
		tmp := c + ".tmp"
		_ = os.RemoveAll(tmp)
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			return
		}
		for _, n := range []string{"package.json", "bun.lock", "node_modules", ".gitignore"} {
			src := filepath.Join(r.project, ".opencode", n)
			if _, err := os.Stat(src); err == nil {
				_ = exec.Command("cp", "-a", src, tmp).Run()
			}
		}
		_ = os.Rename(tmp, c)
	},
	commandEnv: func(r *run, url string) []string {
		env := []string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_SHARE=1",
			"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1"}
		// opencode fetches the provider's npm package into its cache on
		// first use: keep that cache beside the agents', so warm runs skip it.
		if c := os.Getenv("CKPT_AGENTS_CACHE"); c != "" {
			env = append(env, "XDG_CACHE_HOME="+filepath.Join(c, "opencode-xdg-cache"))
		}
		return env
	},
	command: func(r *run, exe string) *exec.Cmd {
		if os.Getenv("CKPT_HARNESS_DEBUG") != "" {
			return exec.Command(exe, "run", "--print-logs", "--log-level", "INFO", "--model", "mock/harness-model", prompt)
		}
		return exec.Command(exe, "run", "--model", "mock/harness-model", prompt)
	},
}

// pluginDepsCache is where the harness keeps opencode's plugin
// dependencies between runs, or "" without a cache.
func pluginDepsCache() string {
	c := os.Getenv("CKPT_AGENTS_CACHE")
	if c == "" {
		return ""
	}
	return filepath.Join(c, "opencode-plugin-deps")
}

// opencodePatchSpec runs opencode again with a model whose id holds
// "gpt-": opencode offers those apply_patch instead of write and edit.
var opencodePatchSpec = func() agentSpec {
	s := opencodeSpec
	s.variant = "apply_patch"
	s.steps = []step{patchStep, shellStep}
	prepare := s.prepare
	s.prepare = func(t *testing.T, r *run, url string) {
		prepare(t, r, url)
		p := filepath.Join(r.home, ".config", "opencode", "opencode.json")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "harness-model", "gpt-harness")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.command = func(r *run, exe string) *exec.Cmd {
		return exec.Command(exe, "run", "--model", "mock/gpt-harness", prompt)
	}
	return s
}()
