// Package diffview turns two versions of a file into a diff ready to draw:
// unified or side by side, with line numbers on both sides and hunk headers.
// It is pure rendering — bytes in, styled lines out — and knows nothing of
// the store or of the terminal program that shows it.
//
// Computing a diff (Compute) is the expensive part and is meant to run off
// the UI goroutine; the result is immutable and safe to share. Drawing a row
// (Line) is cheap, so a viewer draws only the rows on screen.
package diffview

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/ckpt-dev/ckpt/present"
)

// DefaultMaxBytes is the size above which a side is summarised, not diffed.
const DefaultMaxBytes = 8 << 20

// DefaultContext is the number of unchanged lines shown around a change.
const DefaultContext = 3

// Options tunes Compute.
type Options struct {
	// Context is the number of unchanged lines around each change;
	// 0 means DefaultContext, a negative value means none.
	Context int
	// MaxBytes is the size limit of either side; 0 means DefaultMaxBytes.
	MaxBytes int64
	// Timeout bounds the search for the smallest diff; 0 means
	// DefaultTimeout. Past it the rest of the files is shown as lines
	// deleted and lines added: still a correct diff, only not the
	// smallest. Small and scattered edits finish long before it.
	Timeout time.Duration
}

// DefaultTimeout is how long Compute looks for the smallest diff. An
// exact diff of a 60,000-line file whose every line changed takes tens of
// seconds; with this bound it takes a fraction of one.
const DefaultTimeout = 200 * time.Millisecond

// RowKind says what a row of a diff shows.
type RowKind uint8

// Row kinds.
const (
	RowContext RowKind = iota // a line both sides share
	RowDel                    // a line only the old side has
	RowAdd                    // a line only the new side has
	RowHunk                   // a hunk header: @@ -a,b +c,d @@
	RowNote                   // a sentence about the diff (binary, too large, no changes)
	RowNoEOL                  // "\ No newline at end of file" after the row before
	RowKept                   // a line of a kept hunk: left as it is on the old side (Keep)

	rowDropped // a new line of a kept hunk, not shown
)

// Row is one line of a diff.
type Row struct {
	Kind RowKind
	Old  int    // line number on the old side, 0 when none
	New  int    // line number on the new side, 0 when none
	Text string // the line without its newline, raw (escaped when drawn)

	at   int // index in the unified rows
	mate int // for a changed line: 1 + the index of the line it replaces (or is replaced by); 0 when none
}

// Pair is one line of the side-by-side layout. A side with Kind RowNote and
// empty Text is blank.
type Pair struct {
	Left, Right Row
}

// Diff is a computed diff. Its fields are read-only once Compute returns.
type Diff struct {
	OldSize, NewSize int64
	// Binary is set when either side holds a NUL byte or is not UTF-8.
	Binary bool
	// TooLarge is set when either side is over the size limit.
	TooLarge bool
	// Added and Deleted count changed lines.
	Added, Deleted int

	ops   []op    // the edit script
	spans []span3 // each hunk's place in it
	kept  []bool  // per hunk: shown kept (Keep)

	rows      []Row
	pairs     []Pair
	hunks     []int // index in rows of each hunk header
	pairHunks []int // index in pairs of each hunk header
	numWidth  int   // digits of the largest line number
	longest   int   // bytes of the longest line

	wordc wordCache // changed words within changed lines, worked out when drawn
}

// Compute diffs old against new by lines. It never diffs binary or invalid
// UTF-8 text, nor sides over the size limit: those give a one-line summary.
func Compute(old, new []byte, opt Options) *Diff {
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	ctx := opt.Context
	if ctx == 0 {
		ctx = DefaultContext
	} else if ctx < 0 {
		ctx = 0
	}
	d := &Diff{OldSize: int64(len(old)), NewSize: int64(len(new))}
	switch {
	case d.OldSize > opt.MaxBytes || d.NewSize > opt.MaxBytes:
		d.TooLarge = true
		d.note(fmt.Sprintf("too large to diff: %s → %s (limit %s)",
			present.Bytes(d.OldSize), present.Bytes(d.NewSize), present.Bytes(opt.MaxBytes)))
		return d
	case isBinary(old) || isBinary(new):
		d.Binary = true
		switch {
		case bytes.Equal(old, new):
			d.note(fmt.Sprintf("binary, %d bytes, no changes", d.NewSize))
		case len(old) == 0:
			d.note(fmt.Sprintf("binary, %d bytes", d.NewSize))
		default:
			d.note(fmt.Sprintf("binary, %d bytes (was %d bytes)", d.NewSize, d.OldSize))
		}
		return d
	case bytes.Equal(old, new):
		d.note("no changes")
		return d
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	d.build(lineOps(string(old), string(new), opt.Timeout), ctx)
	return d
}

func isBinary(b []byte) bool {
	return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)
}

func (d *Diff) note(s string) {
	r := Row{Kind: RowNote, Text: s}
	d.rows = []Row{r}
	d.pairs = []Pair{{Left: r}}
	d.numWidth = 1
}

// op is one line of the edit script.
type op struct {
	kind  RowKind // RowContext, RowDel or RowAdd
	text  string
	noEOL bool // the line is its file's last and has no newline
}

// lineOps runs go-diff in line mode: each distinct line becomes one rune, so
// the diff costs O(lines), not O(bytes); the timeout bounds the search.
func lineOps(a, b string, timeout time.Duration) []op {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = timeout
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	ops := make([]op, 0, 64)
	for _, df := range diffs {
		var k RowKind
		switch df.Type {
		case diffmatchpatch.DiffEqual:
			k = RowContext
		case diffmatchpatch.DiffDelete:
			k = RowDel
		case diffmatchpatch.DiffInsert:
			k = RowAdd
		}
		t := df.Text
		for len(t) > 0 {
			i := strings.IndexByte(t, '\n')
			if i < 0 {
				ops = append(ops, op{kind: k, text: t, noEOL: true})
				break
			}
			ops = append(ops, op{kind: k, text: t[:i]})
			t = t[i+1:]
		}
	}
	return ops
}

// build groups the edit script into hunks with ctx lines of context.
func (d *Diff) build(ops []op, ctx int) {
	d.ops = ops
	var changes []int
	for i, p := range ops {
		if p.kind != RowContext {
			changes = append(changes, i)
		}
	}
	if len(changes) == 0 { // only a difference the line split hides
		d.numWidth = 1
		d.note("no changes")
		return
	}
	for ci := 0; ci < len(changes); {
		first := changes[ci]
		end := first
		// Take in the next change while the context between them is at
		// most 2*ctx lines, so hunks never overlap.
		for ci < len(changes) && changes[ci]-end <= 2*ctx+1 {
			end = changes[ci]
			ci++
		}
		d.spans = append(d.spans, span3{start: max(first-ctx, 0), first: first, last: end, end: min(end+ctx, len(ops)-1)})
	}
	d.emit()
}

// span3 is one hunk of the edit script: its ops from start to end, the
// changed ones from first to last.
type span3 struct{ start, first, last, end int }

// emit lays out the rows of every hunk, those kept (Keep) as the lines
// of the old side they leave in place.
func (d *Diff) emit() {
	ops := d.ops
	kind := make([]RowKind, len(ops))
	for i, p := range ops {
		kind[i] = p.kind
	}
	for h, sp := range d.spans {
		if h < len(d.kept) && d.kept[h] {
			for i := sp.first; i <= sp.last; i++ {
				switch kind[i] {
				case RowDel:
					kind[i] = RowKept
				case RowAdd:
					kind[i] = rowDropped
				}
			}
		}
	}
	// oldAt and newAt are the line numbers each side is at when op i comes.
	oldAt := make([]int, len(ops))
	newAt := make([]int, len(ops))
	o, n := 1, 1
	for i := range ops {
		oldAt[i], newAt[i] = o, n
		switch kind[i] {
		case RowContext, RowKept:
			o++
			n++
		case RowDel:
			o++
			d.Deleted++
		case RowAdd:
			n++
			d.Added++
		}
	}
	d.numWidth = max(digits(o), digits(n))
	for h, sp := range d.spans {
		var hops []op
		var ho, hn []int
		for i := sp.start; i <= sp.end; i++ {
			if kind[i] == rowDropped {
				continue
			}
			p := ops[i]
			p.kind = kind[i]
			hops, ho, hn = append(hops, p), append(ho, oldAt[i]), append(hn, newAt[i])
		}
		d.hunk(hops, ho, hn, h < len(d.kept) && d.kept[h])
	}
}

// Change is a hunk's changed lines: OldLen lines from line OldStart
// (0-based) of the old side became NewLen lines from NewStart of the new
// side. The lines just before and after it are the same on both sides,
// or a side's edge.
type Change struct{ OldStart, OldLen, NewStart, NewLen int }

// Changes gives each hunk's changed lines, in order, as computed (a kept
// hunk's too).
func (d *Diff) Changes() []Change {
	out := make([]Change, 0, len(d.spans))
	o, n, h := 0, 0, 0
	var c Change
	for i, p := range d.ops {
		if h == len(d.spans) {
			break
		}
		if i == d.spans[h].first {
			c.OldStart, c.NewStart = o, n
		}
		if p.kind != RowAdd {
			o++
		}
		if p.kind != RowDel {
			n++
		}
		if i == d.spans[h].last {
			c.OldLen, c.NewLen = o-c.OldStart, n-c.NewStart
			out = append(out, c)
			h++
		}
	}
	return out
}

// Kept says whether hunk h is shown kept (see Keep).
func (d *Diff) Kept(h int) bool { return h >= 0 && h < len(d.kept) && d.kept[h] }

// Keep is the diff with the hunks whose indexes are listed shown kept:
// their old lines stay (drawn as RowKept), their new ones are not shown,
// their headers say so, and the line numbers and counts after them are
// those of the result. The hunks stay where they were, so hunk h of
// Keep's diff is hunk h of d.
func (d *Diff) Keep(hunks []int) *Diff {
	if len(d.spans) == 0 {
		return d
	}
	k := &Diff{OldSize: d.OldSize, NewSize: d.NewSize, ops: d.ops, spans: d.spans, kept: make([]bool, len(d.spans))}
	for _, h := range hunks {
		if h >= 0 && h < len(k.kept) {
			k.kept[h] = true
		}
	}
	k.emit()
	return k
}

// hunk appends one hunk's header and rows, in both layouts.
func (d *Diff) hunk(ops []op, oldAt, newAt []int, kept bool) {
	var oLen, nLen int
	for _, p := range ops {
		if p.kind != RowAdd {
			oLen++
		}
		if p.kind != RowDel {
			nLen++
		}
	}
	oStart, nStart := oldAt[0], newAt[0]
	if oLen == 0 { // unified convention: an empty range names the line before
		oStart--
	}
	if nLen == 0 {
		nStart--
	}
	h := Row{Kind: RowHunk, Text: fmt.Sprintf("@@ -%s +%s @@", rangeOf(oStart, oLen), rangeOf(nStart, nLen))}
	if kept {
		h.Text += " kept as it is now"
	}
	d.hunks = append(d.hunks, len(d.rows))
	d.rows = append(d.rows, h)
	d.pairHunks = append(d.pairHunks, len(d.pairs))
	d.pairs = append(d.pairs, Pair{Left: h, Right: h})

	var dels, adds []Row
	flush := func() {
		// A deleted line and the added line beside it are a changed line:
		// each knows the other, so the words that changed can be shown.
		// Lines pair in order; where the counts differ, a line pairs with
		// the next one on the other side that looks like it.
		for i, j := 0, 0; i < len(dels) && j < len(adds); i++ {
			k := j
			if len(dels) != len(adds) {
				for k < len(adds) && k < j+8 && !alike(dels[i].Text, adds[k].Text) {
					k++
				}
				if k == len(adds) || k == j+8 {
					continue
				}
			}
			dels[i].mate, adds[k].mate = adds[k].at+1, dels[i].at+1
			d.rows[dels[i].at].mate, d.rows[adds[k].at].mate = dels[i].mate, adds[k].mate
			j = k + 1
		}
		for i := 0; i < max(len(dels), len(adds)); i++ {
			p := Pair{Left: Row{Kind: RowNote}, Right: Row{Kind: RowNote}}
			if i < len(dels) {
				p.Left = dels[i]
			}
			if i < len(adds) {
				p.Right = adds[i]
			}
			d.pairs = append(d.pairs, p)
		}
		dels, adds = dels[:0], adds[:0]
	}
	for i, p := range ops {
		r := Row{Kind: p.kind, Text: p.text, at: len(d.rows)}
		if p.kind != RowAdd {
			r.Old = oldAt[i]
		}
		if p.kind != RowDel {
			r.New = newAt[i]
		}
		d.longest = max(d.longest, len(p.text))
		d.rows = append(d.rows, r)
		if p.noEOL {
			d.rows = append(d.rows, Row{Kind: RowNoEOL, Text: `\ No newline at end of file`, at: len(d.rows)})
		}
		switch p.kind {
		case RowDel:
			dels = append(dels, r)
		case RowAdd:
			adds = append(adds, r)
		default:
			flush()
			d.pairs = append(d.pairs, Pair{Left: r, Right: r})
		}
	}
	flush()
}

func rangeOf(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

func digits(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

// alike says whether two lines share enough of their start and end (past
// indentation) to be one line changed rather than two different lines.
func alike(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	n := min(len(a), len(b))
	if n == 0 {
		return false
	}
	p := 0
	for p < n && a[p] == b[p] {
		p++
	}
	q := 0
	for q < n-p && a[len(a)-1-q] == b[len(b)-1-q] {
		q++
	}
	return (p+q)*100 >= n*minCommonPct
}
