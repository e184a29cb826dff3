package harness

import (
	"fmt"
	"os"
	"strings"

	"os/exec"
	"path/filepath"
	"testing"
)

// codexSpec runs Codex CLI headless (`codex exec`) against a mock
// Responses API set up as a custom provider in a temporary $CODEX_HOME,
// after `ckpt install codex --approve`: without the approvals Codex skips
// the project's hooks silently.
var codexSpec = agentSpec{
	name:         "codex",
	conversation: true,
	tools:        map[stepKind]string{stepPatch: "apply_patch", stepShell: "exec_command|shell_command|shell"},
	steps:        []step{patchStep, shellStep},
	shellTool:    "Bash",
	handler:      (*mock).responses,
	approve:      true,
	prepare: func(t *testing.T, r *run, url string) {
		r.write(t, "home/.codex/config.toml", fmt.Sprintf(`model = "gpt-5.5"
model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = "%s/v1"
wire_api = "responses"
env_key = "CKPT_MOCK_KEY"
request_max_retries = 0
stream_max_retries = 0
`, url))
	},
	commandEnv: func(r *run, url string) []string {
		return []string{"CODEX_HOME=" + filepath.Join(r.home, ".codex"), "CKPT_MOCK_KEY=harness", "RUST_LOG=error"}
	},
	command: func(r *run, exe string) *exec.Cmd {
		return exec.Command(exe, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--color", "never", prompt)
	},
}

// codexCodeModeSpec runs Codex with a "code mode" model, which gets one
// JavaScript exec tool whose script calls apply_patch and exec_command;
// hooks fire for those nested calls.
var codexCodeModeSpec = func() agentSpec {
	s := codexSpec
	s.variant = "code-mode"
	prepare := s.prepare
	s.prepare = func(t *testing.T, r *run, url string) {
		prepare(t, r, url)
		p := filepath.Join(r.home, ".codex", "config.toml")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), `model = "gpt-5.5"`, `model = "gpt-6-sol"`, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return s
}()
