package store

// A revert's place in the store's state: which turns it reverts, what
// the paths it wrote are expected to hold, what a rewind over it gives
// back, and the merges it keeps.

import (
	"math"
	"slices"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// suspended reports whether the revert at v.undo[i] is undone for now by
// a rewind in effect after it that went back to before it: time runs one
// way, so a rewind to before a turn undoes every operation since.
func (v *view) suspended(i int) bool {
	a := v.undo[i]
	for _, w := range v.undo[i+1:] {
		if w.rewind.kind != KindRewind {
			continue
		}
		if t := v.byID[w.rewind.target]; t != nil && t.seq < a.via.seq {
			return true
		}
	}
	return false
}

// markReverted finds the turns reverted: taken out by a revert in effect,
// with none of their paths left as they were by the newest such revert
// (failed, or kept at the user's request, wholly or in part), which
// covers every path of its turns (a retry, every path the one it retries
// left). A revert redone is applied as the revert did it, without the
// paths it failed (a conflict left as it is), so those stay out of it
// whatever the redo did; a revert retried (the paths it left tried
// again) leaves open just what the retry left.
func (v *view) markReverted() {
	v.reverted = map[string]bool{}
	open := map[string]map[string]bool{} // turn → its paths a revert left
	for i, a := range v.undo {
		if a.rewind.kind != KindRevert || v.suspended(i) {
			continue
		}
		left := v.revertOpen(a)
		for _, id := range a.rewind.turns {
			t := v.byID[id]
			if t == nil || v.rewound[id] {
				continue
			}
			v.reverted[id] = true
			open[id] = map[string]bool{}
			for _, p := range left {
				if t.file(p) != nil {
					open[id][p] = true
				}
			}
		}
	}
	for id, paths := range open {
		if len(paths) > 0 {
			delete(v.reverted, id)
		}
	}
}

// revertPath says what the reverts in effect of turn id did with its
// change to path, as markReverted reads them: had, one is in effect;
// failed, the newest of them (a retry, or another revert covering the
// turn) left the path as it was, failed; kept, it left it at the user's
// request.
func (v *view) revertPath(id, path string) (had, failed, kept bool) {
	for i, a := range v.undo {
		if a.rewind.kind != KindRevert || v.suspended(i) || !slices.Contains(a.rewind.turns, id) {
			continue
		}
		had, failed, kept = true, false, slices.Contains(a.rewind.except, path)
		for _, f := range v.revertLeft(a) {
			failed = failed || f.Path == path
		}
	}
	return had, failed, kept
}

// revertedPath reports whether a revert in effect took turn id's
// change to path out: the newest revert of the turn neither failed the
// path nor kept it.
func (v *view) revertedPath(id, path string) bool {
	had, failed, kept := v.revertPath(id, path)
	return had && !failed && !kept
}

// revertAsked reports whether a revert in effect took turn id's change
// to path out or tried to: a conflict left it (one another turn shares,
// say) but the turn's change is wanted out all the same. One that kept
// the path (--except, or a hunk of it) did not ask it out.
func (v *view) revertAsked(id, path string) bool {
	had, _, kept := v.revertPath(id, path)
	return had && !kept
}

// revertKept are the paths a revert's op record keeps in "except": those
// it leaves with its turns' change still in at the user's request,
// wholly (--except) or in part (hunks kept as they are now).
func (p *Plan) revertKept() []string {
	if p.Kind != KindRevert {
		return nil
	}
	out := slices.Clone(p.Keep)
	for _, k := range p.KeepHunks {
		out = append(out, k.Path)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// revertOpen are the paths the revert applied as a left with its turns'
// changes still in: those it left as they were (see revertLeft), and
// those it kept at the user's request, wholly or in part, as a redo
// keeps them too.
func (v *view) revertOpen(a application) []string {
	var out []string
	for _, f := range v.revertLeft(a) {
		out = append(out, f.Path)
	}
	for _, p := range a.rewind.except {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// revertLeft is what the revert applied as a left as it was, a path
// once: what the operation that applied it failed (and the retries that
// finished that one), and for a redo, what the revert itself failed,
// which a redo never tries (a conflict is left as it is).
func (v *view) revertLeft(a application) []Failure {
	var out []Failure
	seen := map[string]bool{}
	add := func(fs []Failure) {
		for _, f := range fs {
			if !seen[f.Path] {
				seen[f.Path] = true
				out = append(out, f)
			}
		}
	}
	var walk func(id string)
	walk = func(id string) {
		add(v.fails[id])
		for _, r := range v.noneRetries[id] {
			walk(r)
		}
		for _, r := range v.retriesOf[id] {
			walk(r)
		}
	}
	walk(a.via.id)
	if a.via != a.rewind {
		add(a.rewind.fails)
	}
	return out
}

// plannedBytes gives the bytes of a merge one of the two newest plans
// made (a preview asks for a plan and for the plan keeping nothing).
func (s *Store) plannedBytes(img Image) []byte {
	sum, err := blobOf(img)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.planned {
		if b, ok := m[sum]; ok {
			return b
		}
	}
	return nil
}

// keepPlanned keeps a new plan's merges for ReadImage, with the plan's
// before it. Caller holds s.mu.
func (s *Store) keepPlanned(merged map[BlobID][]byte) {
	s.planned[1], s.planned[0] = s.planned[0], merged
}

// revertExpected applies the hand-edit rule to what reverts wrote: a
// revert in effect sets what the paths it wrote are expected to hold, as
// a seal does, until a newer seal. Caller holds s.mu.
func (s *Store) revertExpected(v *view, exp map[string]expectation) {
	s.revertSteps(v, math.MinInt64, func(seq int64, r *record.Line) {
		if r.Want == nil || (r.Do != ActRestore && r.Do != ActDelete && r.Do != ActKeep) {
			return
		}
		if e, ok := exp[r.Path]; !ok || seq >= e.seq {
			exp[r.Path] = expectation{img: *r.Want, seq: seq}
		}
	})
}

// revertSteps calls fn, oldest revert first, with each step of the
// reverts in effect in v whose op record is at seq from or later, but
// for the paths a revert failed to write. Caller holds s.mu.
func (s *Store) revertSteps(v *view, from int64, fn func(seq int64, r *record.Line)) {
	for i, a := range v.undo {
		if a.rewind.kind != KindRevert || v.suspended(i) || a.via.seq < from {
			continue
		}
		recs, err := s.steps(a.via.id)
		if err != nil {
			continue
		}
		failed := map[string]bool{}
		for _, f := range a.via.fails {
			failed[f.Path] = true
		}
		for j := range recs {
			if !failed[recs[j].Path] {
				fn(a.via.seq, &recs[j])
			}
		}
	}
}

// revertGoals adds to a rewind of turn t what the reverts made since t
// began changed: the folder goes back to as before t, so each path a
// revert since then wrote gets what it held before the first such
// revert, unless a turn from t on captured it earlier still.
func (s *Store) revertGoals(v *view, t *turn, goals []wanted) []wanted {
	first := map[string]int64{} // path → seq of the goal's capture
	for _, g := range goals {
		first[g.path] = 1<<63 - 1
	}
	for _, tt := range v.turns {
		if tt.seq < t.seq || (tt != t && v.rewound[tt.id]) {
			continue
		}
		for _, f := range tt.list() {
			if q, ok := first[f.path]; ok && f.preSeq < q {
				first[f.path] = f.preSeq
			}
		}
	}
	idx := map[string]int{}
	for i, g := range goals {
		if g.refused == "" {
			idx[g.path] = i
		}
	}
	s.revertSteps(v, t.seq, func(seq int64, r *record.Line) {
		if r.Img == nil || (r.Do != ActRestore && r.Do != ActDelete) {
			return
		}
		j, ok := idx[r.Path]
		if ok && first[r.Path] < seq {
			return
		}
		g := wanted{path: r.Path, img: *r.Img}
		if ok {
			goals[j] = g
		} else {
			idx[r.Path] = len(goals)
			goals = append(goals, g)
		}
		first[r.Path] = seq
	})
	return goals
}

// revertDirs are the folders to remove, if left empty, after a revert:
// those its turns made for the files it deletes.
func revertDirs(v *view, p *Plan) []string {
	var out []string
	for _, st := range p.Steps {
		if st.Do != ActDelete {
			continue
		}
		for _, id := range p.Turns {
			if t := v.byID[id]; t != nil {
				if f := t.file(st.Path); f != nil {
					out = append(out, f.dirs...)
				}
			}
		}
	}
	return out
}

// keepMerged puts the bytes of a revert's merges into the store before
// its steps name them; the barrier before the operation is logged makes
// them durable.
func (s *Store) keepMerged(p *Plan) error {
	var scratch []byte
	// Many merges go into one pack, as a bulk capture's blobs do: one
	// file, not one per merge.
	var pack *packWriter
	if len(p.merged) > s.looseMax {
		pack = s.newPackWriter(&failpoint{})
	}
	for _, st := range p.Steps {
		if st.Do != ActRestore || st.Want.Kind != ImageContent {
			continue
		}
		sum, err := blobOf(st.Want)
		if err != nil {
			continue
		}
		data, ok := p.merged[sum]
		if !ok {
			continue
		}
		if _, err := s.putBlob(sum, data, pack, &scratch); err != nil {
			return err
		}
	}
	if pack != nil {
		return pack.commit()
	}
	return nil
}

// revertResult adds a revert's conflicts and merged paths to r.
func (p *Plan) revertResult(r *Result) {
	if p.Kind != KindRevert {
		return
	}
	r.Conflicts, r.Merged = []Conflict{}, []string{}
	failed := map[string]bool{}
	for _, f := range r.Failed {
		failed[f.Path] = true
	}
	for _, st := range p.Steps {
		if st.Conflicts != nil && st.Do != ActLeave {
			r.Conflicts = append(r.Conflicts, Conflict{Path: st.Path, Lines: st.Conflicts})
		}
		if st.Merged && st.Do == ActRestore && !failed[st.Path] {
			r.Merged = append(r.Merged, st.Path)
		}
	}
}
