package store

func (s *Store) planUndo(v *view, force bool) (*Plan, error) {
	if o := v.retryUndo; o != nil && retryable(v.fails[o.id]) {
		return s.planRetry(v, &Plan{Kind: KindUndo, Target: o.target, Turns: o.turns, Force: force}, nil, o)
	}
	if len(v.undo) == 0 {
		return nil, ErrNothingToUndo
	}
	a := v.undo[len(v.undo)-1]
	recs, err := s.steps(a.via.id)
	if err != nil {
		return nil, errf("undo %s: %w", a.rewind.id, err)
	}
	failed := map[string]bool{}
	for _, f := range v.fails[a.via.id] {
		failed[f.Path] = true
	}
	var goals []wanted
	for _, r := range recs {
		// A path the operation left alone (failed, or kept at the
		// user's request) is not the undo's to change.
		if r.Img == nil || r.Do == ActFail || r.Do == ActLeave || failed[r.Path] {
			continue
		}
		back := *r.Img
		if r.Back != nil {
			back = *r.Back
		}
		goals = append(goals, wanted{path: r.Path, img: back})
	}
	if err := newerTurn(v, a.via, goals, force, "undo"); err != nil {
		return nil, err
	}
	p := &Plan{Kind: KindUndo, Target: a.rewind.id, Turns: a.rewind.turns, Force: force}
	if p, err = s.finishPlan(v, p, goals, nil); err != nil {
		return nil, err
	}
	// The operation put git's index back: the undo gives it back as it
	// was before, asked or not.
	return s.withIndex(p, a.via.indexSet, a.via.indexWas, "undo")
}

// withIndex adds to p the write of git's index back to want, when the
// operation p undoes or redoes wrote it (set); a repository gone since
// is said, not failed.
func (s *Store) withIndex(p *Plan, set, want *Image, what string) (*Plan, error) {
	if set == nil {
		return p, nil
	}
	step, err := s.indexStep(want, what)
	if err != nil {
		p.Warnings = append(p.Warnings, Warning{Kind: WarnGitIndex, Turn: p.Target, Path: err.Error()})
		return p, nil
	}
	p.Index = step
	p.ID = p.digest()
	return p, nil
}

func (s *Store) planRedo(v *view, force bool) (*Plan, error) {
	if o := v.retryRedo; o != nil && retryable(v.fails[o.id]) {
		return s.planRetry(v, &Plan{Kind: KindRedo, Target: o.target, Turns: o.turns, Force: force}, nil, o)
	}
	if len(v.redo) == 0 {
		return nil, ErrNothingToRedo
	}
	a := v.redo[len(v.redo)-1]
	recs, err := s.steps(a.rewind.id)
	if err != nil {
		return nil, errf("redo %s: %w", a.rewind.id, err)
	}
	var goals []wanted
	for _, r := range recs {
		if redone(r) {
			goals = append(goals, wanted{path: r.Path, img: *r.Want})
		}
	}
	if err := newerTurn(v, a.via, goals, force, "redo"); err != nil {
		return nil, err
	}
	p := &Plan{Kind: KindRedo, Target: a.rewind.id, Turns: a.rewind.turns, Force: force}
	// Paths the undo being redone failed to put back still hold what the
	// rewind left there (or nothing): undoing this redo must give them
	// what that undo was to bring back, or those bytes would be lost to
	// undo and redo.
	if failed := v.stillFailed(a.via.id); len(failed) > 0 {
		urecs, err := s.steps(a.via.id)
		if err != nil {
			return nil, errf("redo %s: %w", a.rewind.id, err)
		}
		for _, r := range urecs {
			if failed[r.Path] && r.Want != nil {
				if p.asIf == nil {
					p.asIf = map[string]Image{}
				}
				p.asIf[r.Path] = *r.Want
			}
		}
	}
	p, err = s.finishPlan(v, p, goals, nil)
	if err != nil {
		return nil, err
	}
	// A redo undoes the rewound turns again: its plan says what they did
	// to git, as the rewind's plan did.
	if t := v.byID[a.rewind.target]; t != nil {
		p.Git = s.gitChange(v, t, p.Turns)
	}
	return s.withIndex(p, a.rewind.indexSet, a.rewind.indexSet, "redo")
}

// newerTurn refuses an undo or redo that would overwrite what an active
// turn newer than op wrote.
func newerTurn(v *view, op *opRec, goals []wanted, force bool, what string) error {
	if force {
		return nil
	}
	for _, t := range v.turns {
		if v.rewound[t.id] {
			continue
		}
		// By when each path was written, not when the turn began: a turn
		// older than the operation may still have written after it.
		for _, g := range goals {
			if f := t.file(g.path); f != nil && (t.seq > op.seq || f.preSeq > op.seq || f.postSeq > op.seq) {
				return errf("%s %s: turn %s wrote %s after it (--force to %s anyway): %w", what, op.id, t.id, g.path, what, ErrNewerTurn)
			}
		}
	}
	return nil
}
