package store

// TakenOut maps each turn of a log to the operation in effect that took
// its changes out of the folder: Rewound to the newest rewind, or redo of
// one, still active whose turns include it; Reverted likewise for a
// revert, or a redo of one. A redo whose target the log does not hold
// counts as both (the turn's state tells which it was). A turn no such
// operation names (an active turn) is in neither.
type TakenOut struct {
	Rewound, Reverted map[string]string
}

// TakenOutBy walks a log (entries newest first, as Log gives them) once
// and maps every turn its operations in effect took out, so a caller
// that asks of many turns (the UI, for every row) walks it only once.
func TakenOutBy(entries []Entry) TakenOut {
	out := TakenOut{Rewound: map[string]string{}, Reverted: map[string]string{}}
	kinds := map[string]Kind{} // the rewinds and reverts of the log
	for i := range entries {
		if k := entries[i].Kind; k == KindRewind || k == KindRevert {
			kinds[entries[i].ID] = k
		}
	}
	add := func(into map[string]string, e *Entry) {
		for _, t := range e.Turns {
			if _, ok := into[t]; !ok {
				into[t] = e.ID // the newest wins: the log is newest first
			}
		}
	}
	// settled: the rewinds and reverts whose newest undo or redo (or
	// themselves) is behind: an undo takes back its redo, which stays
	// active in the log, as every undo and redo does.
	settled := map[string]bool{}
	for i := range entries {
		e := &entries[i]
		if e.State != StateActive {
			continue
		}
		root := e.ID
		switch e.Kind {
		case KindUndo, KindRedo:
			root = e.Target
		case KindRewind, KindRevert:
		default:
			continue
		}
		if settled[root] {
			continue
		}
		settled[root] = true
		if e.Kind == KindUndo {
			continue
		}
		kind := e.Kind
		if kind == KindRedo {
			kind = kinds[e.Target]
		}
		if kind != KindRevert {
			add(out.Rewound, e) // a rewind, or a redo of one (or of what the log lacks)
		}
		if kind != KindRewind {
			add(out.Reverted, e)
		}
	}
	return out
}

// RewoundBy is the operation of a log (entries newest first, as Log gives
// them) that put turn's rewind in effect: the newest rewind, or redo of
// one, still active whose turns include it. A redo of a revert rewinds
// nothing: it takes changes out again, as the revert did. It is "" for a
// turn no such operation names (an active turn).
func RewoundBy(entries []Entry, turn string) string {
	return TakenOutBy(entries).Rewound[turn]
}
