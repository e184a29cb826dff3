package ui

import (
	"slices"

	"github.com/ckpt-dev/ckpt/store"
)

// undoState is what u and ctrl+r can act on, read from the log as the
// store's undo and redo stacks are: a rewind or a revert goes on the undo
// stack and empties the redo stack, an undo moves the newest off it onto
// the redo stack, a redo moves it back. An operation that changed nothing
// (failed) is on neither, and an undo or a redo that left paths failed
// can be run again to retry them.
type undoState struct {
	// row is the id of the log row that says "u to undo": the operation
	// that put in effect the rewind (or revert) u would undo.
	row        string
	undo, redo bool // u (ctrl+r) has something to act on
}

// undoStacks walks the log (newest first, as Log gives it) oldest first.
func undoStacks(entries []store.Entry) undoState {
	var undo, redo []string
	by := map[string]string{} // rewind or revert → the row that put it in effect
	var retry *store.Entry    // the last undo or redo, whose failed paths it retries
	drop := func(stack []string, id string) []string {
		if i := slices.Index(stack, id); i >= 0 {
			return slices.Delete(stack, i, i+1)
		}
		return stack
	}
	for i := len(entries) - 1; i >= 0; i-- {
		e := &entries[i]
		if e.Kind == store.KindAgent || e.State == store.StateFailed {
			continue // a turn, or an operation that changed nothing
		}
		switch {
		case e.Kind == store.KindRewind || e.Kind == store.KindRevert:
			undo = append(undo, e.ID)
			by[e.ID] = e.ID
			redo, retry = nil, nil
		case e.Retry != "":
			retry = e // a retry of an undo or a redo: the stacks stay
		case e.Kind == store.KindUndo:
			undo = drop(undo, e.Target)
			redo = append(drop(redo, e.Target), e.Target)
			retry = e
		case e.Kind == store.KindRedo:
			redo = drop(redo, e.Target)
			undo = append(drop(undo, e.Target), e.Target)
			by[e.Target] = e.ID
			retry = e
		}
	}
	var st undoState
	if n := len(undo); n > 0 {
		st.row = by[undo[n-1]]
	}
	failed := retry != nil && len(retry.Failed) > 0
	st.undo = len(undo) > 0 || failed && retry.Kind == store.KindUndo
	st.redo = len(redo) > 0 || failed && retry.Kind == store.KindRedo
	return st
}
