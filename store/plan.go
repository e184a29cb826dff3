package store

import (
	"fmt"
	"sort"
	"time"
)

// inFlightWindow is how recent an unsealed capture must be for a plan to
// warn that the agent may be writing right now.
const inFlightWindow = 2 * time.Minute

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
		for _, f := range tt.list() {
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

// stepsFor turns goals into steps against the disk now.
// Folders in gone are to be removed by the operation (if left empty), so
// a folder standing where a file is wanted does not fail the step.
func (s *Store) stepsFor(v *view, goals []wanted, gone map[string]bool) []Step {
	hand := s.handRule(v)
	// The stat cache spares hashing files that did not change; Apply
	// reads every file it touches anyway, under the lock, before it acts.
	dirs := newDirCache(s.root)
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

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
