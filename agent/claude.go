package agent

import (
	"encoding/json"
	"fmt"
)

// Claude Code runs hooks listed in .claude/settings.local.json with one JSON
// object on standard input. Anything a UserPromptSubmit hook prints becomes
// part of the model's context, so the hook prints nothing; exit code 2 from
// PreToolUse would block the tool, so it always exits 0.
func init() {
	register(&adapter{
		name:  "claude",
		parse: parseClaude,
	})
}

// claudeWrites are the tools whose tool_input names the file written.
var claudeWrites = toolSet("Write", "Edit", "MultiEdit", "NotebookEdit")

type claudeEvent struct {
	HookEventName string          `json:"hook_event_name"`
	SessionID     string          `json:"session_id"`
	PromptID      string          `json:"prompt_id"`
	Cwd           string          `json:"cwd"`
	Prompt        string          `json:"prompt"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	Transcript    string          `json:"transcript_path"`
}

func parseClaude(data []byte, getenv func(string) string) (event, error) {
	var e claudeEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return event{}, fmt.Errorf("decode the event: %w", err)
	}
	ev := event{name: e.HookEventName,
		session:    e.SessionID,
		prompt:     e.PromptID,
		cwd:        e.Cwd,
		project:    getenv("CLAUDE_PROJECT_DIR"),
		transcript: e.Transcript,
	}
	if !claudeAction(&ev, e.HookEventName, e.ToolName, e.Prompt, e.ToolInput, isShellTool, claudeWrites) {
		return ev, nil
	}
	// Continue's cn runs the hooks in Claude Code's files, and its Write
	// names the file filepath.
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Filepath     string `json:"filepath"`
	}
	if len(e.ToolInput) > 0 {
		if err := json.Unmarshal(e.ToolInput, &in); err != nil {
			return ev, fmt.Errorf("%s %s: decode tool_input: %w", e.HookEventName, e.ToolName, err)
		}
	}
	for _, p := range []string{in.FilePath, in.NotebookPath, in.Filepath} {
		if p != "" {
			ev.paths = append(ev.paths, p)
		}
	}
	if len(ev.paths) == 0 {
		return ev, fmt.Errorf("%s %s: tool_input names no file", e.HookEventName, e.ToolName)
	}
	return ev, nil
}

// claudeAction sets ev's action from the names of a Claude-shaped event
// (Claude Code's, Codex's and those of the agents in shaped.go) and its
// tool: a prompt opens a turn and Stop ends it; a swept tool (shell) is
// swept around, after it failed too, since a failed command may have
// written; a file tool (writes) is captured before and sealed after. The
// rest is ignored: after a failed file tool the file stays as captured,
// and that is fine. It reports whether the action needs the paths the
// tool's input names.
func claudeAction(ev *event, name, tool, prompt string, input json.RawMessage, shell, writes func(string) bool) bool {
	switch {
	case name == "UserPromptSubmit":
		ev.do, ev.text = startTurn, prompt
	case name == "Stop":
		ev.do = turnEnd
	case shell(tool):
		switch name {
		case "PreToolUse":
			ev.do = shellBefore
		case "PostToolUse", "PostToolUseFailure":
			ev.do = shellAfter
		}
		ev.command = shellCommand(tool, toolCommand(input))
	case !writes(tool):
	case name == "PreToolUse":
		ev.do = beforeWrite
		return true
	case name == "PostToolUse":
		ev.do = afterWrite
		return true
	}
	return false
}
