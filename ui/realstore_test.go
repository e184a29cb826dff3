package ui

import (
	"errors"

	"ckpt/store"
)

// realStore is a real store as the UI asks for it (main has the same).
type realStore struct{ *store.Store }

func (r realStore) PlanRewind(turn string, keep []string) (*store.Plan, error) {
	if len(keep) > 0 {
		return nil, errors.New("this store cannot keep files out of a rewind yet")
	}
	return r.Store.PlanRewind(turn)
}
