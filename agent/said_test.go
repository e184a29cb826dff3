package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/agent/hooktest"
	"github.com/ckpt-dev/ckpt/store"
)

// The hook events of real runs of pi and opencode (recorded by the
// real-agent harness), replayed: the turn's conversation in the store
// holds the prompt, the mock's final reply and every tool call, in order,
// with its path or command, ok.
func TestSaidFromRecordedRuns(t *testing.T) {
	type call struct{ name, target string }
	for _, c := range []struct {
		file  string
		calls []call
	}{
		{"pi/recorded.jsonl", []call{{"write", "new.txt"}, {"edit", "a.txt"}, {"write", ".env"}, {"bash", "printf 'sea\\n' > b.txt && rm c.txt"}}},
		{"opencode/recorded.jsonl", []call{{"write", "/new.txt"}, {"read", "/a.txt"}, {"edit", "/a.txt"}, {"bash", "printf 'sea\\n' > b.txt"}}},
		{"opencode/recorded-apply_patch.jsonl", []call{{"apply_patch", "new.txt, a.txt"}, {"bash", "printf 'sea\\n' > b.txt"}}},
	} {
		t.Run(c.file, func(t *testing.T) {
			var root string
			hooktest.Replay(t, filepath.Join("..", "testdata", "hooks", filepath.FromSlash(c.file)), func(t testing.TB, call hooktest.Call) hooktest.Result {
				root = call.Root
				return inProcess(t, call)
			})
			s, err := store.Open(root, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			conv, _, err := s.ConversationOf("1")
			if err != nil {
				t.Fatal(err)
			}
			if conv.Prompt != "Edit the files for the ckpt harness" {
				t.Errorf("prompt %q (opencode's quotes should be gone)", conv.Prompt)
			}
			if conv.Reply != "Done: the files are edited." {
				t.Errorf("reply %q", conv.Reply)
			}
			if len(conv.Calls) != len(c.calls) {
				t.Fatalf("calls %+v, want %v", conv.Calls, c.calls)
			}
			for i, want := range c.calls {
				got := conv.Calls[i]
				if got.Name != want.name || !strings.HasSuffix(got.Target, want.target) || got.State != store.CallOK {
					t.Errorf("call %d: %+v, want %s %s ok", i, got, want.name, want.target)
				}
			}
		})
	}
}

// A prompt event records the prompt at once: a run killed before its end
// still shows what was asked.
func TestSaidPromptFirst(t *testing.T) {
	root := t.TempDir()
	hookJSON(t, root, "pi", map[string]any{"event": "input", "text": "Rename the\nfunction", "cwd": root, "session": "s1"})
	conv := said(t, root, "1")
	if conv.Prompt != "Rename the\nfunction" || conv.Reply != "" || len(conv.Calls) != 0 {
		t.Errorf("after the prompt: %+v", conv)
	}
}

// Damaged conversation members cost the view, never the turn: the end
// event still ends the turn (its sweep runs, the error is logged), and
// what could be read is kept beside the prompt.
func TestSaidDamagedEvents(t *testing.T) {
	for _, c := range []struct {
		name   string
		agent  string
		start  map[string]any
		end    func(root string) map[string]any
		reply  string
		calls  int
		logged string
	}{
		{"opencode calls not a list", "opencode",
			map[string]any{"event": "chat.message", "sessionID": "s", "messageID": "m", "text": "do it"},
			func(root string) map[string]any {
				return map[string]any{"event": "session.idle", "sessionID": "s", "directory": root, "reply": 5, "calls": "nope"}
			}, "", 0, "left out what is not of the shape"},
		{"opencode one bad call", "opencode",
			map[string]any{"event": "chat.message", "sessionID": "s", "messageID": "m", "text": "do it"},
			func(root string) map[string]any {
				return map[string]any{"event": "session.idle", "sessionID": "s", "directory": root, "reply": "ok then",
					"calls": []any{7, map[string]any{"tool": "bash", "args": map[string]any{"command": "make\ntest"}, "status": "error"}}}
			}, "ok then", 1, "a call"},
		{"pi messages not a list", "pi",
			map[string]any{"event": "input", "text": "do it", "session": "s"},
			func(root string) map[string]any {
				return map[string]any{"event": "agent_end", "session": "s", "cwd": root, "messages": map[string]any{"role": "user"}}
			}, "", 0, "not a list"},
		{"pi a damaged message", "pi",
			map[string]any{"event": "input", "text": "do it", "session": "s"},
			func(root string) map[string]any {
				return map[string]any{"event": "agent_end", "session": "s", "cwd": root, "messages": []any{
					"junk",
					map[string]any{"role": "assistant", "text": 3},
					map[string]any{"role": "assistant", "text": "first", "calls": []any{map[string]any{"id": "c1", "name": "bash", "input": map[string]any{"command": "false"}}}},
					map[string]any{"role": "toolResult", "id": "c1", "isError": true},
					map[string]any{"role": "assistant", "text": "  ", "calls": []any{map[string]any{"id": "c2", "name": "read", "input": map[string]any{"path": "x"}}}},
					map[string]any{"role": "toolResult", "id": "nobody"},
				}}
			}, "first", 2, "left out 2 messages"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644)
			start := c.start
			start["cwd"], start["directory"] = root, root
			hookJSON(t, root, c.agent, start)
			// The end of the turn still sweeps: a file the turn's shell
			// command changed would be recorded. Here the turn's session
			// is closed, which is what the end event does.
			hookJSON(t, root, c.agent, c.end(root))
			conv := said(t, root, "1")
			if conv.Prompt != "do it" || conv.Reply != c.reply || len(conv.Calls) != c.calls {
				t.Errorf("conversation %+v, want prompt kept, reply %q, %d calls", conv, c.reply, c.calls)
			}
			s, _ := store.Open(root, store.Options{})
			defer s.Close()
			errs, _ := s.Errors()
			if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, c.logged) }) {
				t.Errorf("logged %q, want a line holding %q", errs, c.logged)
			}
		})
	}
	// The damaged pi message list's calls: the failed one failed, the one
	// with no result unknown, its command on one line.
	root := t.TempDir()
	hookJSON(t, root, "pi", map[string]any{"event": "input", "text": "x", "cwd": root, "session": "s"})
	hookJSON(t, root, "pi", map[string]any{"event": "agent_end", "session": "s", "cwd": root, "messages": []any{
		map[string]any{"role": "assistant", "calls": []any{
			map[string]any{"id": "c1", "name": "bash", "input": map[string]any{"command": "make\n  test"}},
			map[string]any{"id": "c2", "name": "grep", "input": map[string]any{"pattern": "TODO"}}}},
		map[string]any{"role": "toolResult", "id": "c1", "isError": true},
	}})
	got := said(t, root, "1").Calls
	want := []store.ConversationCall{{Name: "bash", Target: "make ⏎ test", State: store.CallFailed}, {Name: "grep", Target: "TODO"}}
	if !slices.Equal(got, want) {
		t.Errorf("calls %+v, want %+v", got, want)
	}
}

func hookJSON(t *testing.T, root, agentName string, ev map[string]any) {
	t.Helper()
	data, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Hook(agentName, bytes.NewReader(data), &out, HookOptions{Root: root, Getenv: func(string) string { return "" }}); err != nil {
		t.Logf("hook: %v", err)
	}
}

func said(t *testing.T, root, turn string) *store.Conversation {
	t.Helper()
	s, err := store.Open(root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, _, err := s.ConversationOf(turn)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
