package main

import (
	"fmt"
	"time"

	"ckpt/diffview"
	"ckpt/store"
)

// atLayout is CONTRACT.md's fixed time layout: the strings sort as the times do.
const atLayout = "2006-01-02T15:04:05.000000000Z"

// esc escapes control characters, so a label, a path or a file's bytes
// cannot move the cursor or paint the terminal.
var esc = diffview.Escape

// ago says how long ago t was, in the largest whole unit.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// count says n of a noun, "1 file", "2 files".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

var statusLetter = map[store.Status]string{
	store.StatusModified: "M", store.StatusCreated: "A", store.StatusDeleted: "D",
	store.StatusUnchanged: "=", store.StatusHandEdited: "!", store.StatusSkipped: "S",
	store.StatusMissingBlob: "?", store.StatusRefused: "X", store.StatusFailed: "F",
}
