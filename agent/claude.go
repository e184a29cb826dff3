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

// claudeWriteTools are the tools whose tool_input names the file written.
var claudeWriteTools = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

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
	if sh, ok := claudeShell(e.HookEventName, e.ToolName); ok {
		ev.do, ev.command = sh, shellCommand(e.ToolName, toolCommand(e.ToolInput))
		return ev, nil
	}
	switch e.HookEventName {
	case "UserPromptSubmit":
		ev.do, ev.text = startTurn, e.Prompt
		return ev, nil
	case "PreToolUse":
		ev.do = beforeWrite
	case "PostToolUse":
		ev.do = afterWrite
	default:
		// PostToolUseFailure and the rest: a failed call leaves the
		// file as captured, and that is fine.
		return ev, nil
	}
	if !claudeWriteTools[e.ToolName] {
		ev.do = ignore
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

// claudeShell maps the events of a swept tool, and Stop, to their action.
// Codex sends the same events and names.
func claudeShell(event, tool string) (action, bool) {
	switch {
	case event == "Stop":
		return turnEnd, true
	case !isShellTool(tool):
		return ignore, false
	case event == "PreToolUse":
		return shellBefore, true
	case event == "PostToolUse" || event == "PostToolUseFailure":
		// A failed command may have written too.
		return shellAfter, true
	}
	return ignore, false
}
