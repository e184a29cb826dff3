package agent

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Several agents send Claude Code's hook events with their own tool names
// (Qwen Code, Copilot CLI's PascalCase events, VS Code's agent, Droid,
// Auggie): one parser, told each agent's tools by a claudeShape.

// claudeShape is one agent's dialect of Claude Code's hook events.
type claudeShape struct {
	// writes reports a tool that writes the files its input names.
	writes func(tool string) bool
	// shell reports a tool swept around (a shell, MCP tools).
	shell func(tool string) bool
	// projectEnv is the variable naming the project folder, if any.
	projectEnv string
	// transcript, when set, names the session's transcript for events that
	// carry no transcript_path (Copilot CLI names it on Stop only, after
	// the turn's record is written).
	transcript func(session string, getenv func(string) string) string
}

// shapedEvent is the union of the field spellings these agents use.
type shapedEvent struct {
	HookEventName  string          `json:"hook_event_name"`
	HookEventName2 string          `json:"hookEventName"`
	SessionID      string          `json:"session_id"`
	SessionID2     string          `json:"sessionId"`
	PromptID       string          `json:"prompt_id"`
	Cwd            string          `json:"cwd"`
	Prompt         string          `json:"prompt"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	Transcript     string          `json:"transcript_path"`
}

func (c claudeShape) parse(data []byte, getenv func(string) string) (event, error) {
	var e shapedEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return event{}, fmt.Errorf("decode the event: %w", err)
	}
	name := cmpOr(e.HookEventName, e.HookEventName2)
	ev := event{name: name, session: cmpOr(e.SessionID, e.SessionID2), prompt: e.PromptID, cwd: e.Cwd, transcript: e.Transcript}
	if c.projectEnv != "" {
		ev.project = getenv(c.projectEnv)
	}
	if ev.transcript == "" && c.transcript != nil && ev.session != "" {
		ev.transcript = c.transcript(ev.session, getenv)
	}
	if !claudeAction(&ev, name, e.ToolName, e.Prompt, e.ToolInput, c.shell, c.writes) {
		return ev, nil
	}
	paths, err := inputPaths(e.ToolInput)
	if err != nil {
		return ev, fmt.Errorf("%s %s: %w", name, e.ToolName, err)
	}
	ev.paths = paths
	return ev, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// inputPaths finds the files a tool's input names, under whichever key
// the agent uses: file_path, path, filePath, filepath, notebook_path,
// absolute_path, a files list (of paths, or of objects with one), or the
// headers of a patch.
func inputPaths(raw json.RawMessage) ([]string, error) {
	var in map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &in) != nil {
		return nil, fmt.Errorf("the tool input is not an object")
	}
	var out []string
	for _, k := range []string{"file_path", "path", "filePath", "filepath", "notebook_path", "absolute_path", "target_file"} {
		var s string
		if json.Unmarshal(in[k], &s) == nil && s != "" {
			out = append(out, s)
		}
	}
	for _, k := range []string{"files", "edits"} {
		var list []json.RawMessage
		if json.Unmarshal(in[k], &list) != nil {
			continue
		}
		for _, item := range list {
			var s string
			if json.Unmarshal(item, &s) == nil && s != "" {
				out = append(out, s)
				continue
			}
			if p, err := inputPaths(item); err == nil {
				out = append(out, p...)
			}
		}
	}
	if len(out) == 0 {
		for _, k := range []string{"input", "patch", "command"} {
			var s string
			if json.Unmarshal(in[k], &s) == nil && strings.Contains(s, "*** Begin Patch") {
				return patchOrError(s)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the tool input names no file")
	}
	return out, nil
}

// toolSet is a set of tool names as a predicate.
func toolSet(names ...string) func(string) bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return func(s string) bool { return m[s] }
}
