package store

// planRetry finishes p as a retry of ops[0]: the paths each of ops
// failed to put back, with what it wanted there (keep as for
// finishPlan). A retry of a redo retries also what the redo left as
// the rewind it redid failed it (ops[1]).
func (s *Store) planRetry(v *view, p *Plan, keep map[string]bool, ops ...*opRec) (*Plan, error) {
	var goals []wanted
	seen := map[string]bool{}
	for _, op := range ops {
		g, err := s.retryGoals(v, op)
		if err != nil {
			return nil, err
		}
		for _, w := range g {
			if !seen[w.path] {
				seen[w.path] = true
				goals = append(goals, w)
			}
		}
	}
	p.Retry = ops[0].id
	return s.finishPlan(v, p, goals, keep)
}

// retryOps are the operations whose failures a retry of application a
// tries again: the one that applied it, the retries that finished that
// one (they hold what they failed again), and, for a redo, the rewind it
// redid, whose plan's failures the redo left as they were.
func (v *view) retryOps(a application) []*opRec {
	var out []*opRec
	var walk func(o *opRec)
	walk = func(o *opRec) {
		out = append(out, o)
		for _, id := range v.retriesOf[o.id] {
			if r := v.opByID[id]; r != nil {
				walk(r)
			}
		}
	}
	walk(a.via)
	if a.via != a.rewind && a.rewind.kind == KindRewind {
		out = append(out, a.rewind)
	}
	return out
}

// retryGoals are the paths op failed to put back, with what it wanted
// there.
func (s *Store) retryGoals(v *view, op *opRec) ([]wanted, error) {
	if len(v.fails[op.id]) == 0 {
		return nil, nil
	}
	recs, err := s.steps(op.id)
	if err != nil {
		return nil, errf("retry %s: %w", op.id, err)
	}
	failed := map[string]bool{}
	for _, f := range v.fails[op.id] {
		failed[f.Path] = true
	}
	var goals []wanted
	for _, r := range recs {
		if !failed[r.Path] {
			continue
		}
		delete(failed, r.Path)
		if r.Want == nil || r.Want.Kind == "" {
			goals = append(goals, wanted{path: r.Path, refused: r.Why})
			continue
		}
		goals = append(goals, wanted{path: r.Path, img: *r.Want, dirs: r.Dirs})
	}
	return goals, nil
}
