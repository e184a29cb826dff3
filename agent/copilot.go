package agent

import (
	"path/filepath"
	"strings"
)

// GitHub Copilot CLI and VS Code's Copilot agent both run every hook file
// in .github/hooks/, so one file of ckpt's serves both, and each event runs
// ckpt once. Its events are PascalCase, which Copilot CLI answers with
// Claude-shaped payloads (tool_name "Write", but its own argument names:
// tool_input {path, file_text}) and VS Code with its own tools (editFiles
// {files}, createFile {filePath}, runInTerminal {command}). Each entry
// names the command under both keys, bash (Copilot CLI) and command (VS
// Code), and the timeout in both units' keys.
//
// Copilot CLI in -p mode skips repo hooks silently unless the folder is
// trusted for it (COPILOT_ALLOW_ALL=true, --trust-folder or
// GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true): install and doctor say so.
// A preToolUse hook that fails denies the tool call: ckpt's never fails.
func init() {
	register(&adapter{
		name: "copilot",
		parse: claudeShape{
			writes:     toolSet(copilotWriteTools...),
			shell:      isCopilotShell,
			projectEnv: "COPILOT_PROJECT_DIR",
			transcript: copilotTranscript,
		}.parse,
	})
}

// copilotWriteTools are Copilot CLI's file tools as its PascalCase events
// name them, then VS Code's agent's.
var copilotWriteTools = []string{"Write", "Edit", "MultiEdit", "create", "edit", "apply_patch",
	"editFiles", "createFile", "create_file", "replaceString", "replace_string_in_file",
	"multiReplaceString", "multi_replace_string_in_file", "insertEdit", "insert_edit_into_file",
	"editNotebook", "edit_notebook_file"}

// copilotTranscript is where Copilot CLI keeps a session's events, the
// path its Stop event names: $COPILOT_HOME (default ~/.copilot), then
// session-state/<session id>/events.jsonl. A session id that is not one
// plain file name gives none.
func copilotTranscript(session string, getenv func(string) string) string {
	if strings.ContainsAny(session, "/\\\x00") || session == "." || session == ".." {
		return ""
	}
	home := getenv("COPILOT_HOME")
	if home == "" {
		if h := getenv("HOME"); h != "" {
			home = filepath.Join(h, ".copilot")
		}
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, "session-state", session, "events.jsonl")
}

func isCopilotShell(tool string) bool {
	switch tool {
	case "Bash", "bash", "powershell", "runInTerminal", "run_in_terminal", "runTerminalCommand":
		return true
	}
	return strings.HasPrefix(tool, "mcp__")
}
