package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A turn's conversation from its agent's events: saved in parts (the
// prompt first, the reply and calls at the end), read back whole, damaged
// or newer files refused naming the file, and removed with the turn by
// prune.
func TestConversationFile(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	s := openStore(t, root)
	agentTurn(t, s, "1", map[string]string{"a.txt": "A1"})
	agentTurn(t, s, "2", map[string]string{"a.txt": "A2"})

	if _, _, err := s.ConversationOf("1"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no conversation yet: %v, want fs.ErrNotExist", err)
	}
	if err := s.SaveConversation("1", Conversation{Prompt: "write a.txt"}); err != nil {
		t.Fatal(err)
	}
	calls := []ConversationCall{{Name: "write", Target: "a.txt", State: CallOK}, {Name: "bash", Target: "make", State: CallFailed}}
	if err := s.SaveConversation("1", Conversation{Reply: "Done.", Calls: calls}); err != nil {
		t.Fatal(err)
	}
	c, file, err := s.ConversationOf("1")
	if err != nil {
		t.Fatal(err)
	}
	if c.Prompt != "write a.txt" || c.Reply != "Done." || len(c.Calls) != 2 || c.Calls[1].State != CallFailed {
		t.Errorf("conversation %+v", c)
	}
	if want := filepath.Join(root, storeDir, "conversations", "1.json"); file != want {
		t.Errorf("file %s, want %s", file, want)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode: %v %v", fi, err)
	}

	// A turn id that names no plain file gets the escaped name its turn file has.
	if err := s.SaveConversation("a/b", Conversation{Prompt: "odd id"}); err != nil {
		t.Fatal(err)
	}
	if c, _, err := s.ConversationOf("a/b"); err != nil || c.Prompt != "odd id" {
		t.Errorf("odd id: %+v %v", c, err)
	}

	for _, bad := range []string{`{"v":1,"prompt":`, `{"v":9}`} {
		if err := os.WriteFile(filepath.Join(root, storeDir, "conversations", "2.json"), []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := s.ConversationOf("2")
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNewerFormat) || !strings.Contains(err.Error(), "2.json") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	// A damaged file is written over by the next event, not merged.
	if err := s.SaveConversation("2", Conversation{Prompt: "again"}); err != nil {
		t.Fatal(err)
	}
	if c, _, err := s.ConversationOf("2"); err != nil || c.Prompt != "again" {
		t.Errorf("after a damaged file: %+v %v", c, err)
	}

	// A link standing for the file is refused, never followed.
	link := filepath.Join(root, storeDir, "conversations", "3.json")
	if err := os.Symlink(filepath.Join(root, "a.txt"), link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.ConversationOf("3"); err == nil {
		t.Error("a conversation file that is a link was read")
	}
	os.Remove(link)

	if _, err := s.Prune(PruneOptions{Keep: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("prune left turn 1's conversation: %v", err)
	}
	if _, _, err := s.ConversationOf("2"); err != nil {
		t.Errorf("prune removed the kept turn's conversation: %v", err)
	}
}

// Verify reads every conversation file: a sound one is no finding, a
// damaged one, one of a newer ckpt and a stray name each are, with the
// kind that says which, and nothing else in the store is called damaged.
func TestVerifyConversations(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	s := openStore(t, root)
	agentTurn(t, s, "1", map[string]string{"a.txt": "A1"})
	for _, id := range []string{"1", "2", "odd id/x"} {
		if err := s.SaveConversation(TurnID(id), Conversation{Prompt: "write a.txt", Calls: []ConversationCall{{Name: "write", Target: "a.txt", State: CallOK}}}); err != nil {
			t.Fatal(err)
		}
	}
	if found, err := s.Verify(); err != nil || len(found) != 0 {
		t.Fatalf("sound conversations: %+v %v", found, err)
	}
	dir := filepath.Join(root, storeDir, "conversations")
	wr := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	wr("2.json", `{"v":1,"prompt":`)
	wr("3.json", `{"v":9,"prompt":"from later"}`)
	wr("notes.txt", "a stray file")
	wr("%zz.json", `{"v":1}`)
	wr(".tmp-conversation-1", "a write in flight")
	found, err := s.Verify()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]FindingKind{}
	for _, f := range found {
		got[f.File] = f.Kind
		if f.Kind == FindDamagedConversation && (f.Detail == "" || strings.Contains(f.Detail, "2.json")) {
			t.Errorf("damaged conversation's detail %q: want the reason alone", f.Detail)
		}
	}
	want := map[string]FindingKind{
		"conversations/2.json":    FindDamagedConversation,
		"conversations/3.json":    FindNewerFormat,
		"conversations/notes.txt": FindNotConversation,
		"conversations/%zz.json":  FindNotConversation,
	}
	if len(got) != len(want) {
		t.Errorf("findings %+v, want %v", found, want)
	}
	for f, k := range want {
		if got[f] != k {
			t.Errorf("%s: %q, want %q (all: %+v)", f, got[f], k, found)
		}
	}
}
