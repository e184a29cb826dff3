package store

import (
	"sort"
)

// PlanRewind plans putting the folder back as it was before turn: the turn
// and every later active turn are undone, each path getting its oldest
// pre-image among them.
//
// Rewinding a turn that a rewind in effect already rewound, where that
// rewind failed some paths, plans a retry of just those paths (Plan.Retry
// names the operation retried); with nothing failed it is ErrRewound.
//
// The paths in keep (relative to the root, or absolute) are left as they
// are now: their steps are ActLeave, the rest is rewound, and an undo of
// it gives back exactly what the rewind changed. A path the rewind does
// not touch is an error.
func (s *Store) PlanRewind(turn string, keep ...string) (*Plan, error) {
	return s.PlanRewindWith(turn, RewindOptions{Keep: keep})
}

// RewindOptions tunes PlanRewindWith.
type RewindOptions struct {
	Keep []string // paths left as they are now (see PlanRewind)
	// GitIndex also puts git's index file back as it was before the turn,
	// under git's index.lock; an undo gives it back. It fails when the
	// turn recorded no index (no repository then, or an older ckpt).
	GitIndex bool
	// KeepHunks keeps hunks of files as they are now, the rest of each
	// file rewound (see HunkKeep).
	KeepHunks []HunkKeep
}

// PlanRewindWith is PlanRewind with options. Every rewind plan says in
// Plan.Git what the turns it undoes did to git.
func (s *Store) PlanRewindWith(turn string, o RewindOptions) (*Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	p, err := s.planRewindGit(v, turn, o)
	if err == nil && len(p.merged) > 0 {
		s.keepPlanned(p.merged)
	}
	return p, err
}

// PlanUndo plans undoing the newest rewind not yet undone. It fails with
// ErrNewerTurn, naming the turn, when a newer active turn wrote one of its
// paths, unless force.
func (s *Store) PlanUndo(force bool) (*Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	return s.planUndo(v, force)
}

// PlanRedo plans re-applying the most recently undone rewind, with the
// same refusal as PlanUndo.
func (s *Store) PlanRedo(force bool) (*Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	return s.planRedo(v, force)
}

// wanted is one path's goal while a plan is built.
type wanted struct {
	path    string
	img     Image
	refused string
	dirs    []string
	badBlob string // a seed's blob name that is not one (see tfile)
}

// finishPlan works out p's steps from goals, leaves the paths in keep as
// they are, and names the plan. keep may name only paths among the goals.
func (s *Store) finishPlan(v *view, p *Plan, goals []wanted, keep map[string]bool) (*Plan, error) {
	var gone map[string]bool
	if p.Retry == "" || p.Kind == KindRewind {
		gone = set(s.rmdirs(v, p))
	}
	p.Steps = s.stepsFor(v, goals, gone)
	for i := range p.Steps {
		st := &p.Steps[i]
		if keep[st.Path] {
			st.Do, st.Reason = ActLeave, ""
		}
	}
	for k := range keep {
		i := sort.Search(len(p.Steps), func(i int) bool { return p.Steps[i].Path >= k })
		if i == len(p.Steps) || p.Steps[i].Path != k {
			return nil, &NotTouchedError{Path: k, Kind: p.Kind}
		}
		p.Keep = append(p.Keep, k)
	}
	sort.Strings(p.Keep)
	p.ID = p.digest()
	return p, nil
}

// stepsFor turns goals into steps against the disk now.
// Folders in gone are to be removed by the operation (if left empty), so
// a folder standing where a file is wanted does not fail the step.
func (s *Store) stepsFor(v *view, goals []wanted, gone map[string]bool) []Step {
	hand := s.handRule(v)
	// The stat cache spares hashing files that did not change; Apply
	// reads every file it touches anyway, under the lock, before it acts.
	dirs := newDirCache(s)
	defer dirs.close()
	defer s.saveStats()
	blocked := s.wayBlocked(goals, dirs)
	// A folder in the way goes when what is in it goes: the paths the
	// plan deletes, and the folders it removes once left empty or wants
	// as folders (those are its own, whether a turn made them or not, as
	// a redo has them: its rewind kept them out of the folders it removes).
	deletes, emptied := map[string]bool{}, map[string]bool{}
	for d := range gone {
		emptied[d] = true
	}
	for _, g := range goals {
		switch {
		case g.refused != "":
		case g.img.Kind == ImageAbsent:
			deletes[g.path] = true
		case g.img.Kind == ImageDir:
			emptied[g.path] = true
		}
	}
	var steps []Step
	for _, g := range goals {
		st := Step{Path: g.path, Want: g.img}
		if g.refused != "" {
			st.Do, st.Reason = ActFail, g.refused
			steps = append(steps, st)
			continue
		}
		now := s.diskState(g.path, dirs)
		st.Now = now
		st.HandEdited = hand(g.path, now)
		if (now.Kind == ImageOther || now.Kind == ImageDir) && gone[g.path] && g.img.Kind != ImageDir {
			if !s.emptiedBy(g.path, deletes, emptied, dirs) {
				st.Do, st.Reason = ActFail, "not touched: it is a folder now, holding what the operation does not remove"
				steps = append(steps, st)
				continue
			}
			now = Image{Kind: ImageAbsent}
		}
		st.Do, st.Reason = s.decide(now, g.img)
		if st.Do == ActRestore {
			if why := blocked(g.path); why != "" {
				st.Do, st.Reason = ActFail, why
			}
		}
		if g.badBlob != "" {
			st.Reason = "not restored: " + badBlobWhy(g.badBlob)
		}
		steps = append(steps, st)
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Path < steps[j].Path })
	s.planBehindShut(steps)
	return steps
}

// handRule returns the test of CONTRACT.md's "Changed outside ckpt": the
// disk differs from the expected bytes, and no operation failed the path
// (a failed path is shown as failed, never as changed since the agent).
func (s *Store) handRule(v *view) func(path string, disk Image) bool {
	exp, failed := s.expected(v), s.failures(v)
	return func(p string, disk Image) bool {
		e, ok := exp[p]
		_, f := failed[p]
		return ok && !f && e.changedSince(disk)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Result is what the plan would do, for a dry run or a declined prompt.
func (p *Plan) Result() *Result {
	r := &Result{Restored: []string{}, Deleted: []string{}, Kept: []string{}, Failed: []Failure{}, HandEdited: []string{}, Plan: p.ID}
	for _, st := range p.Steps {
		switch st.Do {
		case ActLeave:
			r.Kept = append(r.Kept, st.Path)
		case ActRestore:
			r.Restored = append(r.Restored, st.Path)
		case ActDelete:
			r.Deleted = append(r.Deleted, st.Path)
		case ActFail:
			r.Failed = append(r.Failed, Failure{Path: st.Path, Reason: st.Reason})
		}
		if st.HandEdited {
			r.HandEdited = append(r.HandEdited, st.Path)
		}
	}
	p.revertResult(r)
	return r
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, x := range list {
		m[x] = true
	}
	return m
}
