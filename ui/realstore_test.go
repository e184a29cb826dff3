package ui

import (
	"context"
	"errors"
	"time"

	"github.com/ckpt-dev/ckpt/store"
	"github.com/ckpt-dev/ckpt/watch"
)

// realStore is a real store as the UI asks for it (main has the same).
type realStore struct{ *store.Store }

func (r realStore) Watch(ctx context.Context) (<-chan struct{}, error) {
	tree, dirs, err := r.WatchTargets()
	if err != nil {
		return nil, err
	}
	return watch.Notify(ctx, time.Second, watch.Targets{
		Trees: []string{tree}, Dirs: dirs, Quiet: store.QuietFile, Opaque: store.AddOnlyDir})
}

func (r realStore) PlanRewind(turn string, o store.RewindOptions) (*store.Plan, error) {
	return r.Store.PlanRewindWith(turn, o)
}

// Conversation: the real store's tests read no transcripts.
func (r realStore) Conversation(e store.Entry) (*Conversation, error) {
	return nil, errors.New("no transcript in this test")
}
