package store

import (
	"cmp"
	"slices"
)

// A rewind over several turns gives each path what it held before the
// first of them changed it: with one session that is the oldest turn's
// pre-image, but with two, a sweep in the older turn may have recorded
// what its baseline held after the newer turn's file tool had already
// captured (and changed) the path. Each pre record says when its image
// was observed ("seen"), and the plan takes the one observed first.

// observedPre is a turn's record of a path, with when its pre-image was
// observed (see tfile.observed).
type observedPre struct {
	f  *tfile
	at int64
}

// earliestPres gives each path of recs (in turn order) the pre-image
// observed first: with two sessions a sweep in the older turn may
// record what its baseline held after the newer turn's capture. Records
// that do not say when keep turn order, as do ties. A path a turn
// passed through (see turn.list) has its pre-image weighed too, as what
// was there before that turn, but gets a goal only where another turn
// changed it for good.
func earliestPres(recs []observedPre) []wanted {
	slices.SortStableFunc(recs, func(a, b observedPre) int { return cmp.Compare(a.at, b.at) })
	var goals []wanted
	seen, made, kept := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, r := range recs {
		if !r.f.passedThrough() {
			kept[r.f.path] = true
		}
	}
	for _, r := range recs {
		f := r.f
		if !seen[f.path] && kept[f.path] {
			seen[f.path] = true
			pre := f.pre
			if made[f.path] {
				// A folder a record observed before this one made: before
				// it, nothing was there, whatever was found later.
				pre = Image{Kind: ImageAbsent}
			}
			goals = append(goals, wanted{path: f.path, img: pre, dirs: f.dirs, badBlob: f.badBlob})
		}
		for _, d := range f.dirs {
			made[d] = true
		}
	}
	return goals
}

// revertChain is one path's records in the turns a revert takes out,
// the one observed last first: those that changed it for good, and
// those of turns that made and removed it while another of them
// observed it (see spansKept); and first, the pre-image observed first
// of them, as a rewind weighs them.
type revertChain struct {
	files []*tfile
	first Image
	// during are the other turns that wrote the path while one of files
	// was being written (see writtenDuring).
	during []string
	// back are such writes reverted already, put back before the
	// chain is taken out.
	back []*tfile
}

// newest is the chain's record sealed last; one never sealed counts as
// the newest, so that a revert of it fails as its own step does.
func (c revertChain) newest() *tfile {
	n := c.files[0]
	for _, f := range c.files {
		if f.post == nil {
			return f
		}
		if f.postSeq > n.postSeq {
			n = f
		}
	}
	return n
}

// revertRecords reads the records of turns (oldest first) a revert takes
// out as a rewind reads them: per path (of only, when not nil) its
// chain, weighed by when each pre-image was observed, and the refused
// entries with why. A path the turns only made and removed has none.
func revertRecords(v *view, turns []string, only map[string]bool) (map[string]revertChain, map[string]string) {
	var recs []observedPre
	kept := map[string][]observedPre{}
	refused := map[string]string{}
	var began int64 // when the turn began, never before an older one
	for _, id := range turns {
		t := v.byID[id]
		began = max(began, t.at)
		for _, f := range t.recordedList() {
			switch {
			case f.refused != "":
				refused[f.path] = f.refused
			case only == nil || only[f.path]:
				r := observedPre{f, f.observed(began)}
				recs = append(recs, r)
				if !f.passedThrough() {
					kept[f.path] = append(kept[f.path], r)
				}
			}
		}
	}
	recs = slices.DeleteFunc(recs, func(r observedPre) bool {
		return r.f.passedThrough() && !spansKept(r, kept[r.f.path])
	})
	out := map[string]revertChain{}
	for _, g := range earliestPres(recs) { // sorts recs by when observed
		out[g.path] = revertChain{first: g.img}
	}
	for i := len(recs) - 1; i >= 0; i-- {
		if ch, ok := out[recs[i].f.path]; ok {
			ch.files = append(ch.files, recs[i].f)
			out[recs[i].f.path] = ch
		}
	}
	return out, refused
}

// spansKept says a record of a path made and removed was observed before
// one of kept, records of the path that changed it for good, and sealed
// after it: that one's pre-image is then what this turn made, and the
// path was missing before both. One sealed before every later
// observation (another session may have made the path since) is left
// out of a revert, as it is of the turn.
func spansKept(pt observedPre, kept []observedPre) bool {
	for _, k := range kept {
		if k.at > pt.at && pt.f.postAt > k.at {
			return true
		}
	}
	return false
}

// writtenDuring adds to each chain the turns not among turns (nor
// rewound) whose record of its path was observed after one of the
// chain's captures and before that record's newest seal, or sealed in
// between: that seal holds the other turn's write too (an edit of
// another session's made while this turn's was under way, or between
// two of this turn's), so the change is not these turns' alone to take
// out. Such a record whose change a revert took out already goes to the
// chain's back instead: with it put back, the chain's seals hold the
// disk's bytes again, and taking the chain out takes out both. Records
// that do not say when they were observed are left as they are. Caller
// holds s.mu.
func writtenDuring(v *view, chains map[string]revertChain, turns []string) {
	mine := set(turns)
	for _, t := range v.turns {
		if mine[t.id] || v.rewound[t.id] || t.seed {
			continue
		}
		t.scan(func(u *tfile) {
			ch, ok := chains[u.path]
			if !ok || u.refused != "" || slices.Contains(ch.during, t.id) {
				return
			}
			for _, f := range ch.files {
				if f.post == nil || f.seen == 0 {
					continue
				}
				seenIn := u.seen > f.seen && u.preSeq < f.postSeq
				sealedIn := u.post != nil && u.postSeq > f.preSeq && u.postSeq < f.postSeq
				if seenIn || sealedIn {
					if u.post != nil && v.revertedPath(t.id, u.path) {
						ch.back = append(ch.back, u)
					} else {
						ch.during = append(ch.during, t.id)
					}
					chains[u.path] = ch
					return
				}
			}
		})
	}
}
