package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/store"
)

// opencode and pi keep their conversations where ckpt cannot read them
// (opencode's storage, one file per message part; pi's session file, when
// it keeps one), so ckpt's plugin and extension forward what the turn
// said: the prompt comes with the prompt's event, and the end of the turn
// brings the agent's last reply and its tool calls. The hook records them
// in the store (store.SaveConversation) for `ckpt show --conversation`
// and the UI. Events are read defensively: a member missing or of another
// shape is left out, and the worst a damaged event can do is leave the
// conversation view with less to show; it never fails the turn's capture.

// saidCall is a tool call as ckpt's opencode plugin forwards it.
type saidCall struct {
	ID     string          `json:"id"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	Status string          `json:"status"` // opencode's: completed, error; else still running
}

// opencodeSaid is what the plugin's session.idle brings: the turn's
// prompt, the agent's last reply and its calls, in the order they began.
// A member of another shape is left out, and said so.
func opencodeSaid(prompt, reply, calls json.RawMessage) (*store.Conversation, error) {
	c := &store.Conversation{}
	var bad []string
	text := func(raw json.RawMessage, name string) string {
		var s string
		if len(raw) > 0 && json.Unmarshal(raw, &s) != nil {
			bad = append(bad, name)
		}
		return s
	}
	c.Prompt, c.Reply = unwrapRunQuotes(text(prompt, "prompt")), strings.TrimSpace(text(reply, "reply"))
	var items []json.RawMessage
	if len(calls) > 0 && json.Unmarshal(calls, &items) != nil {
		bad = append(bad, "calls")
	}
	for _, it := range items {
		var k saidCall
		if json.Unmarshal(it, &k) != nil || k.Tool == "" {
			bad = append(bad, "a call")
			continue
		}
		state := ""
		switch k.Status {
		case "completed":
			state = store.CallOK
		case "error":
			state = store.CallFailed
		}
		c.Calls = append(c.Calls, store.ConversationCall{Name: k.Tool, Target: callTarget(k.Args), State: state})
	}
	if len(bad) > 0 {
		return c, fmt.Errorf("session.idle: left out what is not of the shape ckpt's plugin sends: %s", strings.Join(bad, ", "))
	}
	return c, nil
}

// piMessage is one of pi's messages as ckpt's extension forwards them
// with agent_end (pi's AgentMessage, cut down): a user's or the
// assistant's text and the assistant's tool calls; a toolResult names
// the call it answers and whether it failed.
type piMessage struct {
	Role  string `json:"role"` // user, assistant, toolResult
	Text  string `json:"text"`
	Calls []struct {
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"calls"`
	ID      string `json:"id"` // toolResult: the call's id
	IsError bool   `json:"isError"`
}

// piSaid reads a run's messages: the first user text is the prompt, the
// assistant's last text its reply, and its calls come in order, each ok
// or failed by its result. A message of another shape is skipped.
func piSaid(raw json.RawMessage) (*store.Conversation, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("agent_end: its messages are not a list: %w", err)
	}
	c := &store.Conversation{}
	at := map[string]int{}
	skipped := 0
	for _, it := range items {
		var m piMessage
		if json.Unmarshal(it, &m) != nil {
			skipped++
			continue
		}
		switch m.Role {
		case "user":
			if c.Prompt == "" {
				c.Prompt = m.Text
			}
		case "assistant":
			if t := strings.TrimSpace(m.Text); t != "" {
				c.Reply = t
			}
			for _, k := range m.Calls {
				if k.ID != "" {
					at[k.ID] = len(c.Calls)
				}
				c.Calls = append(c.Calls, store.ConversationCall{Name: k.Name, Target: callTarget(k.Input)})
			}
		case "toolResult":
			if i, ok := at[m.ID]; ok {
				c.Calls[i].State = map[bool]string{false: store.CallOK, true: store.CallFailed}[m.IsError]
			}
		}
	}
	if skipped > 0 {
		return c, fmt.Errorf("agent_end: left out %d messages not of the shape ckpt's extension sends", skipped)
	}
	return c, nil
}

// callTarget is the path or command a tool's arguments name: the first
// of the members tools name a file, a command or a search by, and for a
// patch the files its headers name.
func callTarget(raw json.RawMessage) string {
	var in map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &in) != nil {
		return ""
	}
	var patch string
	if json.Unmarshal(in["patchText"], &patch) == nil && patch != "" {
		if files := patchPaths(patch); len(files) > 0 {
			return strings.Join(files, ", ")
		}
	}
	for _, k := range []string{"filePath", "file_path", "path", "command", "pattern", "url", "query"} {
		var s string
		if json.Unmarshal(in[k], &s) == nil && s != "" {
			if k == "command" {
				return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ⏎ ")), " ")
			}
			return s
		}
	}
	return ""
}

// saveSaid records what the event brings of the turn's conversation.
// Its failure is logged, and the turn goes on.
func (h *hookCall) saveSaid(turn store.TurnID) {
	if h.ev.saidErr != nil {
		h.log("hook %s: turn %s's conversation: %v", h.agent.name, turn, h.ev.saidErr)
	}
	if h.ev.said == nil || turn == "" {
		return
	}
	if err := h.store.SaveConversation(turn, *h.ev.said); err != nil {
		h.log("hook %s: keep turn %s's conversation: %v", h.agent.name, turn, err)
	}
}

// SaysInEvents reports whether agent's conversations come from its
// plugin's events (recorded by the hook) rather than from a transcript.
func SaysInEvents(agent string) bool {
	switch agent {
	case "opencode", "kilo", "pi":
		return true
	}
	return false
}
