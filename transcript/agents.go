package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"time"
)

// claudeLine reads a line of Claude Code's session JSONL.
func claudeLine(line []byte, b *builder) bool {
	var e struct {
		Type        string `json:"type"`
		Timestamp   string `json:"timestamp"`
		PromptID    string `json:"promptId"`
		IsMeta      bool   `json:"isMeta"`
		IsSidechain bool   `json:"isSidechain"`
		Compact     bool   `json:"isCompactSummary"`
		Message     struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &e) != nil {
		return false
	}
	if e.IsSidechain || e.IsMeta || e.Compact {
		return true // a subagent's or Claude Code's own lines
	}
	switch e.Type {
	case "user":
		var items []struct {
			Type      string `json:"type"`
			Text      string `json:"text"`
			ToolUseID string `json:"tool_use_id"`
			IsError   bool   `json:"is_error"`
		}
		if json.Unmarshal(e.Message.Content, &items) == nil {
			var texts []string
			results := false
			for _, it := range items {
				switch it.Type {
				case "tool_result":
					results = true
					b.result(it.ToolUseID, it.IsError)
				case "text":
					texts = append(texts, it.Text)
				}
			}
			if !results && len(texts) > 0 {
				b.prompt(e.PromptID, parseTime(e.Timestamp), strings.Join(texts, "\n"))
			}
			return true
		}
		var s string
		if json.Unmarshal(e.Message.Content, &s) != nil {
			return false
		}
		b.prompt(e.PromptID, parseTime(e.Timestamp), s)
	case "assistant":
		var items []struct {
			Type  string          `json:"type"`
			Text  string          `json:"text"`
			ID    string          `json:"id"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		}
		if json.Unmarshal(e.Message.Content, &items) != nil {
			return false
		}
		for _, it := range items {
			switch it.Type {
			case "text":
				b.reply(it.Text)
			case "tool_use":
				b.call(it.ID, it.Name, targetOf(it.Input))
			}
		}
	}
	return true
}

// codexLine reads a line of a Codex rollout file.
func codexLine(line []byte, b *builder) bool {
	var e struct {
		Timestamp string          `json:"timestamp"`
		Type      string          `json:"type"`
		Payload   json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(line, &e) != nil {
		return false
	}
	var p struct {
		Type      string          `json:"type"`
		TurnID    string          `json:"turn_id"`
		Message   string          `json:"message"`
		Last      string          `json:"last_agent_message"`
		Name      string          `json:"name"`
		Arguments string          `json:"arguments"`
		Input     string          `json:"input"`
		CallID    string          `json:"call_id"`
		Output    json.RawMessage `json:"output"`
		ExitCode  *int            `json:"exit_code"`
		Success   *bool           `json:"success"`
		Action    json.RawMessage `json:"action"`
		Status    string          `json:"status"`
		Item      json.RawMessage `json:"item"`
	}
	if json.Unmarshal(e.Payload, &p) != nil {
		return false
	}
	switch e.Type + "/" + p.Type {
	case "event_msg/item_completed":
		return codexItem(p.Item, p.TurnID, parseTime(e.Timestamp), b)
	case "event_msg/task_started":
		b.codexTurn = p.TurnID
	case "event_msg/user_message":
		b.prompt(b.codexTurn, parseTime(e.Timestamp), p.Message)
		b.codexTurn = ""
	case "event_msg/agent_message":
		b.reply(p.Message)
	case "event_msg/task_complete":
		b.reply(p.Last)
	case "event_msg/exec_command_end":
		if p.ExitCode != nil {
			b.result(p.CallID, *p.ExitCode != 0)
		}
	case "event_msg/patch_apply_end":
		if p.Success != nil {
			b.result(p.CallID, !*p.Success)
		}
	case "response_item/function_call":
		b.call(p.CallID, p.Name, targetOf(json.RawMessage(p.Arguments)))
	case "response_item/custom_tool_call":
		b.call(p.CallID, p.Name, patchFiles(p.Input))
		if p.Status == "failed" {
			b.result(p.CallID, true)
		}
	case "response_item/local_shell_call":
		b.call(p.CallID, "shell", targetOf(p.Action))
	case "response_item/function_call_output", "response_item/custom_tool_call_output":
		if failed, known := codexOutputFailed(p.Output); known {
			b.result(p.CallID, failed)
		}
	}
	return true
}

// codexItem reads an item_completed of Codex's newer rollouts (0.171):
// the user's message (the prompt), the agent's, and how a command or a
// patch ended. A command or patch of no call seen before was made inside
// another call (code mode's exec script) and is listed as a call of its
// own, after it.
func codexItem(raw json.RawMessage, turnID string, at time.Time, b *builder) bool {
	var it struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		Command  json.RawMessage            `json:"command"`
		Changes  map[string]json.RawMessage `json:"changes"`
		ExitCode *int                       `json:"exit_code"`
		Status   string                     `json:"status"`
	}
	if json.Unmarshal(raw, &it) != nil {
		return false
	}
	text := func() string {
		var parts []string
		for _, c := range it.Content {
			parts = append(parts, c.Text)
		}
		return strings.Join(parts, "\n")
	}
	switch it.Type {
	case "UserMessage":
		if t := b.cur(); t != nil && t.ID == turnID && turnID != "" {
			return true // the turn's prompt, said again (a user_message too)
		}
		b.prompt(turnID, at, text())
	case "AgentMessage":
		b.reply(text())
	case "CommandExecution", "FileChange":
		if _, seen := b.calls[it.ID]; !seen {
			name, target := "exec_command", targetOf(json.RawMessage(`{"command":`+string(orNull(it.Command))+`}`))
			if it.Type == "FileChange" {
				files := make([]string, 0, len(it.Changes))
				for f := range it.Changes {
					files = append(files, f)
				}
				sort.Strings(files)
				name, target = "apply_patch", strings.Join(files, ", ")
			}
			b.call(it.ID, name, target)
		}
		switch {
		case it.ExitCode != nil:
			b.result(it.ID, *it.ExitCode != 0)
		case it.Status == "completed":
			b.result(it.ID, false)
		case it.Status == "failed" || it.Status == "declined":
			b.result(it.ID, true)
		}
	}
	return true
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// codexOutputFailed reads a call's output: an object with "success", or
// a string holding JSON with metadata.exit_code, or plain text (which
// says nothing sure; an exec_command_end says it instead).
func codexOutputFailed(raw json.RawMessage) (failed, known bool) {
	var obj struct {
		Success *bool `json:"success"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Success != nil {
		return !*obj.Success, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		// Code mode's exec script: a list of texts, the first saying how
		// the script ended.
		var parts []struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &parts) == nil && len(parts) > 0 && strings.HasPrefix(parts[0].Text, "Script completed") {
			return false, true
		}
		return false, false
	}
	var inner struct {
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if json.Unmarshal([]byte(s), &inner) == nil && inner.Metadata.ExitCode != nil {
		return *inner.Metadata.ExitCode != 0, true
	}
	if code, ok := strings.CutPrefix(s, "Exit code: "); ok {
		return !strings.HasPrefix(code, "0\n") && code != "0", true
	}
	return false, false
}

// geminiMessage is one message of Gemini CLI's chat recording.
type geminiMessage struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID     string          `json:"id"`
		Name   string          `json:"name"`
		Args   json.RawMessage `json:"args"`
		Status string          `json:"status"`
	} `json:"toolCalls"`
}

// geminiLine reads a line of Gemini CLI's JSONL recording: a message, or
// the session's own header, which is passed over.
func geminiLine(line []byte, b *builder) bool {
	var m geminiMessage
	if json.Unmarshal(line, &m) != nil {
		return false
	}
	if m.Type == "" {
		return true // the session header, or an update of it
	}
	if i, seen := b.geminiIDs[m.ID]; seen && m.ID != "" {
		b.gemini[i] = m
		return true
	}
	if m.ID != "" {
		b.geminiIDs[m.ID] = len(b.gemini)
	}
	b.gemini = append(b.gemini, m)
	return true
}

// geminiWhole reads the older recording, one JSON object with
// "messages", when that is what br holds; it reports false, having
// consumed nothing, when br holds JSONL.
func geminiWhole(br *bufio.Reader, b *builder) (bool, error) {
	head, _ := br.Peek(64 << 10)
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return false, nil
	}
	// JSONL has a newline after its first object; the whole-file form
	// is pretty-printed, so its first line is just "{".
	if nl := bytes.IndexByte(trimmed, '\n'); nl < 0 || len(bytes.TrimSpace(trimmed[:nl])) != 1 {
		return false, nil
	}
	var whole struct {
		Messages []geminiMessage `json:"messages"`
	}
	if err := json.NewDecoder(br).Decode(&whole); err != nil {
		return true, err
	}
	b.gemini = whole.Messages
	b.flushGemini()
	return true, nil
}

// flushGemini turns the Gemini messages gathered into turns.
func (b *builder) flushGemini() {
	msgs := b.gemini
	b.gemini, b.geminiIDs = nil, map[string]int{}
	for _, m := range msgs {
		switch m.Type {
		case "user":
			if t := textOf(m.Content); strings.TrimSpace(t) != "" {
				b.prompt(m.ID, parseTime(m.Timestamp), t)
			}
		case "gemini":
			b.reply(textOf(m.Content))
			for i, c := range m.ToolCalls {
				id := c.ID
				if id == "" {
					id = m.ID + "#" + itoa(i)
				}
				b.call(id, c.Name, targetOf(c.Args))
				switch c.Status {
				case "success":
					b.result(id, false)
				case "error", "cancelled":
					b.result(id, true)
				}
			}
		}
	}
}

// qwenLine reads a line of Qwen Code's chat JSONL.
func qwenLine(line []byte, b *builder) bool {
	var e struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Message   struct {
			Parts []struct {
				Text         string `json:"text"`
				Thought      bool   `json:"thought"`
				FunctionCall *struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"message"`
		Result *struct {
			CallID string `json:"callId"`
			Status string `json:"status"`
		} `json:"toolCallResult"`
	}
	if json.Unmarshal(line, &e) != nil {
		return false
	}
	switch e.Type {
	case "user":
		var texts []string
		for _, p := range e.Message.Parts {
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
		if t := strings.Join(texts, "\n"); strings.TrimSpace(t) != "" {
			b.prompt("", parseTime(e.Timestamp), t)
		}
	case "assistant":
		for _, p := range e.Message.Parts {
			switch {
			case p.FunctionCall != nil:
				b.call(p.FunctionCall.ID, p.FunctionCall.Name, targetOf(p.FunctionCall.Args))
			case p.Text != "" && !p.Thought:
				b.reply(p.Text)
			}
		}
	case "tool_result":
		if e.Result != nil {
			b.result(e.Result.CallID, e.Result.Status != "success")
		}
	}
	return true
}

// copilotLine reads a line of Copilot CLI's session events.jsonl.
func copilotLine(line []byte, b *builder) bool {
	var e struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Data      struct {
			Content      string          `json:"content"`
			ToolCallID   string          `json:"toolCallId"`
			ToolName     string          `json:"toolName"`
			Arguments    json.RawMessage `json:"arguments"`
			Success      *bool           `json:"success"`
			ToolRequests []struct {
				ToolCallID string          `json:"toolCallId"`
				Name       string          `json:"name"`
				Arguments  json.RawMessage `json:"arguments"`
			} `json:"toolRequests"`
		} `json:"data"`
	}
	if json.Unmarshal(line, &e) != nil {
		return false
	}
	d := e.Data
	switch e.Type {
	case "user.message":
		b.prompt("", parseTime(e.Timestamp), d.Content)
	case "assistant.message":
		b.reply(d.Content)
		for _, r := range d.ToolRequests {
			b.call(r.ToolCallID, r.Name, targetOf(r.Arguments))
		}
	case "tool.execution_start":
		b.call(d.ToolCallID, d.ToolName, targetOf(d.Arguments))
	case "tool.execution_complete":
		if d.Success != nil {
			b.result(d.ToolCallID, !*d.Success)
		}
	}
	return true
}
