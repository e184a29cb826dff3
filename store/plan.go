package store

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// inFlightWindow is how recent an unsealed capture must be for a plan to
// warn that the agent may be writing right now.
const inFlightWindow = 2 * time.Minute

// PlanRewind plans putting the folder back as it was before turn: the turn
// and every later active turn are undone, each path getting its oldest
// pre-image among them.
func (s *Store) PlanRewind(turn string) (*Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	return s.planRewind(v, turn)
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
}

func (s *Store) planRewind(v *view, id string) (*Plan, error) {
	t := v.byID[id]
	if t == nil {
		return nil, errf("rewind %q: %w", id, ErrUnknownTurn)
	}
	if v.rewound[id] {
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
	seen := map[string]bool{}
	start := 0
	for i, tt := range v.turns {
		if tt == t {
			start = i
		}
	}
	for _, tt := range v.turns[start:] {
		if tt != t && v.rewound[tt.id] {
			continue
		}
		p.Turns = append(p.Turns, tt.id)
		for _, f := range tt.files {
			if f.refused != "" {
				goals = append(goals, wanted{path: f.path, refused: f.refused})
				continue
			}
			if seen[f.path] {
				continue
			}
			seen[f.path] = true
			goals = append(goals, wanted{path: f.path, img: f.pre, dirs: f.dirs})
		}
	}
	p.Steps = s.stepsFor(v, goals, set(s.rmdirs(v, p)))
	p.Warnings = s.warnings(v, t)
	return p, nil
}

// stepsFor turns goals into steps against the disk now.
// Folders in gone are to be removed by the operation (if left empty), so
// a folder standing where a file is wanted does not fail the step.
func (s *Store) stepsFor(v *view, goals []wanted, gone map[string]bool) []Step {
	exp := s.expected(v)
	// The stat cache spares hashing files that did not change; Apply
	// reads every file it touches anyway, under the lock, before it acts.
	dirs := newDirCache(s.root)
	defer dirs.close()
	defer s.saveStats()
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
		if e, ok := exp[g.path]; ok && !sameBytes(now, e.img) {
			st.HandEdited = true
		}
		if now.Kind == ImageOther && gone[g.path] {
			now = Image{Kind: ImageAbsent}
		}
		st.Do, st.Reason = s.decide(now, g.img)
		steps = append(steps, st)
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Path < steps[j].Path })
	return steps
}

// decide says what to do to turn now into want.
func (s *Store) decide(now, want Image) (Action, string) {
	if now.Kind == ImageOther {
		return ActFail, "not touched: it " + now.Reason + " now"
	}
	switch want.Kind {
	case ImageSkipped:
		return ActFail, "not restored: its bytes were not kept (" + want.Reason + ")"
	case ImageAbsent:
		if now.Kind == ImageAbsent {
			return ActKeep, ""
		}
		return ActDelete, ""
	case ImageLink:
		if sameBytes(now, want) {
			return ActKeep, ""
		}
		return ActRestore, ""
	case ImageContent:
		if !isHex64(want.SHA256) {
			return ActFail, fmt.Sprintf("not restored: blob name %q is not 64 hex digits", want.SHA256)
		}
		if sameBytes(now, want) {
			if want.Mode != 0 && now.Mode != want.Mode {
				return ActRestore, ""
			}
			return ActKeep, ""
		}
		if !s.hasBlob(want.SHA256) {
			return ActFail, "not restored: its kept bytes (blob " + want.SHA256[:12] + ") are missing from the store"
		}
		return ActRestore, ""
	}
	return ActFail, fmt.Sprintf("not restored: unknown kind %q", want.Kind)
}

func (s *Store) warnings(v *view, t *turn) []string {
	var w []string
	if t.head != "" {
		if now := gitHead(s.root); now != "" && now != t.head {
			w = append(w, fmt.Sprintf("git HEAD moved since turn %s (%s → %s)", t.id, short(t.head), short(now)))
		}
	}
	cut := time.Now().Add(-inFlightWindow).UnixNano()
	for _, tt := range v.turns {
		if v.rewound[tt.id] {
			continue
		}
		for _, f := range tt.files {
			if f.post == nil && f.preAt > cut && f.refused == "" {
				w = append(w, fmt.Sprintf("turn %s captured %s but has not sealed it: the agent may be writing right now", tt.id, f.path))
				return w
			}
		}
	}
	return w
}

func short(sha string) string {
	if len(sha) > 8 {
		return sha[:8]
	}
	return sha
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
	if len(v.undo) == 0 {
		return nil, ErrNothingToUndo
	}
	a := v.undo[len(v.undo)-1]
	recs, err := s.steps(a.via.id)
	if err != nil {
		return nil, errf("undo %s: %w", a.rewind.id, err)
	}
	var goals []wanted
	for _, r := range recs {
		if r.Img == nil || r.Do == ActFail {
			continue
		}
		goals = append(goals, wanted{path: r.Path, img: *r.Img})
	}
	if err := newerTurn(v, a.via, goals, force, "undo"); err != nil {
		return nil, err
	}
	p := &Plan{Kind: KindUndo, Target: a.rewind.id, Turns: a.rewind.turns, Force: force}
	p.Steps = s.stepsFor(v, goals, set(s.rmdirs(v, p)))
	return p, nil
}

func (s *Store) planRedo(v *view, force bool) (*Plan, error) {
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
		if r.Want == nil || r.Do == ActFail {
			continue
		}
		goals = append(goals, wanted{path: r.Path, img: *r.Want})
	}
	if err := newerTurn(v, a.via, goals, force, "redo"); err != nil {
		return nil, err
	}
	p := &Plan{Kind: KindRedo, Target: a.rewind.id, Turns: a.rewind.turns, Force: force}
	p.Steps = s.stepsFor(v, goals, set(s.rmdirs(v, p)))
	return p, nil
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
			if f, ok := t.byPath[g.path]; ok && (t.seq > op.seq || f.preSeq > op.seq || f.postSeq > op.seq) {
				return errf("%s %s: turn %s wrote %s after it (--force to %s anyway): %w", what, op.id, t.id, g.path, what, ErrNewerTurn)
			}
		}
	}
	return nil
}

// Result is what the plan would do, for a dry run or a declined prompt.
func (p *Plan) Result() *Result {
	r := &Result{Restored: []string{}, Deleted: []string{}, Failed: []Failure{}, HandEdited: []string{}}
	for _, st := range p.Steps {
		switch st.Do {
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
	return r
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, x := range list {
		m[x] = true
	}
	return m
}

// rmdirs lists the folders to remove, if left empty, after p: those the
// rewound turns created, or those the operation being undone created.
func (s *Store) rmdirs(v *view, p *Plan) []string {
	set := map[string]bool{}
	switch p.Kind {
	case KindRewind:
		for _, id := range p.Turns {
			for _, f := range v.byID[id].files {
				for _, d := range f.dirs {
					set[d] = true
				}
			}
		}
	case KindUndo:
		if len(v.undo) > 0 {
			if recs, err := s.steps(v.undo[len(v.undo)-1].via.id); err == nil {
				for _, r := range recs {
					for _, d := range r.Dirs {
						set[d] = true
					}
				}
			}
		}
	case KindRedo:
		if len(v.redo) > 0 {
			set2 := v.redo[len(v.redo)-1].rewind.rmdirs
			for _, d := range set2 {
				set[d] = true
			}
		}
	}
	var out []string
	for d := range set {
		out = append(out, d)
	}
	// Deepest first, so a parent is tried after its children.
	sort.Slice(out, func(i, j int) bool {
		di, dj := strings.Count(out[i], "/"), strings.Count(out[j], "/")
		if di != dj {
			return di > dj
		}
		return out[i] > out[j]
	})
	return out
}
