package present

import "strings"

// UndoneName names the operation an undo or redo acts on, escaped: "the
// rewind to before turn 3", "the revert of turn 3", "the revert of the
// session's 2 turns", "the retry of op-1" (an operation that tried again
// what op-1 could not put back). kind is its store kind ("rewind",
// "revert"), target the turn it named, retry what it retried ("" for a
// whole operation); "" for any other kind.
func UndoneName(kind, target, retry string, turns int) string {
	switch {
	case retry != "" && (kind == "rewind" || kind == "revert"):
		return "the retry of " + Escape(retry)
	case kind == "rewind":
		return "the rewind to before turn " + Escape(target)
	case kind == "revert" && target == "":
		return "the revert of the session's " + Count(turns, "turn")
	case kind == "revert":
		return "the revert of turn " + Escape(target)
	}
	return ""
}

// UndoVerb says what an undo or redo (op) of an operation of kind undone
// does to its turns (escaped ids), for a plan's heading: an undo of a
// rewind brings them back; of a revert, it puts their changes back and
// keeps every later change; of a retry (retry names what it retried), it
// puts the paths the retry put right back as that operation left them,
// which stays in effect. A redo does the operation again. An undone kind
// not known reads as a rewind's.
func UndoVerb(op, undone, retry string, turns []string) string {
	ids := strings.Join(turns, ", ")
	which := "turns " + ids
	if len(turns) == 1 {
		which = "turn " + ids
	}
	redo := op == "redo"
	switch {
	case retry != "" && redo:
		return "retries again what " + Escape(retry) + " could not put back"
	case retry != "":
		return "puts the paths it retried back as " + Escape(retry) + " left them; " + Escape(retry) + " stays in effect"
	case undone == "revert" && redo:
		return "takes out the changes of " + which + " again, keeping every later change"
	case undone == "revert":
		return "puts back the changes of " + which + ", keeping every later change"
	case redo:
		return "undoes " + which + " again"
	}
	return "brings back " + which
}
