package agent

import (
	"strings"
	"testing"
)

// TestTranscriptPath: each agent's events name the session's transcript
// the turn keeps; Copilot CLI's prompt event names none, so it is the
// path its Stop event names; a relative or damaged path is dropped.
func TestTranscriptPath(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	getenv := func(k string) string { return env[k] }
	for _, c := range []struct {
		agent, event, want string
	}{
		{"claude", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"p","transcript_path":"/home/u/.claude/projects/x/s.jsonl"}`, "/home/u/.claude/projects/x/s.jsonl"},
		{"codex", `{"hook_event_name":"UserPromptSubmit","session_id":"s","turn_id":"t","prompt":"p","transcript_path":"/home/u/.codex/sessions/r.jsonl"}`, "/home/u/.codex/sessions/r.jsonl"},
		{"gemini", `{"hook_event_name":"BeforeAgent","session_id":"s","prompt":"p","transcript_path":"/home/u/.gemini/tmp/p/chats/s.jsonl"}`, "/home/u/.gemini/tmp/p/chats/s.jsonl"},
		{"qwen", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"p","transcript_path":"/home/u/.qwen/projects/p/chats/s.jsonl"}`, "/home/u/.qwen/projects/p/chats/s.jsonl"},
		{"copilot", `{"hook_event_name":"UserPromptSubmit","session_id":"cf58","prompt":"p"}`, "/home/u/.copilot/session-state/cf58/events.jsonl"},
		{"copilot", `{"hook_event_name":"UserPromptSubmit","session_id":"../x","prompt":"p"}`, ""},
		{"claude", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"p","transcript_path":"relative/s.jsonl"}`, ""},
		{"claude", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"p","transcript_path":"/a/` + strings.Repeat("x", maxTranscriptPath) + `"}`, ""},
	} {
		ev, err := adapters[c.agent].parse([]byte(c.event), getenv)
		if err != nil {
			t.Fatalf("%s: %v", c.agent, err)
		}
		h := &hookCall{agent: adapters[c.agent], ev: ev}
		if got := h.source().Transcript; got != c.want {
			t.Errorf("%s %s: transcript %q, want %q", c.agent, c.event[:40], got, c.want)
		}
	}
	env["COPILOT_HOME"] = "/opt/copilot"
	ev, _ := adapters["copilot"].parse([]byte(`{"hook_event_name":"UserPromptSubmit","session_id":"s1"}`), getenv)
	if ev.transcript != "/opt/copilot/session-state/s1/events.jsonl" {
		t.Errorf("COPILOT_HOME: %q", ev.transcript)
	}
}
