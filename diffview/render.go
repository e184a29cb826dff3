package diffview

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ckpt-dev/ckpt/present"
)

// Layout is how a diff is drawn.
type Layout uint8

// Layouts.
const (
	Unified    Layout = iota // one column, old and new line numbers side by side
	SideBySide               // old on the left, new on the right
)

// TabWidth is the number of columns a tab stop spans.
const TabWidth = 4

// Styles colours a diff. The zero value draws plain text.
type Styles struct {
	Context lipgloss.Style
	Add     lipgloss.Style
	Del     lipgloss.Style
	Hunk    lipgloss.Style
	Note    lipgloss.Style
	LineNo  lipgloss.Style
	Sep     lipgloss.Style
	// AddWord and DelWord mark the words that changed within a changed
	// line; Match marks search matches.
	AddWord lipgloss.Style
	DelWord lipgloss.Style
	Match   lipgloss.Style
	// Kept draws the lines of a kept hunk (Keep).
	Kept lipgloss.Style
}

// View is how a row is drawn beyond its width: scrolled sideways, with
// search matches marked.
type View struct {
	Left int    // cells of text scrolled out on the left
	Find string // marked wherever it occurs (see Find for case)
}

// DefaultStyles are the colours ckpt uses. Every row also carries a sign
// (+, -, space) or a header, so the diff reads without colour.
func DefaultStyles() Styles {
	return Styles{
		Add:    lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		Del:    lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
		Hunk:   lipgloss.NewStyle().Foreground(lipgloss.Color("6")).Bold(true),
		Note:   lipgloss.NewStyle().Italic(true),
		LineNo: lipgloss.NewStyle().Faint(true),
		Sep:    lipgloss.NewStyle().Faint(true),
		// Reverse video reads on light and dark terminals, and without
		// colour too.
		AddWord: lipgloss.NewStyle().Foreground(lipgloss.Color("2")).Reverse(true),
		DelWord: lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Reverse(true),
		Match:   lipgloss.NewStyle().Bold(true).Underline(true).Reverse(true),
		Kept:    lipgloss.NewStyle().Faint(true),
	}
}

// Len is the number of rows the diff has in layout l.
func (d *Diff) Len(l Layout) int {
	if l == SideBySide {
		return len(d.pairs)
	}
	return len(d.rows)
}

// Hunks returns the row index of each hunk header in layout l, in order.
// The slice is shared: do not change it.
func (d *Diff) Hunks(l Layout) []int {
	if l == SideBySide {
		return d.pairHunks
	}
	return d.hunks
}

// Rows returns the unified rows. The slice is shared: do not change it.
func (d *Diff) Rows() []Row { return d.rows }

// Render draws every row of the diff, each exactly width cells wide.
func (d *Diff) Render(width int, l Layout, st Styles) []string {
	out := make([]string, d.Len(l))
	for i := range out {
		out[i] = d.Line(i, width, l, st)
	}
	return out
}

// Line draws row i in layout l, exactly width cells wide (padded with
// spaces, or cut with "…"). Text is escaped: a file's bytes cannot reach
// the terminal as control sequences.
func (d *Diff) Line(i, width int, l Layout, st Styles) string {
	return d.LineView(i, width, l, st, View{})
}

// LineView is Line scrolled sideways and with search matches marked. Line
// numbers and signs stay in place; the text scrolls.
func (d *Diff) LineView(i, width int, l Layout, st Styles, v View) string {
	if width <= 0 || i < 0 || i >= d.Len(l) {
		return ""
	}
	if l == SideBySide {
		p := d.pairs[i]
		if p.Left.Kind == RowHunk || (p.Left.Kind == RowNote && p.Left.Text != "") {
			return d.full(p.Left, width, st)
		}
		lw := (width - 1) / 2
		rw := width - 1 - lw
		if lw <= 0 {
			return d.half(p.Right, width, st, false, v)
		}
		return d.half(p.Left, lw, st, true, v) + st.Sep.Render("│") + d.half(p.Right, rw, st, false, v)
	}
	r := d.rows[i]
	switch r.Kind {
	case RowHunk, RowNote:
		return d.full(r, width, st)
	}
	nums := pad(num(r.Old), d.numWidth) + " " + pad(num(r.New), d.numWidth) + " "
	return d.body(nums, r, width, st, v)
}

// full draws a header or note across the whole width.
func (d *Diff) full(r Row, width int, st Styles) string {
	s := present.Fit(clean(r.Text), width)
	if r.Kind == RowHunk {
		return st.Hunk.Render(s)
	}
	return st.Note.Render(s)
}

// half draws one side of a side-by-side row.
func (d *Diff) half(r Row, width int, st Styles, left bool, v View) string {
	if r.Kind == RowNote && r.Text == "" {
		return strings.Repeat(" ", width)
	}
	n := r.New
	if left {
		n = r.Old
	}
	return d.body(pad(num(n), d.numWidth)+" ", r, width, st, v)
}

// maxDrawn is how much of a line is drawn at most, so a minified file's
// megabyte line costs no more than a screenful.
const maxDrawn = 16 << 10

// body draws line numbers, a sign and the text, scrolled by v.Left and
// cut to width.
func (d *Diff) body(nums string, r Row, width int, st Styles, v View) string {
	nw := ansi.StringWidth(nums)
	if nw >= width {
		return st.LineNo.Render(present.Fit(nums, width))
	}
	sign, style, word := "  ", st.Context, st.Context
	switch r.Kind {
	case RowAdd:
		sign, style, word = "+ ", st.Add, st.AddWord
	case RowDel:
		sign, style, word = "- ", st.Del, st.DelWord
	case RowNoEOL:
		sign, style = "", st.Note
	case RowKept:
		sign, style, word = "k ", st.Kept, st.Kept
	}
	room := width - nw
	if room <= len(sign) {
		return st.LineNo.Render(nums) + style.Render(present.Fit(sign, room))
	}
	text := r.Text
	if len(text) > maxDrawn {
		text = text[:maxDrawn]
	}
	var spans []span
	if r.Kind != RowNoEOL {
		spans = append(d.words(r.at), matchSpans(text, v.Find)...)
	}
	var b strings.Builder
	col := 0
	for _, pc := range pieces(text, spans) {
		t := expand(pc.text, &col)
		switch pc.class {
		case classWord:
			b.WriteString(word.Render(t))
		case classMatch:
			b.WriteString(st.Match.Render(t))
		default:
			b.WriteString(style.Render(t))
		}
	}
	line := b.String()
	tw := room - len(sign)
	if v.Left > 0 {
		line = ansi.TruncateLeft(line, v.Left, "")
	}
	if ansi.StringWidth(line) > tw {
		line = ansi.Truncate(line, tw, "…")
	}
	if w := ansi.StringWidth(line); w < tw {
		line += strings.Repeat(" ", tw-w)
	}
	return st.LineNo.Render(nums) + style.Render(sign) + line
}

// piece is a run of a line's raw text in one span class.
type piece struct {
	text  string
	class uint8
}

// pieces cuts s into runs of one class; where spans overlap, the higher
// class wins (a search match over a changed word).
func pieces(s string, spans []span) []piece {
	if len(spans) == 0 {
		return []piece{{text: s}}
	}
	class := make([]uint8, len(s))
	for _, sp := range spans {
		for i := max(sp.from, 0); i < min(sp.to, len(s)); i++ {
			class[i] = max(class[i], sp.class)
		}
	}
	var out []piece
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && class[j] == class[i] {
			j++
		}
		out = append(out, piece{text: s[i:j], class: class[i]})
		i = j
	}
	return out
}

// expand escapes s and turns its tabs into spaces, counting columns from
// *col, which it moves on.
func expand(s string, col *int) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '\t')
		seg := s
		if i >= 0 {
			seg = s[:i]
		}
		e := present.Escape(seg)
		b.WriteString(e)
		*col += ansi.StringWidth(e)
		if i < 0 {
			return b.String()
		}
		n := TabWidth - *col%TabWidth
		b.WriteString(strings.Repeat(" ", n))
		*col += n
		s = s[i+1:]
	}
}

// clean expands tabs and escapes what the terminal would act on.
func clean(s string) string {
	if strings.IndexByte(s, '\t') >= 0 {
		var b strings.Builder
		col := 0
		for {
			i := strings.IndexByte(s, '\t')
			if i < 0 {
				break
			}
			seg := present.Escape(s[:i])
			b.WriteString(seg)
			col += ansi.StringWidth(seg)
			n := TabWidth - col%TabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
			s = s[i+1:]
		}
		b.WriteString(present.Escape(s))
		return b.String()
	}
	return present.Escape(s)
}

func num(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func pad(s string, width int) string {
	if len(s) >= width {
		return s
	}
	return strings.Repeat(" ", width-len(s)) + s
}
