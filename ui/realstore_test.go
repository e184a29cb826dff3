package ui

import "github.com/ckpt-dev/ckpt/store"

// realStore is a real store as the UI asks for it (main has the same).
type realStore struct{ *store.Store }

func (r realStore) PlanRewind(turn string, keep []string) (*store.Plan, error) {
	return r.Store.PlanRewindKeep(turn, keep)
}
