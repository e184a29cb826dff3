package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/agent"
	"github.com/ckpt-dev/ckpt/store"
)

// The UI's conversation pane, for opencode and pi, reads what their
// events brought (recorded from real runs) through the same adapter as
// show --conversation: the prompt, the reply and each call, ok.
func TestUIConversationFromEvents(t *testing.T) {
	for _, c := range []struct {
		agent, file string
		calls       []string
	}{
		{"pi", "pi/recorded.jsonl", []string{"write new.txt", "edit a.txt", "write .env", "bash printf"}},
		{"opencode", "opencode/recorded.jsonl", []string{"write /new.txt", "read /a.txt", "edit /a.txt", "bash printf"}},
	} {
		t.Run(c.agent, func(t *testing.T) {
			root := t.TempDir()
			data, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", filepath.FromSlash(c.file)))
			if err != nil {
				t.Fatal(err)
			}
			rootJSON, _ := json.Marshal(root)
			for _, l := range strings.Split(strings.ReplaceAll(string(data), "{{ROOT}}", strings.Trim(string(rootJSON), `"`)), "\n") {
				var line struct {
					Event json.RawMessage `json:"event"`
				}
				if json.Unmarshal([]byte(l), &line) != nil || line.Event == nil {
					continue
				}
				var out bytes.Buffer
				_ = agent.Hook(c.agent, bytes.NewReader(line.Event), &out, agent.HookOptions{Root: root, Getenv: func(string) string { return "" }})
			}
			s, err := store.Open(root, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			e, err := turnEntry(s, "1")
			if err != nil {
				t.Fatal(err)
			}
			conv, err := uiStore{s}.Conversation(e)
			if err != nil {
				t.Fatal(err)
			}
			if conv.Prompt != "Edit the files for the ckpt harness" || conv.Reply != "Done: the files are edited." ||
				conv.From != c.agent+"'s events, kept in .osfoundry/checkpoints/conversations/1.json" || len(conv.Calls) != len(c.calls) {
				t.Fatalf("conversation %+v", conv)
			}
			for i, want := range c.calls {
				name, target, _ := strings.Cut(want, " ")
				if k := conv.Calls[i]; k.Name != name || !strings.Contains(k.Target, target) || k.State != "ok" {
					t.Errorf("call %d: %+v, want %s", i, k, want)
				}
			}
		})
	}
}
