package agent

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/store"
)

// countingStore is a hook's store that writes down each call made of it.
type countingStore struct {
	s     hookStore
	calls *[]string
}

func (c countingStore) note(name string) { *c.calls = append(*c.calls, name) }

func (c countingStore) BeginWrite(meta store.TurnMeta, label string, paths []string) (store.TurnID, error) {
	c.note("BeginWrite")
	return c.s.BeginWrite(meta, label, paths)
}
func (c countingStore) EndWrite(session string, paths []string) (store.TurnID, error) {
	c.note("EndWrite")
	return c.s.EndWrite(session, paths)
}
func (c countingStore) BeginCommand(meta store.TurnMeta, label, cmd string) (*store.SweepResult, error) {
	c.note("BeginCommand")
	return c.s.BeginCommand(meta, label, cmd)
}
func (c countingStore) EndCommand(meta store.TurnMeta, label, cmd string) (*store.SweepResult, error) {
	c.note("EndCommand")
	return c.s.EndCommand(meta, label, cmd)
}
func (c countingStore) StartTurn(meta store.TurnMeta) (store.TurnID, error) {
	c.note("StartTurn")
	return c.s.StartTurn(meta)
}
func (c countingStore) NewTurn(meta store.TurnMeta) (store.TurnID, error) {
	c.note("NewTurn")
	return c.s.NewTurn(meta)
}
func (c countingStore) OpenTurn(session string, meta store.TurnMeta) (store.TurnID, error) {
	c.note("OpenTurn")
	return c.s.OpenTurn(session, meta)
}
func (c countingStore) EndTurn(turn store.TurnID) error {
	c.note("EndTurn")
	return c.s.EndTurn(turn)
}
func (c countingStore) SweptTurn() (store.TurnID, string) {
	c.note("SweptTurn")
	return c.s.SweptTurn()
}
func (c countingStore) SessionTurn(key string) (string, bool) {
	c.note("SessionTurn")
	return c.s.SessionTurn(key)
}
func (c countingStore) SetSessionTurn(key, turn string) error {
	c.note("SetSessionTurn")
	return c.s.SetSessionTurn(key, turn)
}
func (c countingStore) LockSessions() (func(), error) {
	c.note("LockSessions")
	return c.s.LockSessions()
}
func (c countingStore) SaveConversation(turn store.TurnID, conv store.Conversation) error {
	c.note("SaveConversation")
	return c.s.SaveConversation(turn, conv)
}
func (c countingStore) StartWatcher(exe string) error {
	c.note("StartWatcher")
	return c.s.StartWatcher(exe)
}
func (c countingStore) BackgroundWanted() bool {
	c.note("BackgroundWanted")
	return c.s.BackgroundWanted()
}
func (c countingStore) SetCopyControl(cc *store.CopyControl) { c.s.SetCopyControl(cc) }
func (c countingStore) Rel(p string) (string, error)         { return c.s.Rel(p) }
func (c countingStore) LogError(format string, args ...any) {
	c.note("LogError")
	c.s.LogError(format, args...)
}
func (c countingStore) Close() error { return c.s.Close() }

// TestStoreCallsPerEvent: the store calls each of Claude Code's events
// makes (leaving out Rel, which only names a path, and the setting of the
// copy budget and Close, which every event makes). A file tool's step
// before and after its write is one call each, as a shell tool's is, and
// so is a prompt, and the first write of a session with no prompt seen,
// which opens the turn.
func TestStoreCallsPerEvent(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a.txt")
	if err := os.WriteFile(a, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls []string
	defer func(orig func(string, store.Options) (hookStore, error)) { openStore = orig }(openStore)
	openStore = func(root string, opt store.Options) (hookStore, error) {
		s, err := store.Open(root, opt)
		if err != nil {
			return nil, err
		}
		return countingStore{s: s, calls: &calls}, nil
	}
	getenv := func(k string) string {
		if k == "CKPT_BACKGROUND" {
			return "off"
		}
		return ""
	}
	edit := fmt.Sprintf(`"session_id":"s1","cwd":%q,"tool_name":"Edit","tool_input":{"file_path":%q}`, root, a)
	bash := fmt.Sprintf(`"session_id":"s1","cwd":%q,"tool_name":"Bash","tool_input":{"command":"true"}`, root)
	for _, c := range []struct {
		name, event string
		want        []string
	}{
		{"first write, no prompt seen", `{"hook_event_name":"PreToolUse",` + edit + `}`, []string{"BeginWrite"}},
		{"after the write", `{"hook_event_name":"PostToolUse",` + edit + `}`, []string{"EndWrite"}},
		{"prompt", fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":%q,"prompt":"go"}`, root), []string{"StartTurn"}},
		{"write in the prompt's turn", `{"hook_event_name":"PreToolUse",` + edit + `}`, []string{"BeginWrite"}},
		{"after that write", `{"hook_event_name":"PostToolUse",` + edit + `}`, []string{"EndWrite"}},
		{"shell, before", `{"hook_event_name":"PreToolUse",` + bash + `}`, []string{"BeginCommand"}},
		{"shell, after", `{"hook_event_name":"PostToolUse",` + bash + `}`, []string{"EndCommand"}},
		{"end of the turn", fmt.Sprintf(`{"hook_event_name":"Stop","session_id":"s1","cwd":%q}`, root), []string{"SessionTurn", "SweptTurn", "EndCommand", "EndTurn"}},
	} {
		calls = nil
		if err := Hook("claude", bytes.NewReader([]byte(c.event)), &bytes.Buffer{}, HookOptions{Root: root, Getenv: getenv}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(calls, c.want) {
			t.Errorf("%s: store calls %v, want %v", c.name, calls, c.want)
		}
	}
}
