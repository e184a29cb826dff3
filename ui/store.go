package ui

import (
	"context"

	"github.com/ckpt-dev/ckpt/store"
)

// Store is what the UI needs of a checkpoint store. main adapts
// *store.Store to it; tests pass a fake. Every call is made from a
// command, never from Update or View.
type Store interface {
	Log(withStatus bool) ([]store.Entry, error)
	Files(turn string, withStatus bool) ([]store.File, error)
	ReadImage(img store.Image) ([]byte, error)
	ReadDisk(path string) (store.Image, []byte, error)
	// PlanRewind plans a rewind to before turn that leaves the paths in
	// o.Keep as they are now (and with o.GitIndex puts git's index back).
	// On a turn already rewound whose rewind failed on some paths, the
	// plan retries just those.
	PlanRewind(turn string, o store.RewindOptions) (*store.Plan, error)
	// PlanRevert plans taking turn's changes out of the folder as it is
	// now, keeping what came after them; a conflicting file's step fails
	// with its lines in Conflicts, and Marked shows it with markers.
	PlanRevert(turn string, opt store.RevertOptions) (*store.Plan, error)
	PlanUndo(force bool) (*store.Plan, error)
	PlanRedo(force bool) (*store.Plan, error)
	// Apply carries out exactly p. If the store or the disk changed since
	// p was made, it changes nothing and returns an error that
	// errors.Is store.ErrPlanChanged.
	Apply(p *store.Plan, progress func(done, total int)) (*store.Result, error)
	// Errors is the error log, oldest first. The UI never clears it.
	Errors() ([]string, error)
	Size() (int64, error)
	Root() string
	// Conversation reads what turn e's agent was asked and said from the
	// transcript its hook named; an error says why there is none.
	Conversation(e store.Entry) (*Conversation, error)
	Watch(ctx context.Context) (<-chan struct{}, error)
}
