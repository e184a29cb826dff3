package store

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

func (s *Store) buildView(ops []*opRec) *view {
	v := newView()
	n := len(s.cache.seed) + len(s.cache.files)
	v.byID = make(map[string]*turn, n)
	v.turns = make([]*turn, 0, n)
	v.seedErr = s.cache.seedErr
	for _, t := range s.cache.seed {
		v.byID[t.id] = t
		v.turns = append(v.turns, t)
	}
	for _, c := range s.cache.files {
		t := c.t
		if t.id == "" {
			continue
		}
		var seed *turn
		if len(s.cache.seed) > 0 {
			seed = v.byID[t.id]
		}
		if seed != nil && seed.seed {
			// A capture naming a seed turn's id adds to that turn: every
			// path its records hold, those it made and removed too, whose
			// pre-images a rewind weighs (list leaves them out again).
			m := newTurn(seed.id)
			*m = *seed
			m.byPath, m.shownOK = map[string]*tfile{}, false
			m.fl = append([]*tfile(nil), seed.recordedList()...)
			for k, f := range seed.pathIndex() {
				m.byPath[k] = f
			}
			for _, f := range t.recordedList() {
				if m.byPath[f.path] == nil {
					m.fl = append(m.fl, f)
					m.byPath[f.path] = f
				}
			}
			v.byID[t.id] = m
			for i, x := range v.turns {
				if x == seed {
					v.turns[i] = m
				}
			}
			continue
		}
		v.byID[t.id] = t
		v.turns = append(v.turns, t)
	}
	// Ids are unique, so the order is total: no sort needs to be stable.
	slices.SortFunc(v.turns, func(a, b *turn) int {
		if c := cmp.Compare(a.seq, b.seq); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	v.planLeft = s.planLeft
	v.replay(ops)
	v.markReverted()
	return v
}

// replay walks the operations in order to find which turns stand rewound,
// the undo and redo stacks, and the paths operations failed to put back.
//
// An operation whose every step failed changed nothing and stands for
// nothing: its turns are not rewound, and the stacks do not move; the
// paths it failed are failed all the same. A retry
// of a rewind (rewinding a turn whose rewind failed some paths) is a
// rewind of its own, on the undo stack; a retry of an undo or a redo
// finishes that undo or redo and leaves the stacks as they are. Either
// way the failures it tried again are now its own.
func (v *view) replay(ops []*opRec) {
	for _, o := range ops {
		v.ops = append(v.ops, o)
		v.opByID[o.id] = o
		if !o.done || o.abandoned {
			continue
		}
		if o.none {
			// It stands for nothing, but what it failed to put back is
			// failed until something puts it: shown as failed, like the
			// failures of an operation that changed something.
			v.opState[o.id] = StateFailed
			if len(o.fails) > 0 {
				v.fails[o.id] = o.fails
			}
			if o.retry != "" {
				if v.noneRetries == nil {
					v.noneRetries = map[string][]string{}
				}
				v.noneRetries[o.retry] = append(v.noneRetries[o.retry], o.id)
			}
			continue
		}
		if o.retry != "" {
			v.dropRetried(o)
		}
		switch {
		case o.kind == KindRewind || o.kind == KindRevert:
			if o.kind == KindRewind {
				for _, t := range o.turns {
					v.rewound[t] = true
				}
			}
			v.undo = append(v.undo, application{rewind: o, via: o})
			// The undos on the redo stack can no longer be retried, nor
			// redone: what they failed is moot.
			for _, a := range v.redo {
				v.dropFails(a.via.id)
			}
			v.redo = nil
			v.retryUndo, v.retryRedo = nil, nil
		case o.retry != "" && o.kind == KindUndo:
			v.retryUndo = o
			v.retried(o)
		case o.retry != "" && o.kind == KindRedo:
			v.retryRedo = o
			v.retried(o)
		case o.kind == KindUndo:
			if n := len(v.undo); n > 0 {
				a := v.undo[n-1]
				v.undo = v.undo[:n-1]
				v.dropFails(a.via.id)
				if a.via != a.rewind {
					v.dropFails(a.rewind.id) // what a redone revert left failed
				}
				v.takeBack(a.via.id)
				for id, fs := range v.retryHeld[a.rewind.id] {
					v.fails[id] = fs // the retry undone, what it retried is failed again
				}
				if a.rewind.kind == KindRewind {
					v.unrewind(a.rewind.turns)
				}
				v.redo = append(v.redo, application{rewind: a.rewind, via: o})
				v.opState[a.rewind.id] = StateUndone
			}
			v.retryUndo, v.retryRedo = o, nil
		case o.kind == KindRedo:
			if n := len(v.redo); n > 0 {
				a := v.redo[n-1]
				v.redo = v.redo[:n-1]
				v.dropFails(a.via.id)
				v.takeBack(a.via.id)
				if held, ok := v.retryHeld[a.rewind.id]; ok {
					v.rehold(a.rewind.id, held)
				}
				if a.rewind.kind == KindRewind && v.planLeft != nil {
					// Nor does it try what the rewind's plan failed (a
					// path in the way, bytes not kept): failed by the
					// rewind still, retried by rewinding its turns again.
					if left := v.planLeft(a.rewind); len(left) > 0 {
						v.fails[a.rewind.id] = left
					}
				}
				if a.rewind.kind == KindRevert && len(a.rewind.fails) > 0 {
					// The redo applies what the revert did and leaves what
					// it failed (a conflict) as it is: failed by the
					// revert again, which its retry tries once more.
					v.fails[a.rewind.id] = a.rewind.fails
				}
				for _, t := range a.rewind.turns {
					v.rewound[t] = a.rewind.kind == KindRewind || v.rewound[t]
				}
				v.undo = append(v.undo, application{rewind: a.rewind, via: o})
				v.opState[a.rewind.id] = StateActive
			}
			v.retryUndo, v.retryRedo = nil, o
		}
		v.opState[o.id] = StateActive
		if len(o.fails) > 0 {
			v.fails[o.id] = o.fails
		}
	}
}

// planLeft is what rewind o failed that a redo of it leaves as it is:
// the paths its plan failed, which a redo does not try (see redone). A
// steps file that cannot be read leaves nothing: the redo's plan fails
// on it. Caller holds s.mu.
func (s *Store) planLeft(o *opRec) []Failure {
	if len(o.fails) == 0 {
		return nil
	}
	recs, err := s.steps(o.id)
	if err != nil {
		return nil
	}
	tried := make(map[string]bool, len(recs))
	for _, r := range recs {
		if redone(r) {
			tried[r.Path] = true
		}
	}
	var out []Failure
	for _, f := range o.fails {
		if !tried[f.Path] {
			out = append(out, f)
		}
	}
	return out
}

// redone reports whether a redo of an operation does step r again: not
// a step its plan failed or left as it was.
func redone(r record.Line) bool {
	return r.Want != nil && r.Do != ActFail && r.Do != ActLeave
}

// dropFails forgets what operation id failed, once it is moot: the
// operation was undone (or retried), and so were the retries of it that
// changed nothing.
func (v *view) dropFails(id string) {
	v.forget(id)
	for _, r := range v.noneRetries[id] {
		v.forget(r)
	}
	// What a retry that finished an undo or redo still failed (a purged
	// path fails again) is moot with it.
	for _, r := range v.retriesOf[id] {
		v.dropFails(r)
	}
}

// forget drops what operation id failed, and the copy of it a retry
// holds: a retry's undo brings back only what is still outstanding, not
// the failures of an operation undone since (its redo fails anew).
func (v *view) forget(id string) {
	delete(v.fails, id)
	for _, held := range v.retryHeld {
		delete(held, id)
	}
}

// dropRetried makes moot what o retried. A retry of a rewind or revert is
// an operation of its own that can be undone: the failures it makes moot
// are held, to stand again when it is undone.
func (v *view) dropRetried(o *opRec) {
	if o.kind != KindRewind && o.kind != KindRevert {
		v.dropFails(o.retry)
		return
	}
	before := make(map[string][]Failure, len(v.fails))
	for id, fs := range v.fails {
		before[id] = fs
	}
	v.dropFails(o.retry)
	for _, a := range v.undo {
		if a.via.id == o.retry && a.via != a.rewind {
			v.dropFails(a.rewind.id) // a redone revert's conflicts, tried again
		}
	}
	held := map[string][]Failure{}
	for id, fs := range before {
		if _, ok := v.fails[id]; !ok {
			held[id] = fs
		}
	}
	if v.retryHeld == nil {
		v.retryHeld = map[string]map[string][]Failure{}
	}
	v.retryHeld[o.id] = held
}

// rehold makes moot again, as retry id is redone, what it held: the
// failures it made moot, with those of the retries of them that changed
// nothing while it was undone (they stood for them), as applying it did.
// They are held anew, to stand again when it is undone again.
func (v *view) rehold(id string, held map[string][]Failure) {
	before := make(map[string][]Failure, len(v.fails))
	for k, fs := range v.fails {
		before[k] = fs
	}
	for k := range held {
		v.dropFails(k)
	}
	now := map[string][]Failure{}
	for k, fs := range before {
		if _, ok := v.fails[k]; !ok {
			now[k] = fs
		}
	}
	v.retryHeld[id] = now
}

// takeBack notes that the work of operation id, and of the retries that
// finished it, was taken back.
func (v *view) takeBack(id string) {
	if v.takenBack == nil {
		v.takenBack = map[string]bool{}
	}
	v.takenBack[id] = true
	for _, r := range v.retriesOf[id] {
		v.takeBack(r)
	}
}

// retried notes o, a retry that finished an undo or redo, as part of it:
// undoing (redoing) what they did together makes both's failures moot.
func (v *view) retried(o *opRec) {
	if v.retriesOf == nil {
		v.retriesOf = map[string][]string{}
	}
	v.retriesOf[o.retry] = append(v.retriesOf[o.retry], o.id)
}

// unrewind brings back turns an undone application had rewound, unless
// another application still in effect (a rewind and its retry) rewinds
// them too.
func (v *view) unrewind(turns []string) {
	for _, t := range turns {
		v.rewound[t] = false
	}
	for _, a := range v.undo {
		if a.rewind.kind != KindRewind {
			continue // a revert takes changes out, it rewinds no turn
		}
		for _, t := range a.rewind.turns {
			v.rewound[t] = true
		}
	}
}

func (v *view) state(t *turn) State {
	if v.rewound[t.id] {
		return StateRewound
	}
	if v.reverted[t.id] {
		return StateReverted
	}
	return StateActive
}
