package diffview

import (
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// span is a byte range of a row's raw text drawn in a class of its own.
type span struct {
	from, to int
	class    uint8
}

// Span classes, in rising precedence.
const (
	classPlain uint8 = iota
	classWord        // a word that changed within a changed line
	classMatch       // a search match
)

// Bounds of the word diff: longer lines, or lines with too little in
// common, are shown changed as a whole (as delta and lazygit do).
const (
	maxWordLine  = 2000
	wordTimeout  = 20 * time.Millisecond
	minCommonPct = 35
)

// wordCache holds the changed-word spans of the rows drawn so far. A Diff
// is shared between goroutines, hence the lock; the spans are worked out
// only for rows that are drawn, so Compute stays linear in the lines.
type wordCache struct {
	mu sync.Mutex
	m  map[int][]span
}

// words returns the spans of the words that changed in unified row at,
// against the line it replaces (or is replaced by).
func (d *Diff) words(at int) []span {
	if at < 0 || at >= len(d.rows) || d.rows[at].mate == 0 {
		return nil
	}
	c := &d.wordc
	c.mu.Lock()
	defer c.mu.Unlock()
	if sp, ok := c.m[at]; ok {
		return sp
	}
	if c.m == nil {
		c.m = map[int][]span{}
	}
	mate := d.rows[at].mate - 1
	a, b := d.rows[at], d.rows[mate]
	if a.Kind == RowAdd {
		a, b = b, a
	}
	da, db := wordSpans(a.Text, b.Text)
	c.m[a.at], c.m[b.at] = da, db
	return c.m[at]
}

// wordSpans diffs two lines by words and says which bytes of each
// changed. It returns nil for both when the lines share too little for
// the highlight to help.
func wordSpans(a, b string) ([]span, []span) {
	if len(a) > maxWordLine || len(b) > maxWordLine || a == b {
		return nil, nil
	}
	ta, tb := tokens(a), tokens(b)
	ids := map[string]rune{}
	enc := func(ts []string) string {
		var sb strings.Builder
		for _, t := range ts {
			r, ok := ids[t]
			if !ok {
				r = rune(0xF0000 + len(ids)) // a private-use plane: never in the tokens
				ids[t] = r
			}
			sb.WriteRune(r)
		}
		return sb.String()
	}
	ca, cb := enc(ta), enc(tb)
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = wordTimeout
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMain(ca, cb, false))
	var sa, sb []span
	ia, ib, common := 0, 0, 0 // token indexes, bytes in common
	offA, offB := 0, 0
	for _, df := range diffs {
		n := utf8.RuneCountInString(df.Text)
		switch df.Type {
		case diffmatchpatch.DiffEqual:
			for k := 0; k < n; k++ {
				offA += len(ta[ia])
				offB += len(tb[ib])
				if strings.TrimSpace(ta[ia]) != "" {
					common += len(ta[ia])
				}
				ia++
				ib++
			}
		case diffmatchpatch.DiffDelete:
			start := offA
			for k := 0; k < n; k++ {
				offA += len(ta[ia])
				ia++
			}
			sa = appendSpan(sa, start, offA)
		case diffmatchpatch.DiffInsert:
			start := offB
			for k := 0; k < n; k++ {
				offB += len(tb[ib])
				ib++
			}
			sb = appendSpan(sb, start, offB)
		}
	}
	short := min(len(strings.TrimSpace(a)), len(strings.TrimSpace(b)))
	if short == 0 || common*100 < short*minCommonPct {
		return nil, nil
	}
	return sa, sb
}

func appendSpan(s []span, from, to int) []span {
	if from >= to {
		return s
	}
	if n := len(s); n > 0 && s[n-1].to == from {
		s[n-1].to = to
		return s
	}
	return append(s, span{from: from, to: to, class: classWord})
}

// tokens splits a line into words (letters, digits, _), runs of spaces,
// and single other characters. Joined, they give the line back.
func tokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		j := i + n
		switch {
		case isWord(r):
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !isWord(r2) {
					break
				}
				j += n2
			}
		case r == ' ' || r == '\t':
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// matchSpans finds q in s. The search ignores ASCII case unless q holds an
// upper-case letter.
func matchSpans(s, q string) []span {
	if q == "" {
		return nil
	}
	if !hasUpper(q) {
		s, q = lowerASCII(s), lowerASCII(q)
	}
	var out []span
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], q)
		if j < 0 {
			break
		}
		out = append(out, span{from: i + j, to: i + j + len(q), class: classMatch})
		i += j + len(q)
	}
	return out
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// lowerASCII lowers ASCII letters only, so byte offsets stay the same.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Find returns the rows of layout l whose text holds q, in order (see
// matchSpans for case). Headers and notes are not searched.
func (d *Diff) Find(q string, l Layout) []int {
	if q == "" {
		return nil
	}
	hit := func(r Row) bool {
		switch r.Kind {
		case RowContext, RowAdd, RowDel:
			return len(matchSpans(r.Text, q)) > 0
		}
		return false
	}
	var out []int
	if l == SideBySide {
		for i, p := range d.pairs {
			if hit(p.Left) || hit(p.Right) {
				out = append(out, i)
			}
		}
		return out
	}
	for i, r := range d.rows {
		if hit(r) {
			out = append(out, i)
		}
	}
	return out
}

// LineNumbers returns the old and new line numbers of row i of layout l,
// or of the first row after it that has them (a hunk header gives its
// first line); 0 where a side has none.
func (d *Diff) LineNumbers(i int, l Layout) (old, new int) {
	for ; i >= 0 && i < d.Len(l); i++ {
		var r Row
		if l == SideBySide {
			p := d.pairs[i]
			r = p.Left
			if r.Old == 0 && r.New == 0 {
				r = p.Right
			}
		} else {
			r = d.rows[i]
		}
		if r.Old != 0 || r.New != 0 {
			return r.Old, r.New
		}
	}
	return 0, 0
}

// ChangedLine is the line of the new side where the first change among
// rows [from, to) of layout l stands: an added line's number, or for a
// removed line the number of the new side's next line (where the removal
// is). 0 when those rows change nothing.
func (d *Diff) ChangedLine(from, to int, l Layout) int {
	for i := max(from, 0); i < min(to, d.Len(l)); i++ {
		var changed bool
		var added Row
		if l == SideBySide {
			p := d.pairs[i]
			changed = p.Left.Kind == RowDel || p.Right.Kind == RowAdd
			added = p.Right
		} else {
			r := d.rows[i]
			changed = r.Kind == RowDel || r.Kind == RowAdd
			added = r
		}
		if !changed {
			continue
		}
		if added.Kind == RowAdd && added.New > 0 {
			return added.New
		}
		// A removal: the new side's next line number.
		for j := i; j < d.Len(l); j++ {
			if _, n := d.LineNumbers(j, l); n > 0 {
				return n
			}
		}
		return 1
	}
	return 0
}

// Longest is the length in bytes of the diff's longest line: how far a
// viewer may scroll sideways.
func (d *Diff) Longest() int { return d.longest }

// Prepare works out the changed words of the first n rows ahead of
// drawing, so a viewer can pay for them off its UI goroutine; rows not
// prepared are worked out when first drawn.
func (d *Diff) Prepare(n int) {
	for i := 0; i < min(n, len(d.rows)); i++ {
		d.words(i)
	}
}
