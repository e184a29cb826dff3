package store

import "slices"

// RewoundBy is the operation of a log (entries newest first, as Log gives
// them) that put turn's rewind in effect: the newest rewind, or redo of a
// rewind, still active whose turns include it. It is "" for a turn no such
// operation names (an active turn, or one a revert or its redo took out).
func RewoundBy(entries []Entry, turn string) string {
	kind := make(map[string]Kind, len(entries))
	for _, e := range entries {
		kind[e.ID] = e.Kind
	}
	for _, e := range entries {
		rewinds := e.Kind == KindRewind || e.Kind == KindRedo && kind[e.Target] == KindRewind
		if rewinds && e.State == StateActive && slices.Contains(e.Turns, turn) {
			return e.ID
		}
	}
	return ""
}
