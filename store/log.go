package store

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Log lists turns and operations, newest first. withStatus compares the
// disk (through the stat cache) to fill HandEdited; otherwise it is -1, so
// a screen can show the log at once and the counts when they are ready.
func (s *Store) Log(withStatus bool) ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	var counts []int
	if withStatus {
		counts = s.handCounts(v)
	}
	failed := s.failures(v)
	seq := make([]int64, 0, len(v.turns)+len(v.ops)) // each entry's place in the order of commits
	for _, t := range v.turns {
		seq = append(seq, t.seq)
	}
	for _, o := range v.ops {
		seq = append(seq, o.seq)
	}
	// Each entry is made in its place: a store of 20,000 turns has
	// megabytes of them, not worth making twice.
	out := make([]Entry, len(seq))
	for k, i := range newestOrder(seq) {
		if i >= len(v.turns) {
			out[k] = opEntry(v, v.ops[i-len(v.turns)], failed, withStatus)
			continue
		}
		out[k] = s.turnEntry(v, v.turns[i], i == len(v.turns)-1)
		if counts != nil {
			out[k].HandEdited = counts[i]
		}
	}
	return out, nil
}

// handCounts is, for each of v's turns, how many of its paths were
// changed since the agent. The turns' paths are read once, beside what
// the agent left at each (expected), and each path anything is expected
// of is looked at on disk once. Caller holds s.mu.
func (s *Store) handCounts(v *view) []int {
	n := 0
	for _, t := range v.turns {
		n += t.nfiles()
	}
	// Each turn's paths by number (see expectedAll), and the numbers'
	// paths: a path's status is asked once, not once a turn.
	nums := make([]int32, 0, n)
	var paths []string
	ends := make([]int, len(v.turns)) // where each turn's paths end in nums
	each := func(i int, p string, k int) {
		nums = append(nums, int32(k))
		if k == len(paths) {
			paths = append(paths, p)
		}
		ends[i] = len(nums)
	}
	exp, ok := s.expectedAll(v, each)
	for !ok { // a turn's summarized paths were damaged: they are read now
		nums, paths, ends = nums[:0], paths[:0], make([]int, len(v.turns))
		exp, ok = s.expectedAll(v, each)
	}
	run := s.newStatusRunExp(v, 0, exp)
	run.noBlobs = true
	defer run.done()
	edited := run.editedPaths()
	counts := make([]int, len(v.turns))
	if len(edited) == 0 {
		return counts
	}
	isEdited := make([]bool, len(paths))
	for k, p := range paths {
		isEdited[k] = edited[p]
	}
	from := 0
	for i := range v.turns {
		end := max(ends[i], from) // a turn without usable paths ends where the last did
		for _, k := range nums[from:end] {
			if isEdited[k] {
				counts[i]++
			}
		}
		from = end
	}
	return counts
}

// turnEntry is turn t's entry of the log, without the count of its paths
// changed since the agent (-1); newest says it is the newest turn.
func (s *Store) turnEntry(v *view, t *turn, newest bool) Entry {
	e := Entry{ID: t.id, Kind: KindAgent, Label: t.label, At: time.Unix(0, t.at), State: v.state(t),
		Files: t.nfiles(), HandEdited: -1, Source: t.source, Head: t.head}
	_, _, e.RanGit = s.turnGit(t, newest)
	return e
}

// editedPaths is the set of paths changed since the agent: of the paths
// anything is expected of, those handEdited says so of. Only they count
// in a turn's entry.
func (r *statusRun) editedPaths() map[string]bool {
	out := map[string]bool{}
	var f tfile
	for p := range r.exp {
		if f.path = p; r.handEdited(&f) {
			out[p] = true
		}
	}
	return out
}

// opEntry is operation o's entry of the log, with the paths it failed
// that are still failed.
func opEntry(v *view, o *opRec, failed map[string]PathFailure, withStatus bool) Entry {
	state := v.opState[o.id]
	if !o.done || state == "" {
		state = StateActive
	}
	e := Entry{ID: o.id, Kind: o.kind, At: time.Unix(0, o.at), State: state, Files: o.steps,
		Target: o.target, Turns: o.turns, Label: opLabel(v, o), Retry: o.retry, HandEdited: -1}
	for _, f := range o.fails {
		if pf, ok := failed[f.Path]; ok && pf.Op == o.id {
			e.Failed = append(e.Failed, f)
		}
	}
	if withStatus {
		e.HandEdited = 0
	}
	return e
}

// newestFirst orders entries newest first by the order of commits (seq,
// each entry's), not by At: the wall clock can step back between two
// turns.
func newestFirst(out []Entry, seq []int64) []Entry {
	sorted := make([]Entry, len(out))
	for k, i := range newestOrder(seq) {
		sorted[k] = out[i]
	}
	return sorted
}

// newestOrder is the indexes of seq, the greatest first, and of equal
// ones the first first (a stable order). Listed oldest first, as a
// store's turns are, seq is sorted already and costs one pass.
func newestOrder(seq []int64) []int {
	idx := make([]int, len(seq))
	for i := range idx {
		idx[i] = len(seq) - 1 - i
	}
	order := func(a, b int) int {
		if c := cmp.Compare(seq[b], seq[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	}
	if !slices.IsSortedFunc(idx, order) {
		slices.SortFunc(idx, order)
	}
	return idx
}

// opLabel is an operation's line in the log; an undo or redo says what
// it did by the kind of what it acted on (a revert's turns keep every
// later change, so they are not "rewound").
func opLabel(v *view, o *opRec) string {
	n := len(o.turns)
	plural := "s"
	if n == 1 {
		plural = ""
	}
	if o.retry != "" {
		return fmt.Sprintf("%s again: retried what %s could not put back", o.kind, o.retry)
	}
	switch o.kind {
	case KindRewind:
		return fmt.Sprintf("rewound %d turn%s to before %s", n, plural, o.target)
	case KindUndo:
		if t := v.opByID[o.target]; t != nil && t.retry != "" {
			return fmt.Sprintf("undid %s: what it retried is back as %s left it", o.target, t.retry)
		}
		if t := v.opByID[o.target]; t != nil && t.kind == KindRevert {
			return fmt.Sprintf("undid %s: the changes of %d turn%s back", o.target, n, plural)
		}
		return fmt.Sprintf("undid %s: %d turn%s back", o.target, n, plural)
	case KindRedo:
		if t := v.opByID[o.target]; t != nil && t.retry != "" {
			return fmt.Sprintf("redid %s: retried again what %s could not put back", o.target, t.retry)
		}
		if t := v.opByID[o.target]; t != nil && t.kind == KindRevert {
			return fmt.Sprintf("redid %s: %d turn%s reverted again", o.target, n, plural)
		}
		return fmt.Sprintf("redid %s: %d turn%s rewound again", o.target, n, plural)
	case KindRevert:
		if o.session != "" {
			return fmt.Sprintf("reverted %d turn%s of session %s", n, plural, o.session)
		}
		return "reverted turn " + o.target + ", keeping what came after it"
	}
	return string(o.kind)
}
