package harness

import (
	"fmt"
	"os/exec"
	"testing"
)

// The agents added after the first four, each run headless against the
// chat-completions mock in its own tools, on the .env scenario (envSetup):
// a new file, an edit, the ignored .env rewritten, and a shell command
// that edits one file and deletes another.

// piSpec runs pi (`pi -p`) with a models.json provider at the mock. Its
// write and edit take paths relative to the project, as sent.
var piSpec = agentSpec{
	name:         "pi",
	conversation: true,
	steps:        []step{writeStep, editStep, envWrite, envShell},
	shellTool:    `"bash"`,
	handler:      (*mock).chat,
	probe:        "write",
	setup:        envSetup, after: envAfter, want: envWant,
	call: func(m *mock, st step) (string, map[string]any) {
		switch st.kind {
		case stepWrite:
			return "write", map[string]any{"path": st.path, "content": st.content}
		case stepEdit:
			return "edit", map[string]any{"path": st.path, "edits": []any{map[string]any{"oldText": st.old, "newText": st.new}}}
		case stepRead:
			return "read", map[string]any{"path": st.path}
		}
		return "bash", map[string]any{"command": st.command}
	},
	prepare: func(t *testing.T, r *run, url string) {
		r.write(t, "home/pi-agent/models.json", fmt.Sprintf(`{"providers": {"mock": {"baseUrl": "%s/v1", "api": "openai-completions", "apiKey": "harness",
  "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
  "models": [{"id": "mock-model", "reasoning": false}]}}}
`, url))
	},
	commandEnv: func(r *run, url string) []string {
		return []string{"PI_CODING_AGENT_DIR=" + r.home + "/pi-agent", "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0"}
	},
	command: func(r *run, exe string) *exec.Cmd {
		return exec.Command(exe, "-p", "--provider", "mock", "--model", "mock-model", "--no-session", prompt)
	},
}

// copilotSpec runs GitHub Copilot CLI (`copilot -p`) with a BYOK provider
// at the mock, offline. COPILOT_ALLOW_ALL=true allows every tool and, in
// -p mode, is what makes it run the repo's hooks at all. Its create tool
// refuses a file that exists, so .env is rewritten with edit.
var copilotSpec = agentSpec{
	name:         "copilot",
	conversation: true,
	steps:        []step{writeStep, editStep, envEdit, envShell},
	shellTool:    `"Bash"`,
	handler:      (*mock).chat,
	probe:        "create",
	setup:        envSetup, after: envAfter, want: envWant,
	call: func(m *mock, st step) (string, map[string]any) {
		switch st.kind {
		case stepWrite:
			return "create", map[string]any{"path": m.abs(st.path), "file_text": st.content}
		case stepEdit:
			return "edit", map[string]any{"path": m.abs(st.path), "old_str": st.old, "new_str": st.new}
		case stepRead:
			return "view", map[string]any{"path": m.abs(st.path)}
		}
		return "bash", map[string]any{"command": st.command, "description": "run the step's command", "mode": "sync", "initial_wait": 30}
	},
	prepare: func(t *testing.T, r *run, url string) {
		if out, err := exec.Command("git", "init", "-q", r.project).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	},
	commandEnv: func(r *run, url string) []string {
		return []string{"COPILOT_HOME=" + r.home + "/.copilot", "COPILOT_PROVIDER_BASE_URL=" + url + "/v1", "COPILOT_PROVIDER_TYPE=openai",
			"COPILOT_PROVIDER_API_KEY=harness", "COPILOT_MODEL=mock-model", "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false",
			"COPILOT_ALLOW_ALL=true"}
	},
	command: func(r *run, exe string) *exec.Cmd {
		return exec.Command(exe, "-p", prompt, "--no-auto-update", "--disable-client-telemetry", "--stream", "off")
	},
}

// clineSpec runs Cline (`cline --yolo PROMPT`, one-shot) through its
// openai-compatible provider at the mock. One-shot Cline runs until the
// model calls submit_and_exit, and gives hooks no prompt: the turn is
// labelled by the task. Its prompt and completion hooks run detached, so
// the run waits for them before the checks.
var clineSpec = agentSpec{
	name:      "cline",
	steps:     []step{writeStep, editStep, envEdit, envShell, doneStep},
	shellTool: "cline",
	handler:   (*mock).chat,
	probe:     "editor",
	setup:     envSetup, after: envAfter, want: envWant,
	label: "cline task ",
	call: func(m *mock, st step) (string, map[string]any) {
		switch st.kind {
		case stepWrite:
			return "editor", map[string]any{"path": m.abs(st.path), "new_text": st.content}
		case stepEdit:
			return "editor", map[string]any{"path": m.abs(st.path), "old_text": st.old, "new_text": st.new}
		case stepRead:
			return "read_files", map[string]any{"files": []any{map[string]any{"path": m.abs(st.path)}}}
		case stepDone:
			return "submit_and_exit", map[string]any{"summary": "Edited the files as the script asked.", "verified": true}
		}
		return "run_commands", map[string]any{"commands": []string{st.command}}
	},
	prepare: func(t *testing.T, r *run, url string) {},
	commandEnv: func(r *run, url string) []string {
		return []string{"CLINE_DIR=" + r.home + "/.cline", "CLINE_TELEMETRY_DISABLED=1", "CKPT_HARNESS_URL=" + url + "/v1"}
	},
	command: func(r *run, exe string) *exec.Cmd {
		return exec.Command("sh", "-c", `"$0" auth -p openai-compatible -k harness -m mock-model -b "$CKPT_HARNESS_URL" >/dev/null &&
"$0" --yolo -P openai-compatible -m mock-model -c "$PWD" "$1" </dev/null; s=$?; sleep 3; exit $s`, exe, prompt)
	},
}

// qwenSpec runs Qwen Code (`qwen --yolo PROMPT`) with its openai auth at
// the mock. It edits only files it has read.
var qwenSpec = agentSpec{
	name:         "qwen",
	conversation: true,
	steps:        []step{writeStep, readStep, editStep, envRead, envWrite, envShell},
	shellTool:    "run_shell_command",
	handler:      (*mock).chat,
	probe:        "write_file",
	setup:        envSetup, after: envAfter, want: envWant,
	call: func(m *mock, st step) (string, map[string]any) {
		switch st.kind {
		case stepWrite:
			return "write_file", map[string]any{"file_path": m.abs(st.path), "content": st.content}
		case stepEdit:
			return "edit", map[string]any{"file_path": m.abs(st.path), "old_string": st.old, "new_string": st.new}
		case stepRead:
			return "read_file", map[string]any{"file_path": m.abs(st.path)}
		}
		return "run_shell_command", map[string]any{"command": st.command, "description": "run the step's command", "is_background": false}
	},
	prepare: func(t *testing.T, r *run, url string) {},
	commandEnv: func(r *run, url string) []string {
		return []string{"CKPT_HARNESS_URL=" + url + "/v1"}
	},
	command: func(r *run, exe string) *exec.Cmd {
		return exec.Command("sh", "-c", `exec "$0" --yolo --auth-type openai --openai-base-url "$CKPT_HARNESS_URL" --openai-api-key harness -m mock-model --max-wall-time 120 "$1" </dev/null`, exe, prompt)
	},
}
