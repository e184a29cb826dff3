package agent

import (
	"encoding/json"
	"fmt"
)

// Windsurf's Cascade runs the hooks listed in .windsurf/hooks.json
// ({"hooks": {EVENT: [{"command": C}]}}), each with {agent_action_name,
// trajectory_id, execution_id, tool_info} on standard input. It has a
// pre-write event (pre_write_code, tool_info {file_path, edits}), so files
// are captured before the write as for the CLIs. Built from Windsurf's
// documentation, not run here.
func init() {
	register(&adapter{
		name:  "windsurf",
		parse: parseWindsurf,
	})
}

type windsurfEvent struct {
	Action     string `json:"agent_action_name"`
	Trajectory string `json:"trajectory_id"`
	Execution  string `json:"execution_id"`
	ToolInfo   struct {
		UserPrompt  string `json:"user_prompt"`
		FilePath    string `json:"file_path"`
		CommandLine string `json:"command_line"`
		Cwd         string `json:"cwd"`
	} `json:"tool_info"`
}

func parseWindsurf(data []byte, _ func(string) string) (event, error) {
	var e windsurfEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return event{}, fmt.Errorf("decode the event: %w", err)
	}
	ti := e.ToolInfo
	ev := event{name: e.Action, session: e.Trajectory, prompt: e.Execution, cwd: ti.Cwd}
	switch e.Action {
	case "pre_user_prompt":
		ev.do, ev.text = startTurn, ti.UserPrompt
	case "pre_write_code", "post_write_code":
		if ti.FilePath == "" {
			return ev, fmt.Errorf("%s names no file", e.Action)
		}
		ev.do, ev.paths = beforeWrite, []string{ti.FilePath}
		if e.Action == "post_write_code" {
			ev.do = afterWrite
		}
	case "pre_run_command":
		ev.do, ev.command = shellBefore, ti.CommandLine
	case "post_run_command":
		ev.do, ev.command = shellAfter, ti.CommandLine
	case "post_cascade_response":
		ev.do = turnEnd
	}
	return ev, nil
}
