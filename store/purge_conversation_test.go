package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Purge redacts a purged path's bytes from the conversation files: a
// prompt that pasted a line of it, a reply that quoted a value, a command
// that wrote it (kept with its line breaks as ⏎ and its spaces made one),
// in any turn, of every version the store kept; what else was said stays
// word for word. A conversation file that does not decode and holds them
// goes; one that does not hold them stays.
func TestPurgeRedactsConversations(t *testing.T) {
	root := t.TempDir()
	wr(t, root, ".env", "API_KEY=sk-first-0001\nDEBUG=1\n")
	wr(t, root, "a.txt", "a0")
	s := openStore(t, root)
	agentTurn(t, s, "1", map[string]string{".env": "API_KEY=sk-second-0002\nDEBUG=1\n", "a.txt": "a1"})
	agentTurn(t, s, "2", map[string]string{"a.txt": "a2"})
	save := func(id string, c Conversation) {
		t.Helper()
		if err := s.SaveConversation(TurnID(id), c); err != nil {
			t.Fatal(err)
		}
	}
	save("1", Conversation{
		Prompt: "the key was API_KEY=sk-first-0001, put in the new one",
		Reply:  "Done: .env now holds sk-second-0002.",
		Calls: []ConversationCall{
			{Name: "write", Target: ".env", State: CallOK},
			{Name: "bash", Target: "cat > .env <<EOF ⏎ API_KEY=sk-second-0002 ⏎ EOF", State: CallOK},
			{Name: "bash", Target: "make test", State: CallFailed},
		},
	})
	save("2", Conversation{Prompt: "tidy a.txt", Reply: "Tidied."})
	dir := filepath.Join(root, storeDir, "conversations")
	if err := os.WriteFile(filepath.Join(dir, "3.json"), []byte(`{"v":1,"prompt":"sk-first-0001`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "4.json"), []byte(`{"v":1,"prompt":"unrelated`), 0o600); err != nil {
		t.Fatal(err)
	}

	res, err := s.Purge([]string{".env"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Conversations != 2 {
		t.Errorf("%d conversation files redacted, want 2 (turn 1's, and the damaged one holding the key)", res.Conversations)
	}
	c, _, err := s.ConversationOf("1")
	if err != nil {
		t.Fatal(err)
	}
	want := Conversation{
		Prompt: "the key was [purged], put in the new one",
		Reply:  "Done: .env now holds [purged].",
		Calls: []ConversationCall{
			{Name: "write", Target: ".env", State: CallOK},
			{Name: "bash", Target: "cat > .env <<EOF ⏎ [purged] ⏎ EOF", State: CallOK},
			{Name: "bash", Target: "make test", State: CallFailed},
		},
	}
	if c.Prompt != want.Prompt || c.Reply != want.Reply || len(c.Calls) != 3 {
		t.Fatalf("turn 1's conversation after the purge:\n%+v\nwant\n%+v", *c, want)
	}
	for i := range want.Calls {
		if c.Calls[i] != want.Calls[i] {
			t.Errorf("call %d: %+v, want %+v", i, c.Calls[i], want.Calls[i])
		}
	}
	if c, _, err := s.ConversationOf("2"); err != nil || c.Prompt != "tidy a.txt" || c.Reply != "Tidied." {
		t.Errorf("turn 2's conversation changed: %+v %v", c, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "3.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a damaged conversation file holding the key stays: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "4.json")); err != nil {
		t.Errorf("a damaged conversation file without the key went: %v", err)
	}
	filepath.WalkDir(filepath.Join(root, storeDir), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			for _, k := range []string{"sk-first-0001", "sk-second-0002"} {
				if strings.Contains(string(data), k) {
					t.Errorf("%s still holds %s", p, k)
				}
			}
		}
		return nil
	})
	// Nothing left to redact: a second purge changes no conversation.
	if res, err := s.Purge([]string{".env"}); err != nil || res.Conversations != 0 {
		t.Errorf("purge again: %+v %v", res, err)
	}
}
