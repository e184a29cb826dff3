package harness

import (
	"encoding/json"
	"os/exec"
	"testing"
)

// geminiSpec runs Gemini CLI headless (`gemini -p`, YOLO approvals)
// against a mock Gemini API at $GOOGLE_GEMINI_BASE_URL, in a folder the
// user trusts: in an untrusted one headless Gemini refuses to run and
// project hooks are skipped.
var geminiSpec = agentSpec{
	name:         "gemini",
	conversation: true,
	tools:        map[stepKind]string{stepWrite: "write_file", stepEdit: "replace", stepShell: "run_shell_command"},
	steps:        []step{writeStep, editStep, shellStep},
	shellTool:    "run_shell_command",
	handler:      (*mock).gemini,
	prepare: func(t *testing.T, r *run, url string) {
		r.write(t, "home/.gemini/settings.json", `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"disableAutoUpdate": true, "disableUpdateNag": true}, "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}}`)
		trusted, _ := json.Marshal(map[string]string{r.project: "TRUST_FOLDER"})
		r.write(t, "home/.gemini/trustedFolders.json", string(trusted))
	},
	commandEnv: func(r *run, url string) []string {
		return []string{"GOOGLE_GEMINI_BASE_URL=" + url, "GEMINI_API_KEY=harness", "GEMINI_CLI_NO_RELAUNCH=true"}
	},
	command: func(r *run, exe string) *exec.Cmd {
		return exec.Command(exe, "-p", prompt, "-m", "gemini-2.5-flash", "--approval-mode", "yolo", "--output-format", "text")
	},
}
