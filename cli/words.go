package cli

import (
	"strings"

	"github.com/ckpt-dev/ckpt/present"
)

// atLayout is CONTRACT.md's fixed time layout: the strings sort as the times do.
const atLayout = "2006-01-02T15:04:05.000000000Z"

// esc escapes control characters, so a label, a path or a file's bytes
// cannot move the cursor or paint the terminal.
var esc = present.Escape

// escLines is esc for a message of several lines (errors.Join's): each
// line is escaped, and the line breaks stay.
func escLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = esc(l)
	}
	return strings.Join(lines, "\n")
}
