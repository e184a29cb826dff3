package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/store"
)

// opencode has no command hooks: a plugin file in .opencode/plugins/ runs
// inside it. ckpt's plugin (written by install) pipes each relevant event,
// reduced to the fields below, to `ckpt hook opencode` with Bun's $, and
// waits for it, so the capture happens before the tool writes.
func init() {
	register(&adapter{
		name:  "opencode",
		parse: parseOpencode,
	})
}

// opencodeEvent is what ckpt's plugin sends (see pluginSource in
// package setup, which writes it).
type opencodeEvent struct {
	Event     string          `json:"event"` // chat.message, tool.execute.before, tool.execute.after
	Directory string          `json:"directory"`
	SessionID string          `json:"sessionID"`
	MessageID string          `json:"messageID"`
	CallID    string          `json:"callID"`
	Tool      string          `json:"tool"`
	Text      string          `json:"text"`
	Args      json.RawMessage `json:"args"`
	// session.idle: what the turn said (see said.go).
	Prompt json.RawMessage `json:"prompt"`
	Reply  json.RawMessage `json:"reply"`
	Calls  json.RawMessage `json:"calls"`
}

func parseOpencode(data []byte, _ func(string) string) (event, error) {
	var e opencodeEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return event{}, fmt.Errorf("decode the event: %w", err)
	}
	ev := event{name: e.Event, session: e.SessionID, prompt: e.MessageID, cwd: e.Directory, project: e.Directory}
	switch e.Event {
	case "chat.message":
		ev.do, ev.text = startTurn, unwrapRunQuotes(e.Text)
		ev.said = &store.Conversation{Prompt: ev.text}
		return ev, nil
	case "tool.execute.before":
		ev.do = beforeWrite
	case "tool.execute.after":
		ev.do = afterWrite
	case "session.idle":
		ev.do = turnEnd
		if len(e.Prompt) > 0 || len(e.Reply) > 0 || len(e.Calls) > 0 {
			ev.said, ev.saidErr = opencodeSaid(e.Prompt, e.Reply, e.Calls)
		}
		return ev, nil
	default:
		return ev, nil
	}
	if e.Tool == "bash" {
		ev.do = map[action]action{beforeWrite: shellBefore, afterWrite: shellAfter}[ev.do]
		ev.command = shellCommand(e.Tool, toolCommand(e.Args))
		return ev, nil
	}
	var args struct {
		FilePath  string `json:"filePath"`
		PatchText string `json:"patchText"`
	}
	if len(e.Args) > 0 {
		if err := json.Unmarshal(e.Args, &args); err != nil {
			return ev, fmt.Errorf("%s %s: decode args: %w", e.Event, e.Tool, err)
		}
	}
	switch e.Tool {
	case "write", "edit", "multiedit":
		if args.FilePath == "" {
			return ev, fmt.Errorf("%s %s: args name no file", e.Event, e.Tool)
		}
		ev.paths = []string{args.FilePath}
	case "patch", "apply_patch":
		p, err := patchOrError(args.PatchText)
		if err != nil {
			return ev, fmt.Errorf("%s %s: %w", e.Event, e.Tool, err)
		}
		ev.paths = p
	default:
		ev.do = ignore
	}
	return ev, nil
}

// unwrapRunQuotes takes off the one pair of double quotes `opencode run`
// wraps around a message argument that holds a space, so the label is what
// the user typed. A prompt typed with quotes of its own keeps them: it
// arrives with two pairs, and loses one.
func unwrapRunQuotes(text string) string {
	if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' && strings.ContainsAny(text[1:len(text)-1], " \t") {
		return text[1 : len(text)-1]
	}
	return text
}
