package store

import "slices"

// RewoundBy is the operation of a log (entries newest first, as Log gives
// them) that put turn's rewind in effect: the newest rewind or redo still
// active whose turns include it. It is "" for a turn no such operation
// names (an active turn).
func RewoundBy(entries []Entry, turn string) string {
	for _, e := range entries {
		if (e.Kind == KindRewind || e.Kind == KindRedo) && e.State == StateActive && slices.Contains(e.Turns, turn) {
			return e.ID
		}
	}
	return ""
}
