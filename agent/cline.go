package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Cline runs an executable file named after each event from
// .clinerules/hooks/. ckpt's are small shell scripts running `ckpt hook
// cline`. PreToolUse and PostToolUse are awaited; UserPromptSubmit and
// TaskComplete are fire-and-forget, so they may run after the first tool
// call's hook (their order varied between runs): the turn is keyed by the
// task (taskId), and a tool call opens it when no prompt has yet. The
// tool's arguments are read from tool_call.input, whose values keep their
// types (preToolUse.parameters turns every one into a string).
//
// The user's prompt reaches no hook. In one-shot mode (`cline PROMPT`) the
// only UserPromptSubmit carries Cline's own injected text ("[SYSTEM] This
// run is not complete until…"), which never opens a second turn; a turn it
// opens says that the prompt was not given. In the interactive TUI no
// UserPromptSubmit comes at all: each prompt's turn opens at the first
// event after the previous run ended (runs.go).
func init() {
	register(&adapter{name: "cline", parse: parseCline, runs: true})
}

var (
	clineWrites = toolSet("editor", "write_to_file", "replace_in_file", "apply_patch", "new_rule")
	clineShell  = toolSet("run_commands", "execute_command", "use_mcp_tool")
)

type clineTool struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type clineEvent struct {
	HookName       string   `json:"hookName"`
	Timestamp      string   `json:"timestamp"`
	TaskID         string   `json:"taskId"`
	WorkspaceRoots []string `json:"workspaceRoots"`
	Prompt         *struct {
		Prompt string `json:"prompt"`
	} `json:"userPromptSubmit"`
	ToolCall     *clineTool      `json:"tool_call"`
	ToolResult   *clineTool      `json:"tool_result"`
	TaskComplete json.RawMessage `json:"taskComplete"`
	TaskCancel   json.RawMessage `json:"taskCancel"`
}

// clineInjected starts the text Cline sends in place of a one-shot prompt.
const clineInjected = "[SYSTEM]"

func parseCline(data []byte, _ func(string) string) (event, error) {
	var e clineEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return event{}, fmt.Errorf("decode the event: %w", err)
	}
	ev := event{name: e.HookName, session: e.TaskID}
	if t, err := time.Parse(time.RFC3339Nano, e.Timestamp); err == nil {
		ev.at = t
	}
	if len(e.WorkspaceRoots) > 0 {
		ev.cwd, ev.project = e.WorkspaceRoots[0], e.WorkspaceRoots[0]
	}
	var tool *clineTool
	switch {
	case e.Prompt != nil:
		ev.do, ev.text = startTurn, e.Prompt.Prompt
		if strings.HasPrefix(strings.TrimSpace(ev.text), clineInjected) || strings.TrimSpace(ev.text) == "" {
			ev.weak = true
			ev.text = "cline task " + e.TaskID + " (its one-shot prompt reaches no hook)"
		}
		return ev, nil
	case len(e.TaskComplete) > 0 || len(e.TaskCancel) > 0:
		ev.do = turnEnd
		return ev, nil
	case e.ToolCall != nil:
		ev.do, tool = beforeWrite, e.ToolCall
	case e.ToolResult != nil:
		ev.do, tool = afterWrite, e.ToolResult
	default:
		return ev, nil
	}
	switch {
	case clineShell(tool.Name):
		ev.do = map[action]action{beforeWrite: shellBefore, afterWrite: shellAfter}[ev.do]
		ev.command = shellCommand(tool.Name, toolCommand(tool.Input))
		if ev.command == tool.Name {
			ev.command = clineCommands(tool.Input, tool.Name)
		}
	case clineWrites(tool.Name):
		paths, err := inputPaths(tool.Input)
		if err != nil {
			return ev, fmt.Errorf("%s %s: %w", e.HookName, tool.Name, err)
		}
		ev.paths = paths
	default:
		ev.do = ignore
	}
	return ev, nil
}

// clineCommands is run_commands' command lines, joined.
func clineCommands(raw json.RawMessage, tool string) string {
	var in struct {
		Commands []string `json:"commands"`
	}
	if json.Unmarshal(raw, &in) != nil || len(in.Commands) == 0 {
		return tool
	}
	return strings.Join(in.Commands, "; ")
}
