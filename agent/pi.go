package agent

import (
	"encoding/json"
	"fmt"

	"github.com/ckpt-dev/ckpt/store"
)

// pi has no hook commands: a TypeScript extension in .pi/extensions/ runs
// inside it. ckpt's extension (written by install) starts `ckpt hook pi`
// for each event that matters and waits for it, synchronously: pi awaits
// an extension's tool_call handler, so the capture happens before the tool
// runs. A prompt's turn runs from input to agent_end (pi's turn_* events
// mark each model reply, not each prompt). pi's events carry no session
// id, so the extension makes one for the pi process it runs in. An
// extension that throws in tool_call blocks the tool: every call is
// wrapped, and ckpt's answer is never read.
func init() {
	register(&adapter{
		name:  "pi",
		parse: parsePi,
	})
}

// piEvent is what ckpt's extension sends (see piExtension in package
// setup, which writes it).
type piEvent struct {
	Event   string          `json:"event"` // input, tool_call, tool_result, agent_end
	Cwd     string          `json:"cwd"`
	Session string          `json:"session"`
	Text    string          `json:"text"`
	Tool    string          `json:"tool"`
	CallID  string          `json:"callId"`
	Input   json.RawMessage `json:"input"`
	IsError bool            `json:"isError"`
	// Messages (agent_end) are the run's messages, cut down (piMessage).
	Messages json.RawMessage `json:"messages"`
}

func parsePi(data []byte, _ func(string) string) (event, error) {
	var e piEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return event{}, fmt.Errorf("decode the event: %w", err)
	}
	ev := event{name: e.Event, session: e.Session, cwd: e.Cwd, project: e.Cwd}
	switch e.Event {
	case "input":
		ev.do, ev.text = startTurn, e.Text
		ev.said = &store.Conversation{Prompt: e.Text}
		return ev, nil
	case "agent_end":
		ev.do = turnEnd
		if len(e.Messages) > 0 {
			ev.said, ev.saidErr = piSaid(e.Messages)
		}
		return ev, nil
	case "tool_call":
		ev.do = beforeWrite
	case "tool_result":
		ev.do = afterWrite
	default:
		return ev, nil
	}
	switch e.Tool {
	case "bash":
		ev.do = map[action]action{beforeWrite: shellBefore, afterWrite: shellAfter}[ev.do]
		ev.command = shellCommand(e.Tool, toolCommand(e.Input))
		return ev, nil
	case "write", "edit":
		paths, err := inputPaths(e.Input)
		if err != nil {
			return ev, fmt.Errorf("%s %s: %w", e.Event, e.Tool, err)
		}
		ev.paths = paths
	default:
		ev.do = ignore
	}
	return ev, nil
}
