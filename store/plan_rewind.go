package store

import (
	"fmt"
	"time"
)

// inFlightWindow is how recent an unsealed capture must be for a plan to
// warn that the agent may be writing right now.
const inFlightWindow = 2 * time.Minute

// planRewindGit plans a rewind to before turn id, leaving o.Keep as they
// are and o.KeepHunks' hunks as they are, saying what the turns did to
// git and, with o.GitIndex, putting git's index back as it was before
// turn id.
func (s *Store) planRewindGit(v *view, id string, o RewindOptions) (*Plan, error) {
	p, err := s.planRewindFiles(v, id, o.Keep)
	if err != nil {
		return nil, err
	}
	if err := s.keepHunks(p, o.KeepHunks); err != nil {
		return nil, err
	}
	t := v.byID[id]
	if p.Retry == "" {
		p.Git = s.gitChange(v, t, p.Turns)
	}
	if o.GitIndex {
		p.GitIndex = true
		if p.Index, err = s.indexStep(t.index, "rewind --git-index"); err != nil {
			return nil, err
		}
	}
	p.ID = p.digest()
	return p, nil
}

func (s *Store) planRewindFiles(v *view, id string, keep []string) (*Plan, error) {
	t := v.byID[id]
	if t == nil {
		return nil, errf("rewind %q: %w", id, ErrUnknownTurn)
	}
	keepSet := map[string]bool{}
	for _, k := range keep {
		rel, err := s.Rel(k)
		if err != nil {
			return nil, errf("--except: %w", err) // err names k
		}
		keepSet[rel] = true
	}
	if v.rewound[id] {
		for i := len(v.undo) - 1; i >= 0; i-- {
			a := v.undo[i]
			if !contains(a.rewind.turns, id) {
				continue
			}
			// A redo leaves what the rewind's plan failed as it is,
			// failed by the rewind still: retried with what it failed.
			left := a.via != a.rewind && a.rewind.kind == KindRewind && len(v.fails[a.rewind.id]) > 0
			if len(v.fails[a.via.id]) > 0 || left {
				return s.planRetry(v, &Plan{Kind: KindRewind, Target: id, Turns: a.rewind.turns}, keepSet, v.retryOps(a)...)
			}
		}
		by := ""
		for i := len(v.undo) - 1; i >= 0; i-- {
			if contains(v.undo[i].rewind.turns, id) {
				by = fmt.Sprintf(" by %s; `ckpt undo` brings it back", v.undo[i].rewind.id)
				break
			}
		}
		return nil, errf("turn %s is already rewound%s: %w", id, by, ErrRewound)
	}
	p := &Plan{Kind: KindRewind, Target: id}
	var goals []wanted
	start := 0
	for i, tt := range v.turns {
		if tt == t {
			start = i
		}
	}
	var recs []observedPre
	var began int64 // when the turn began, never before an older one
	for _, tt := range v.turns[start:] {
		if tt != t && v.rewound[tt.id] {
			continue
		}
		began = max(began, tt.at)
		p.Turns = append(p.Turns, tt.id)
		for _, f := range tt.recordedList() {
			if f.refused != "" {
				goals = append(goals, wanted{path: f.path, refused: f.refused})
				continue
			}
			recs = append(recs, observedPre{f, f.observed(began)})
		}
	}
	goals = append(goals, earliestPres(recs)...)
	goals = s.revertGoals(v, t, goals)
	p.Warnings = s.warnings(v, t)
	return s.finishPlan(v, p, goals, keepSet)
}

func (s *Store) warnings(v *view, t *turn) []Warning {
	var w []Warning
	cut := time.Now().Add(-inFlightWindow).UnixNano()
	for _, tt := range v.turns {
		if v.rewound[tt.id] {
			continue
		}
		for _, f := range tt.list() {
			if f.post == nil && f.preAt > cut && f.refused == "" {
				w = append(w, Warning{Kind: WarnInFlight, Turn: tt.id, Path: f.path})
				return w
			}
		}
	}
	return w
}
