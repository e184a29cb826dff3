package store_test

import (
	"slices"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// retain runs a retention pass that wants every turn gone but the newest
// few, and checks it dropped exactly what the rule allows: oldest first,
// stopping at the newest keep turns and at the first turn a rewind on the
// undo or redo stack names, so every undo and redo the model can still do
// stays exact (the checks after every step go on doing them).
func (h *harness) retain() {
	keep := 1 + h.rng.IntN(4)
	held := map[*mturn]bool{}
	for _, stack := range [][]*mrewind{h.m.undo, h.m.redo} {
		for _, r := range stack {
			for _, t := range r.turns {
				held[t] = true
			}
		}
	}
	var want []string
	for i, t := range h.m.turns {
		if held[t] || i >= len(h.m.turns)-keep {
			break
		}
		want = append(want, t.id)
	}
	h.logf("retain: keep %d, held %d: drops %v", keep, len(held), want)
	res, err := h.s.Retain(store.Budget{MaxAge: time.Nanosecond, Keep: keep, Auto: true})
	if err != nil {
		h.fatalf("Retain: %v", err)
	}
	if fs, err := h.s.Verify(); err != nil || len(fs) > 0 {
		h.fatalf("Verify after Retain: %v %v", fs, err)
	}
	if got := sortedCopy(res.Turns); !slices.Equal(got, sortedCopy(want)) {
		h.fatalf("Retain dropped %v, want %v", got, want)
	}
	if len(want) == 0 {
		return
	}
	gone := map[string]bool{}
	for _, id := range want {
		gone[id] = true
		delete(h.m.byID, id)
	}
	h.m.turns = slices.DeleteFunc(h.m.turns, func(t *mturn) bool { return gone[t.id] })
	h.cov["retain-dropped"]++
	if len(held) > 0 {
		h.cov["retain-held"]++
	}
}
