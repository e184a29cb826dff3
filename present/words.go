package present

import (
	"fmt"
	"time"
)

// Bytes formats a size for people: 512 B, 6.0 KiB, 9.0 MiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// Warning says one of a plan's warnings (store.Warning, by its fields:
// kind is its WarningKind's string value): "head-moved", git HEAD went
// from one commit to another since turn; "in-flight", turn captured path
// and has not sealed it; "git-index", git's index cannot be given back,
// path saying why.
func Warning(kind, turn, path, from, to string) string {
	switch kind {
	case "head-moved":
		return fmt.Sprintf("git HEAD moved since turn %s (%s → %s)", turn, shortHash(from), shortHash(to))
	case "in-flight":
		return fmt.Sprintf("turn %s captured %s but has not sealed it: the agent may be writing right now", turn, path)
	case "git-index":
		return "git's index is not given back: " + path
	}
	return fmt.Sprintf("%s (turn %s)", kind, turn)
}

// shortHash is the first 8 hex digits of a commit, as git shows it short.
func shortHash(sha string) string {
	if len(sha) > 8 {
		return sha[:8]
	}
	return sha
}

// Count says n of a noun with a plural s when n is not 1: "1 file",
// "0 files", "3 turns".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Age is how long ago t was, short: 40s, 5m, 3h, 2d; past two weeks, the
// date (Jan 2). A zero time is "?".
func Age(now, t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 14*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
	return t.Local().Format("Jan 2")
}

// AgeWidth is the width of Age(now, t) in columns, worked out without
// formatting it: a screen that aligns every row's age asks it of each.
func AgeWidth(now, t time.Time) int {
	if t.IsZero() {
		return 1
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return digits(max(int(d.Seconds()), 0)) + 1
	case d < time.Hour:
		return digits(int(d.Minutes())) + 1
	case d < 48*time.Hour:
		return digits(int(d.Hours())) + 1
	case d < 14*24*time.Hour:
		return digits(int(d.Hours()/24)) + 1
	}
	return 4 + digits(t.Local().Day()) // "Jan 2"
}

// MaxAgeWidth is the widest AgeWidth can be ("Jan 12").
const MaxAgeWidth = 6

func digits(n int) int {
	k := 1
	for ; n >= 10; n /= 10 {
		k++
	}
	return k
}

// AgeChange is how long until Age(now, t) next reads differently: until
// t's age reaches its next whole second, minute, hour or day. ok is false
// when it never will (a zero time, or a date shown past two weeks).
func AgeChange(now, t time.Time) (next time.Duration, ok bool) {
	if t.IsZero() {
		return 0, false
	}
	d := now.Sub(t)
	var unit time.Duration
	switch {
	case d < 0:
		return time.Second - d, true // "0s" until it is a second old
	case d < time.Minute:
		unit = time.Second
	case d < time.Hour:
		unit = time.Minute
	case d < 48*time.Hour:
		unit = time.Hour
	case d < 14*24*time.Hour:
		unit = 24 * time.Hour
	default:
		return 0, false
	}
	return unit - d%unit, true
}

// Ago is Age as a phrase: "5m ago", or the date past two weeks.
func Ago(now, t time.Time) string {
	a := Age(now, t)
	if t.IsZero() || now.Sub(t) >= 14*24*time.Hour {
		return a
	}
	return a + " ago"
}

// Status values, as the store names them (CONTRACT.md's show --json), and
// the ones only an operation's report knows.
const (
	statusSkipped     = "skipped"
	statusMissingBlob = "missing_blob"
	statusHandEdited  = "hand_edited"
	statusCreated     = "created"
	statusDeleted     = "deleted"
	statusModified    = "modified"
	statusUnchanged   = "unchanged"
	statusRefused     = "refused"
	statusFailed      = "failed"
	statusWriting     = "writing" // captured and not sealed yet: the agent is writing it
	statusPurged      = "purged"  // its kept bytes were removed by ckpt purge
)

// ChangedSinceAgent is how a path whose bytes differ from what the agent
// left is described: never "by hand", since an editor or a shell command
// ckpt did not see may have changed it.
const ChangedSinceAgent = "changed since the agent wrote it"

// StatusLetter is the one-character mark of a file status: M modified,
// A created, D deleted, = unchanged, ! changed since the agent wrote it,
// S skipped, P purged, ? kept bytes missing, ~ being written, X refused
// or failed; "·" when not known.
func StatusLetter[S ~string](s S) string {
	switch string(s) {
	case statusWriting:
		return "~"
	case statusModified:
		return "M"
	case statusCreated:
		return "A"
	case statusDeleted:
		return "D"
	case statusUnchanged:
		return "="
	case statusHandEdited:
		return "!"
	case statusSkipped:
		return "S"
	case statusPurged:
		return "P"
	case statusMissingBlob:
		return "?"
	case "":
		return "·"
	}
	return "X"
}

// StatusWord is a file status in words, for a line with room for them.
func StatusWord[S ~string](s S) string {
	switch string(s) {
	case statusModified, statusCreated, statusDeleted, statusUnchanged, statusFailed:
		return string(s)
	case statusHandEdited:
		return ChangedSinceAgent
	case statusSkipped:
		return "skipped (too large to keep)"
	case statusPurged:
		return "purged from the store (ckpt purge)"
	case statusMissingBlob:
		return "kept bytes missing or damaged"
	case statusRefused:
		return "refused (outside the project)"
	case statusWriting:
		return "being written by the agent"
	case "":
		return "checking…"
	}
	return Escape(string(s))
}

// StatusShort is a status in one or two words, for a narrow column.
func StatusShort[S ~string](s S) string {
	switch string(s) {
	case statusHandEdited:
		return "changed since agent"
	case statusSkipped:
		return "skipped"
	case statusPurged:
		return "purged"
	case statusMissingBlob:
		return "blob missing"
	case statusRefused:
		return "refused"
	}
	return StatusWord(s)
}

// OpTitle names an operation for a heading or a question: "Rewind to
// before turn 3", "Undo op-4", "Redo op-4". kind is the store's kind
// ("rewind", "undo", "redo"); target the turn or operation it acts on.
func OpTitle[K ~string](kind K, target string) string {
	switch string(kind) {
	case "undo":
		return "Undo " + Escape(target)
	case "redo":
		return "Redo " + Escape(target)
	case "revert":
		if target == "" {
			return "Revert the session's turns"
		}
		return "Revert turn " + Escape(target) + " alone"
	}
	return "Rewind to before turn " + Escape(target)
}

// RevertWhat names what a revert takes out, escaped: "turn 3", or for a
// session's turns "session S's turns" ("session S's turn" for one).
func RevertWhat(target, session string, turns int) string {
	if session == "" {
		return "turn " + Escape(target)
	}
	if turns == 1 {
		return "session " + Escape(session) + "'s turn"
	}
	return "session " + Escape(session) + "'s turns"
}

// OpSummary is an operation in the log: "rewound 2 turns · 3 files",
// "undid op-4 · 1 file".
func OpSummary[K ~string](kind K, target string, turns, files int) string {
	switch string(kind) {
	case "rewind":
		return fmt.Sprintf("rewound %s · %s", Count(turns, "turn"), Count(files, "file"))
	case "undo":
		return fmt.Sprintf("undid %s · %s", Escape(target), Count(files, "file"))
	case "redo":
		return fmt.Sprintf("redid %s · %s", Escape(target), Count(files, "file"))
	case "revert":
		if target == "" {
			return fmt.Sprintf("reverted %s · %s", Count(turns, "turn"), Count(files, "file"))
		}
		return fmt.Sprintf("reverted turn %s · %s", Escape(target), Count(files, "file"))
	}
	return Escape(string(kind))
}
