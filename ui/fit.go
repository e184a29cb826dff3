package ui

import (
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/ckpt-dev/ckpt/present"
)

// part is a piece of a title line, joined to the others with " · ". When
// the line is too wide for its pane, the pieces give way, the lightest
// first: each takes its short form (when it has one), then goes (unless
// it is kept), before a heavier one gives way at all; so what matters
// most (a file's status, which versions the diff compares) stays whole
// instead of being cut off at the end.
type part struct {
	text, short string
	weight      int  // higher gives way later; 0 never does
	keep        bool // shortened, never dropped
}

// fitParts joins parts in w columns, giving way as part says, and cuts
// only what still does not fit.
func fitParts(parts []part, w int) string {
	ps := append([]part(nil), parts...)
	join := func() string {
		var b strings.Builder
		for _, p := range ps {
			if p.text == "" {
				continue
			}
			if b.Len() > 0 {
				b.WriteString(" · ")
			}
			b.WriteString(p.text)
		}
		return b.String()
	}
	s := join()
	order := make([]int, 0, len(ps))
	for i := range ps {
		if ps[i].weight > 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return ps[order[a]].weight < ps[order[b]].weight })
	for _, i := range order {
		if ansi.StringWidth(s) <= w {
			break
		}
		if ps[i].short != "" {
			ps[i].text = ps[i].short
			if s = join(); ansi.StringWidth(s) <= w {
				break
			}
		}
		if !ps[i].keep {
			ps[i].text = ""
			s = join()
		}
	}
	return present.Fit(s, w)
}

// wrapLines wraps plain text s to w columns at its spaces (never inside
// a word such as --errors, unless a word alone is wider than the line),
// the lines after the first indented by indent spaces, so prose reads
// whole on a narrow screen.
func wrapLines(s string, w, indent int) []string {
	var lines []string
	var cur strings.Builder
	curW, limit, started := 0, max(w, 1), false
	flush := func() {
		lines = append(lines, cur.String())
		cur.Reset()
		curW, limit, started = 0, max(w-indent, 1), false
	}
	for _, word := range strings.Split(s, " ") {
		ww := ansi.StringWidth(word)
		if started && curW+1+ww > limit {
			flush()
		}
		for ww > limit && !started { // a word wider than a line: cut it
			head := ansi.Truncate(word, limit, "")
			cur.WriteString(head)
			word = strings.TrimPrefix(word, head)
			ww = ansi.StringWidth(word)
			flush()
		}
		if started { // the space between this word and the last
			cur.WriteByte(' ')
			curW++
		}
		cur.WriteString(word)
		curW += ww
		started = true
	}
	if started || len(lines) == 0 {
		lines = append(lines, cur.String())
	}
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.Repeat(" ", indent) + lines[i]
	}
	return lines
}
