package agent

import (
	"encoding/json"
	"fmt"
)

// Cursor runs the hooks listed in .cursor/hooks.json ({"version": 1,
// "hooks": {EVENT: [{"command": C}]}}). Its file event, afterFileEdit
// {file_path, edits}, comes only after the write, so the pre-image comes
// from the baseline: the prompt event (beforeSubmitPrompt) sweeps the tree,
// which keeps every file's bytes as they are, and each afterFileEdit
// sweeps again, recording what changed since against those kept bytes.
// The same sweep brackets each shell command (before/afterShellExecution).
// A change made by hand between the prompt and the agent's edit lands in
// the turn too. Built from Cursor's documentation, not run here.
func init() {
	register(&adapter{
		name:  "cursor",
		parse: parseCursor,
	})
}

type cursorEvent struct {
	HookEventName  string   `json:"hook_event_name"`
	ConversationID string   `json:"conversation_id"`
	GenerationID   string   `json:"generation_id"`
	WorkspaceRoots []string `json:"workspace_roots"`
	Prompt         string   `json:"prompt"`
	FilePath       string   `json:"file_path"`
	Command        string   `json:"command"`
	Cwd            string   `json:"cwd"`
}

func parseCursor(data []byte, _ func(string) string) (event, error) {
	var e cursorEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return event{}, fmt.Errorf("decode the event: %w", err)
	}
	ev := event{name: e.HookEventName, session: e.ConversationID, prompt: e.GenerationID, cwd: e.Cwd}
	if len(e.WorkspaceRoots) > 0 {
		ev.project = e.WorkspaceRoots[0]
		if ev.cwd == "" {
			ev.cwd = ev.project
		}
	}
	switch e.HookEventName {
	case "beforeSubmitPrompt":
		ev.do, ev.text, ev.sweep = startTurn, e.Prompt, true
	case "afterFileEdit":
		if e.FilePath == "" {
			return ev, fmt.Errorf("afterFileEdit names no file")
		}
		ev.do, ev.command = shellAfter, "edit "+e.FilePath
	case "beforeShellExecution":
		ev.do, ev.command = shellBefore, e.Command
	case "afterShellExecution":
		ev.do, ev.command = shellAfter, e.Command
	case "stop":
		ev.do = turnEnd
	}
	return ev, nil
}
