package store

import (
	"context"
	"os"
)

// This file is replaced by the implementation; the signatures are the API.

// Options tunes Open.
type Options struct {
	// Create makes the store if the root has none. Read-only commands leave
	// it false so they never create a store.
	Create bool
	// MaxBlob is the size limit for kept bytes; 0 means DefaultMaxBlob.
	MaxBlob int64
	// Notify is told, in a sentence, of an interrupted operation that Open
	// finished or rolled back. Nil discards the sentences (they are always
	// written to the store's error log as well).
	Notify func(msg string)
}

// Store is an open checkpoint store. Its methods are safe for concurrent use.
type Store struct{ root *os.Root }

// FindRoot walks up from start to the first directory holding
// .osfoundry/checkpoints or a .git entry; failing both, start itself.
func FindRoot(start string) string { panic("todo") }

// Open opens the store of the project at root.
func Open(root string, opt Options) (*Store, error) { panic("todo") }

// Close releases the store.
func (s *Store) Close() error { panic("todo") }

// Root is the project root's absolute path.
func (s *Store) Root() string { panic("todo") }

// Rel turns p (absolute, or relative to the root) into a root-relative
// slash path, refusing with ErrOutsideRoot what lies outside.
func (s *Store) Rel(p string) (string, error) { panic("todo") }

// NewTurn starts a turn with a short numeric id from the store.
func (s *Store) NewTurn(meta TurnMeta) (string, error) { panic("todo") }

// Capture keeps the current bytes of paths before an agent writes them.
// It returns the turn id used (T.2 when T was rewound).
func (s *Store) Capture(turn string, meta TurnMeta, paths []string) (string, error) { panic("todo") }

// Seal records what the agent left at paths after its write.
func (s *Store) Seal(turn string, paths []string) error { panic("todo") }

// Write captures path, writes data to it, and seals it.
func (s *Store) Write(turn string, meta TurnMeta, path string, data []byte) (string, error) {
	panic("todo")
}

// Remove captures paths, deletes them, and seals them.
func (s *Store) Remove(turn string, meta TurnMeta, paths []string) (string, error) { panic("todo") }

// Log lists turns and operations, newest first. withStatus hashes the
// disk (through the stat cache) to fill HandEdited; otherwise it is -1.
func (s *Store) Log(withStatus bool) ([]Entry, error) { panic("todo") }

// Files lists a turn's paths; withStatus compares each with the disk.
func (s *Store) Files(turn string, withStatus bool) ([]File, error) { panic("todo") }

// ReadImage returns the kept bytes of img, checked against their hash.
func (s *Store) ReadImage(img Image) ([]byte, error) { panic("todo") }

// ReadDisk returns what the root-relative path holds now.
func (s *Store) ReadDisk(path string) (Image, []byte, error) { panic("todo") }

// PlanRewind plans putting the folder back as it was before turn.
func (s *Store) PlanRewind(turn string) (*Plan, error) { panic("todo") }

// PlanUndo plans undoing the newest rewind not yet undone.
func (s *Store) PlanUndo(force bool) (*Plan, error) { panic("todo") }

// PlanRedo plans re-applying the most recently undone rewind.
func (s *Store) PlanRedo(force bool) (*Plan, error) { panic("todo") }

// Apply carries out a plan under the lock (recomputing it there) and
// reports progress after each path.
func (s *Store) Apply(p *Plan, progress func(done, total int)) (*Result, error) { panic("todo") }

// Verify checks every record and blob.
func (s *Store) Verify() ([]Finding, error) { panic("todo") }

// Prune drops old turns and the blobs nothing refers to.
func (s *Store) Prune(o PruneOptions) (*PruneResult, error) { panic("todo") }

// LogError appends a line to the store's bounded error log (hooks use it).
func (s *Store) LogError(format string, args ...any) {}

// Errors returns the error log's lines, oldest first.
func (s *Store) Errors() ([]string, error) { panic("todo") }

// Size is the bytes the store occupies.
func (s *Store) Size() (int64, error) { panic("todo") }

// SessionTurn returns the open turn recorded for an agent session key.
func (s *Store) SessionTurn(key string) (string, bool) { panic("todo") }

// SetSessionTurn records the open turn for an agent session key.
func (s *Store) SetSessionTurn(key, turn string) error { panic("todo") }

// Watch sends on the channel (coalesced) whenever the store or a path a
// turn touched may have changed, until ctx ends.
func (s *Store) Watch(ctx context.Context) (<-chan struct{}, error) { panic("todo") }
