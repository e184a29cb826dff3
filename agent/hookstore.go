package agent

import "github.com/ckpt-dev/ckpt/store"

// hookStore is what a hook call asks of the store: these methods of
// *store.Store and no others. Each event that changes a turn is one call
// that takes the store's locks: a prompt StartTurn, a file tool BeginWrite
// and EndWrite, a shell or MCP tool BeginCommand and EndCommand, the end
// of a turn EndTurn (TestStoreCallsPerEvent holds them to that). NewTurn
// and the session records are for Cline's runs (runs.go) and the agents
// that send one prompt's event twice.
type hookStore interface {
	StartTurn(meta store.TurnMeta) (store.TurnID, error)
	BeginWrite(meta store.TurnMeta, label string, paths []string) (store.TurnID, error)
	EndWrite(session string, paths []string) (store.TurnID, error)
	BeginCommand(meta store.TurnMeta, label, cmd string) (*store.SweepResult, error)
	EndCommand(meta store.TurnMeta, label, cmd string) (*store.SweepResult, error)
	NewTurn(meta store.TurnMeta) (store.TurnID, error)
	OpenTurn(session string, meta store.TurnMeta) (store.TurnID, error)
	EndTurn(turn store.TurnID) error
	SweptTurn() (store.TurnID, string)
	SessionTurn(key string) (string, bool)
	SetSessionTurn(key, turn string) error
	LockSessions() (unlock func(), err error)
	SaveConversation(turn store.TurnID, c store.Conversation) error
	StartWatcher(exe string) error
	BackgroundWanted() bool
	SetCopyControl(c *store.CopyControl)
	Rel(p string) (string, error)
	LogError(format string, args ...any)
	Close() error
}

// openStore opens the project's store for a hook call; tests replace it
// to see the calls a hook makes.
var openStore = func(root string, opt store.Options) (hookStore, error) {
	s, err := store.Open(root, opt)
	if err != nil {
		return nil, err // not a nil *store.Store in a hookStore
	}
	return s, nil
}
