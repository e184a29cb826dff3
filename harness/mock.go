package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// stepKind is what one scripted step asks the agent to do.
type stepKind int

const (
	stepWrite stepKind = iota // create or overwrite a file with the edit tools
	stepEdit                  // replace a string in a file
	stepPatch                 // an apply_patch patch (Codex, opencode's gpt- models)
	stepShell                 // run a shell command
	stepRead                  // read a file (Claude Code edits only files it has read)
	stepDone                  // the agent's completion tool (Cline ends only so)
)

// step is one tool call a mock asks its agent to make.
type step struct {
	kind    stepKind
	path    string // relative to the project (the mock makes it absolute where the tool wants)
	content string // stepWrite
	old     string // stepEdit
	new     string // stepEdit
	patch   string // stepPatch
	command string // stepShell
}

// maxRequests bounds every mock: past it, a mock answers with text only,
// so an agent that loops ends its turn.
const maxRequests = 40

// mock is a scripted model server. Its handler decodes what it needs of a
// request, counts the tool results in the conversation and answers with the
// next step as a tool call, or with a final text when the script is done.
type mock struct {
	steps   []step
	project string // absolute project folder, for tools that want absolute paths

	// call names a chat tool call for a step in the agent's tools, and
	// probe is a tool its requests offer (nil and "": opencode's).
	call  func(m *mock, st step) (string, map[string]any)
	probe string

	mu       sync.Mutex
	requests int
	log      []string // one line per request, for the test's failure output
	bodies   [][]byte // raw request bodies, kept when debugging
	keep     bool
}

// next counts a request and returns the step for a conversation holding
// results tool results, or ok false when the script is done (or the bound
// reached).
func (m *mock) next(api string, results int, hasTools bool) (step, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests++
	ok := hasTools && results < len(m.steps) && m.requests <= maxRequests
	m.log = append(m.log, fmt.Sprintf("%s request %d: tools=%v tool results=%d → step=%v", api, m.requests, hasTools, results, ok))
	if !ok {
		return step{}, false
	}
	return m.steps[results], true
}

func (m *mock) record(body []byte) {
	if !m.keep {
		return
	}
	m.mu.Lock()
	m.bodies = append(m.bodies, body)
	m.mu.Unlock()
}

// Log is what the mock saw, one line per request.
func (m *mock) Log() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.log, "\n")
}

func (m *mock) abs(p string) string { return m.project + "/" + p }

// serve starts h on a loopback port and returns its base URL and a stop
// function.
func serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}

// readBody reads a request body, which some agents gzip or zstd... none of
// the pinned ones do; they send plain JSON.
func readBody(r *http.Request) []byte {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	return b
}

// sse writes one server-sent event.
func sse(w io.Writer, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// finalText is what every mock says when its script is done.
const finalText = "Done: the files are edited."

// countJSON counts objects anywhere in v whose key k has the string value
// val: tool results are found by their type wherever an API nests them.
func countJSON(v any, k, val string) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		if s, ok := x[k].(string); ok && s == val {
			n++
		}
		for _, c := range x {
			n += countJSON(c, k, val)
		}
	case []any:
		for _, c := range x {
			n += countJSON(c, k, val)
		}
	}
	return n
}

// toolNames lists the names of the tools a request offers, whatever the API.
func toolNames(req map[string]any) map[string]bool {
	out := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if n, ok := x["name"].(string); ok {
				out[n] = true
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(req["tools"])
	return out
}

func decode(body []byte) map[string]any {
	var req map[string]any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	_ = d.Decode(&req)
	return req
}

// anthropic is a mock of the Anthropic Messages API (POST /v1/messages),
// streamed or not, for Claude Code.
func (m *mock) anthropic() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := readBody(r)
		m.record(body)
		if !strings.HasPrefix(r.URL.Path, "/v1/messages") {
			http.NotFound(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/v1/messages/count_tokens") {
			_ = json.NewEncoder(w).Encode(map[string]any{"input_tokens": 100})
			return
		}
		req := decode(body)
		tools := toolNames(req)
		results := countJSON(req["messages"], "type", "tool_result")
		st, ok := m.next("anthropic", results, tools["Write"] && tools["Edit"])
		var block map[string]any
		stop := "end_turn"
		if ok {
			stop = "tool_use"
			id := fmt.Sprintf("toolu_%02d", results+1)
			var name string
			var input map[string]any
			switch st.kind {
			case stepWrite:
				name, input = "Write", map[string]any{"file_path": m.abs(st.path), "content": st.content}
			case stepEdit:
				name, input = "Edit", map[string]any{"file_path": m.abs(st.path), "old_string": st.old, "new_string": st.new}
			case stepRead:
				name, input = "Read", map[string]any{"file_path": m.abs(st.path)}
			case stepShell:
				name, input = "Bash", map[string]any{"command": st.command, "description": "run the step's command"}
			default:
				http.Error(w, "no such step for claude", 500)
				return
			}
			block = map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}
		} else {
			block = map[string]any{"type": "text", "text": finalText}
		}
		model, _ := req["model"].(string)
		usage := map[string]any{"input_tokens": 10, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
		msg := map[string]any{"id": fmt.Sprintf("msg_%d", results), "type": "message", "role": "assistant", "model": model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}
		if stream, _ := req["stream"].(bool); !stream {
			msg["content"], msg["stop_reason"] = []any{block}, stop
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(msg)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		sse(w, "message_start", map[string]any{"type": "message_start", "message": msg})
		if block["type"] == "text" {
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": finalText}})
		} else {
			in, _ := json.Marshal(block["input"])
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
		sse(w, "message_stop", map[string]any{"type": "message_stop"})
	})
}

// responses is a mock of the OpenAI Responses API (POST /v1/responses),
// streamed, for Codex. It calls apply_patch as Codex offers it (a freeform
// custom tool, or a function), and the shell through whichever shell tool
// the request offers.
func (m *mock) responses() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := readBody(r)
		m.record(body)
		if !strings.HasSuffix(r.URL.Path, "/responses") {
			// /models and the like: nothing to offer.
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"object":"list","data":[],"models":[]}`)
			return
		}
		req := decode(body)
		tools := toolNames(req)
		// Code-mode models get one JavaScript `exec` tool, offered in the
		// input, whose script calls the other tools.
		codeMode := hasTool(req["input"], "custom", "exec")
		results := countJSON(req["input"], "type", "function_call_output") + countJSON(req["input"], "type", "custom_tool_call_output")
		st, ok := m.next("responses", results, tools["apply_patch"] || codeMode)
		id := fmt.Sprintf("resp_%d", results)
		var item map[string]any
		if ok {
			callID := fmt.Sprintf("call_%02d", results+1)
			switch {
			case codeMode:
				var script string
				switch st.kind {
				case stepPatch:
					p, _ := json.Marshal(st.patch)
					script = "const r = await tools.apply_patch(" + string(p) + ");\ntext(JSON.stringify(r));\n"
				case stepShell:
					c, _ := json.Marshal(st.command)
					script = "const r = await tools.exec_command({cmd: " + string(c) + "});\ntext(JSON.stringify(r));\n"
				}
				item = map[string]any{"type": "custom_tool_call", "id": "ctc_" + callID, "call_id": callID, "name": "exec", "input": script, "status": "completed"}
			}
			switch st.kind {
			case stepPatch:
				if item != nil {
					break
				}
				if toolType(req, "apply_patch") == "custom" {
					item = map[string]any{"type": "custom_tool_call", "id": "ctc_" + callID, "call_id": callID, "name": "apply_patch", "input": st.patch, "status": "completed"}
				} else {
					args, _ := json.Marshal(map[string]any{"input": st.patch})
					item = map[string]any{"type": "function_call", "id": "fc_" + callID, "call_id": callID, "name": "apply_patch", "arguments": string(args), "status": "completed"}
				}
			case stepShell:
				if item != nil {
					break
				}
				var name string
				var args any
				switch {
				case tools["exec_command"]:
					name, args = "exec_command", map[string]any{"cmd": st.command}
				case tools["shell_command"]:
					name, args = "shell_command", map[string]any{"command": st.command}
				default:
					name, args = "shell", map[string]any{"command": []string{"bash", "-lc", st.command}}
				}
				a, _ := json.Marshal(args)
				item = map[string]any{"type": "function_call", "id": "fc_" + callID, "call_id": callID, "name": name, "arguments": string(a), "status": "completed"}
			default:
				http.Error(w, "no such step for codex", 500)
				return
			}
		} else {
			item = map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": finalText, "annotations": []any{}}}}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		resp := map[string]any{"id": id, "object": "response", "status": "in_progress", "output": []any{}}
		sse(w, "response.created", map[string]any{"type": "response.created", "response": resp})
		sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
		sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
		resp["status"], resp["output"] = "completed", []any{item}
		resp["usage"] = map[string]any{"input_tokens": 10, "output_tokens": 10, "total_tokens": 20,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
		sse(w, "response.completed", map[string]any{"type": "response.completed", "response": resp})
	})
}

// toolType is the type ("function", "custom") of the named tool a request
// offers.
func toolType(req map[string]any, name string) string {
	tools, _ := req["tools"].([]any)
	for _, t := range tools {
		if m, ok := t.(map[string]any); ok && m["name"] == name {
			s, _ := m["type"].(string)
			return s
		}
	}
	return ""
}

// countKey counts the objects anywhere in v that hold key k.
func countKey(v any, k string) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x[k]; ok {
			n++
		}
		for _, c := range x {
			n += countKey(c, k)
		}
	case []any:
		for _, c := range x {
			n += countKey(c, k)
		}
	}
	return n
}

// gemini is a mock of the Gemini API (models/M:generateContent and
// :streamGenerateContent?alt=sse), for Gemini CLI. Side requests asking
// for JSON (the next-speaker check) are told the user speaks next.
func (m *mock) gemini() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := readBody(r)
		m.record(body)
		path := r.URL.Path
		switch {
		case strings.HasSuffix(path, ":countTokens"):
			_, _ = io.WriteString(w, `{"totalTokens": 100}`)
			return
		case strings.HasSuffix(path, ":generateContent"), strings.HasSuffix(path, ":streamGenerateContent"):
		default:
			http.NotFound(w, r)
			return
		}
		req := decode(body)
		tools := toolNames(req)
		results := countKey(req["contents"], "functionResponse")
		st, ok := m.next("gemini", results, tools["write_file"] && tools["replace"])
		var part map[string]any
		if ok {
			var name string
			var args map[string]any
			switch st.kind {
			case stepWrite:
				name, args = "write_file", map[string]any{"file_path": m.abs(st.path), "content": st.content}
			case stepEdit:
				// A relative path, as models often send: ckpt must resolve
				// it as Gemini CLI does.
				name, args = "replace", map[string]any{"file_path": st.path, "old_string": st.old, "new_string": st.new, "instruction": "change the second line"}
			case stepShell:
				name, args = "run_shell_command", map[string]any{"command": st.command, "description": "run the step's command"}
			default:
				http.Error(w, "no such step for gemini", 500)
				return
			}
			part = map[string]any{"functionCall": map[string]any{"name": name, "args": args}}
		} else {
			text := finalText
			if gc, _ := req["generationConfig"].(map[string]any); gc != nil && gc["responseMimeType"] == "application/json" {
				text = `{"reasoning": "the task is done", "next_speaker": "user"}`
			}
			part = map[string]any{"text": text}
		}
		resp := map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
			"modelVersion":  "gemini-2.5-flash",
		}
		if strings.HasSuffix(path, ":streamGenerateContent") {
			w.Header().Set("Content-Type", "text/event-stream")
			sse(w, "", resp)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	})
}

// chat is a mock of an OpenAI-compatible chat completions API (POST
// /v1/chat/completions, streamed), for opencode's custom provider.
func (m *mock) chat() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := readBody(r)
		m.record(body)
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"harness-model","object":"model"}]}`)
			return
		}
		req := decode(body)
		tools := toolNames(req)
		results := countJSON(req["messages"], "role", "tool")
		offered := tools["bash"] && (tools["write"] || tools["apply_patch"])
		if m.probe != "" {
			offered = tools[m.probe]
		}
		st, ok := m.next("chat", results, offered)
		model, _ := req["model"].(string)
		chunk := func(delta map[string]any, finish any) map[string]any {
			return map[string]any{"id": fmt.Sprintf("chatcmpl-%d", results), "object": "chat.completion.chunk", "created": 1, "model": model,
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		}
		var delta map[string]any
		finish := "stop"
		if ok {
			var name string
			var args map[string]any
			switch {
			case m.call != nil:
				name, args = m.call(m, st)
			case st.kind == stepRead:
				name, args = "read", map[string]any{"filePath": m.abs(st.path)}
			case st.kind == stepWrite:
				name, args = "write", map[string]any{"filePath": m.abs(st.path), "content": st.content}
			case st.kind == stepEdit:
				name, args = "edit", map[string]any{"filePath": m.abs(st.path), "oldString": st.old, "newString": st.new}
			case st.kind == stepPatch:
				name, args = "apply_patch", map[string]any{"patchText": st.patch}
			case st.kind == stepShell:
				name, args = "bash", map[string]any{"command": st.command, "description": "run the step's command"}
			}
			a, _ := json.Marshal(args)
			delta = map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%02d", results+1), "type": "function",
				"function": map[string]any{"name": name, "arguments": string(a)}}}}
			finish = "tool_calls"
		} else {
			delta = map[string]any{"role": "assistant", "content": finalText}
		}
		if stream, _ := req["stream"].(bool); !stream {
			msg := map[string]any{"role": "assistant", "content": delta["content"]}
			if tc, ok := delta["tool_calls"]; ok {
				msg["tool_calls"] = tc
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl", "object": "chat.completion", "created": 1, "model": model,
				"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
				"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		sse(w, "", chunk(delta, nil))
		last := chunk(map[string]any{}, finish)
		last["usage"] = map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
		sse(w, "", last)
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	})
}

// hasTool reports whether v offers a tool of type typ named name,
// anywhere (code mode nests its tools in the request's input).
func hasTool(v any, typ, name string) bool {
	switch x := v.(type) {
	case map[string]any:
		if x["type"] == typ && x["name"] == name {
			return true
		}
		for _, c := range x {
			if hasTool(c, typ, name) {
				return true
			}
		}
	case []any:
		for _, c := range x {
			if hasTool(c, typ, name) {
				return true
			}
		}
	}
	return false
}
