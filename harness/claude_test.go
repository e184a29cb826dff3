package harness

import (
	"os/exec"
	"testing"
)

// claudeSpec runs Claude Code headless (`claude -p`) against a mock
// Messages API at $ANTHROPIC_BASE_URL. Edits are accepted by the
// permission mode and Bash by --allowedTools: as root, Claude Code refuses
// to skip permissions altogether.
var claudeSpec = agentSpec{
	name:         "claude",
	conversation: true,
	tools:        map[stepKind]string{stepWrite: "Write", stepEdit: "Edit", stepRead: "Read", stepShell: "Bash"},
	steps:        []step{writeStep, readStep, editStep, shellStep},
	shellTool:    "Bash",
	handler:      (*mock).anthropic,
	prepare:      func(t *testing.T, r *run, url string) {},
	commandEnv: func(r *run, url string) []string {
		return []string{"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=sk-ant-harness",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
			"DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1"}
	},
	command: func(r *run, exe string) *exec.Cmd {
		return exec.Command(exe, "-p", prompt, "--permission-mode", "acceptEdits",
			"--allowedTools", "Bash", "--model", "claude-sonnet-4-5", "--output-format", "text")
	},
}
