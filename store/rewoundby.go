package store

import "slices"

// RewoundBy is the operation of a log (entries newest first, as Log gives
// them) that put turn's rewind in effect: the newest rewind, or redo of
// one, still active whose turns include it. A redo of a revert rewinds
// nothing: it takes changes out again, as the revert did. It is "" for a
// turn no such operation names (an active turn).
func RewoundBy(entries []Entry, turn string) string {
	var reverts map[string]bool // the reverts the log holds, by id
	for _, e := range entries {
		if e.Kind == KindRevert {
			if reverts == nil {
				reverts = map[string]bool{}
			}
			reverts[e.ID] = true
		}
	}
	for _, e := range entries {
		if e.State != StateActive || !slices.Contains(e.Turns, turn) {
			continue
		}
		if e.Kind == KindRewind || e.Kind == KindRedo && !reverts[e.Target] {
			return e.ID
		}
	}
	return ""
}
