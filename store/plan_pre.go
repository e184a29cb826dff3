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
