package present

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Escape makes s safe to print: control characters (C0, DEL, C1), Unicode
// direction overrides and bytes that are not UTF-8 become visible escapes
// such as \x1b, \n and \u202e, so a label, a path or a file's line cannot
// move the cursor or paint the terminal. Everything else is kept.
func Escape(s string) string {
	if safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			i++
			continue
		}
		i += n
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case isHidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// safe reports whether s needs no escaping, without allocating.
func safe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c >= 0x80 {
			if c < 0x80 {
				return false
			}
			// Non-ASCII: check properly.
			for _, r := range s[i:] {
				if r == utf8.RuneError || r < 0x20 || r == 0x7f || isHidden(r) {
					return false
				}
			}
			return utf8.ValidString(s[i:])
		}
	}
	return true
}

// isHidden is a rune that changes how other text is drawn: C1 controls
// and the bidirectional embedding, override and isolate marks.
func isHidden(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) ||
		(r >= 0x202a && r <= 0x202e) ||
		(r >= 0x2066 && r <= 0x2069) ||
		r == 0x200e || r == 0x200f || r == 0x061c
}

// Fit cuts plain text s to width cells (ending it with "…"), or pads it
// with spaces to width; widths are measured in cells, never bytes.
func Fit(s string, width int) string {
	if width <= 0 {
		return ""
	}
	w := ansi.StringWidth(s)
	if w > width {
		s = ansi.Truncate(s, width, "…")
		w = ansi.StringWidth(s)
	}
	if w < width {
		s += strings.Repeat(" ", width-w)
	}
	return s
}

// FitLeft is Fit that cuts from the left ("…" first), so the end of the
// text — a path's file name — stays in view.
func FitLeft(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if w := ansi.StringWidth(s); w > width {
		s = ansi.TruncateLeft(s, w-width+1, "…")
	}
	return Fit(s, width)
}
