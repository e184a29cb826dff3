package agent

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Codex CLI runs hooks listed in .codex/hooks.json (same shape as Claude
// Code's; loaded for trusted projects). Its file-editing tool is
// apply_patch: one call may add, update, delete and move many files, all
// named by the patch's headers, relative to cwd.
func init() {
	register(&adapter{
		name:  "codex",
		parse: parseCodex,
	})
}

var codexWrites = toolSet("apply_patch", "Edit", "Write")

type codexEvent struct {
	HookEventName string          `json:"hook_event_name"`
	SessionID     string          `json:"session_id"`
	TurnID        string          `json:"turn_id"`
	Cwd           string          `json:"cwd"`
	Prompt        string          `json:"prompt"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	Transcript    string          `json:"transcript_path"`
}

func parseCodex(data []byte, getenv func(string) string) (event, error) {
	var e codexEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return event{}, fmt.Errorf("decode the event: %w", err)
	}
	ev := event{name: e.HookEventName, session: e.SessionID, prompt: e.TurnID, cwd: e.Cwd, transcript: e.Transcript}
	if !claudeAction(&ev, e.HookEventName, e.ToolName, e.Prompt, e.ToolInput, isShellTool, codexWrites) {
		return ev, nil
	}
	paths, err := codexInputPaths(e.ToolInput)
	if err != nil {
		return ev, fmt.Errorf("%s %s: %w", e.HookEventName, e.ToolName, err)
	}
	ev.paths = paths
	return ev, nil
}

// codexInputPaths finds the files an apply_patch tool_input touches. The
// documented shape is {"command": "*** Begin Patch…"}; a bare patch string,
// other key names and a plain file_path are accepted too.
func codexInputPaths(raw json.RawMessage) ([]string, error) {
	var patch string
	if json.Unmarshal(raw, &patch) == nil {
		return patchOrError(patch)
	}
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("decode tool_input: %w", err)
	}
	for _, k := range []string{"command", "patch", "input", "patchText"} {
		var s string
		if json.Unmarshal(in[k], &s) == nil && strings.Contains(s, "*** ") {
			return patchOrError(s)
		}
		var argv []string
		if json.Unmarshal(in[k], &argv) == nil {
			for _, a := range argv {
				if strings.Contains(a, "*** Begin Patch") {
					return patchOrError(a)
				}
			}
		}
	}
	var fp string
	if json.Unmarshal(in["file_path"], &fp) == nil && fp != "" {
		return []string{fp}, nil
	}
	return nil, fmt.Errorf("tool_input holds no patch")
}

func patchOrError(patch string) ([]string, error) {
	p := patchPaths(patch)
	if len(p) == 0 {
		return nil, fmt.Errorf("the patch names no file")
	}
	return p, nil
}
