package ui

import (
	"context"

	"ckpt/store"
)

// Store is what the UI needs of a checkpoint store. *store.Store has these
// methods; tests pass a fake. Every call is made from a command, never from
// Update or View.
type Store interface {
	Log(withStatus bool) ([]store.Entry, error)
	Files(turn string, withStatus bool) ([]store.File, error)
	ReadImage(img store.Image) ([]byte, error)
	ReadDisk(path string) (store.Image, []byte, error)
	PlanRewind(turn string) (*store.Plan, error)
	PlanUndo(force bool) (*store.Plan, error)
	PlanRedo(force bool) (*store.Plan, error)
	Apply(p *store.Plan, progress func(done, total int)) (*store.Result, error)
	Errors() ([]string, error)
	Size() (int64, error)
	Root() string
	Watch(ctx context.Context) (<-chan struct{}, error)
}
