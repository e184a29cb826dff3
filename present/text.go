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
		case isHidden(r) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
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

// isHidden is a rune that changes how other text is drawn, or that draws
// nothing at all, so one name could pass for another: C1 controls, the
// bidirectional embedding, override, isolate and direction marks, and the
// zero-width and invisible characters (zero-width space, joiners, word
// joiner, invisible operators, the byte-order mark, the soft hyphen, the
// combining grapheme joiner, the Hangul fillers and the tag characters).
func isHidden(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f,
		r >= 0x202a && r <= 0x202e,
		r >= 0x2066 && r <= 0x2069,
		r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r >= 0x200b && r <= 0x200d,
		r >= 0x2060 && r <= 0x2064,
		r == 0xfeff, r == 0x00ad, r == 0x180e, r == 0x034f,
		r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0,
		r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return false
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
