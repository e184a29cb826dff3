// Package merge is a three-way line merge in the manner of diff3: two
// versions that both descend from a base are combined, each one's changes
// to the base kept, and the places where both changed the same lines (or
// lines next to each other) reported as conflicts.
//
// It is pure: bytes in, bytes out. Lines are compared as bytes, with their
// line ending, so CRLF files, a last line without a newline and text that
// is not valid UTF-8 come through byte for byte. It diffs lines with
// Myers' algorithm, as go-diff does in line mode, under a time bound: past it a diff is coarser, never wrong, so
// the bound can only turn a clean merge into a conflict, never merge
// wrongly. The regions it finds, and the markers it writes, follow
// `git merge-file --diff3`; a differential test holds the two together.
package merge

import (
	"bytes"
	"time"
)

// DefaultTimeout bounds each of the two diffs a merge makes, as the diff
// view's own bound does: scattered edits finish long before it.
const DefaultTimeout = 200 * time.Millisecond

// MarkerSize is the length of a conflict marker, as git writes it.
const MarkerSize = 7

// Options tunes Merge. The zero value is ready to use.
type Options struct {
	// Timeout bounds each diff; 0 means DefaultTimeout.
	Timeout time.Duration
	// Labels name the three versions in conflict markers: ours, base,
	// theirs. Empty labels give bare markers.
	Ours, Base, Theirs string
}

// Conflict is one region both sides changed. Lines are 1-based and
// inclusive, counted in ours; a region where ours holds no line (ours
// deleted what the base had there) is the line before it, or line 1.
type Conflict struct {
	Start, End int
}

// Result is a merge.
type Result struct {
	// Clean is set when the two sides changed no line in common: Bytes is
	// the merged file.
	Clean bool
	// Bytes is the merged file; where it is not clean, each conflict is
	// written between diff3 markers (ours, the base, theirs).
	Bytes []byte
	// Conflicts lists the regions in conflict, in order.
	Conflicts []Conflict
}

// Merge combines ours and theirs, which both descend from base: every
// change each made to base is kept, and where both changed the same lines
// differently (or changed lines next to each other) the region is a
// conflict. Lines outside changes are copied from ours.
func Merge(base, ours, theirs []byte, opt Options) Result {
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	// git merge-file takes one side whole when the other made no change.
	switch {
	case bytes.Equal(base, theirs) || bytes.Equal(ours, theirs):
		return Result{Clean: true, Bytes: bytes.Clone(ours)}
	case bytes.Equal(base, ours):
		return Result{Clean: true, Bytes: bytes.Clone(theirs)}
	}
	t := newTable()
	o, a, b := t.split(base), t.split(ours), t.split(theirs)
	// Where lines repeat, a line diff may align them more than one way,
	// and two alignments can disagree about whether the sides' changes
	// touch. The merge is clean only if it is clean, with the same bytes,
	// both when ties go to the later lines (as git's diff slides them)
	// and when they go to the earlier ones: an alignment cannot make a
	// conflict look clean unnoticed unless both agree on it.
	var first Result
	for k, reverse := range []bool{true, false} {
		h1 := hunks(o.ids, a.ids, reverse, opt.Timeout)
		h2 := hunks(o.ids, b.ids, reverse, opt.Timeout)
		r := write(combine(h1, h2, o, a, b), o, a, b, opt)
		switch {
		case k == 0:
			first = r
		case !r.Clean && first.Clean:
			return r
		case r.Clean && first.Clean && !bytes.Equal(r.Bytes, first.Bytes):
			// Both clean, but not alike: say where they part, as a
			// conflict over the lines that differ.
			return ambiguous(first, r, o, a, b, opt)
		}
	}
	return first
}

// ambiguous is the result when two alignments both merge cleanly into
// different bytes: the whole run of ours between the first and last
// line where the two differ is one conflict, with markers.
func ambiguous(x, y Result, o, a, b file, opt Options) Result {
	t := newTable()
	fx, fy := t.split(x.Bytes), t.split(y.Bytes)
	pre := 0
	for pre < len(fx.lines) && pre < len(fy.lines) && bytes.Equal(fx.lines[pre], fy.lines[pre]) {
		pre++
	}
	suf := 0
	for suf < len(fx.lines)-pre && suf < len(fy.lines)-pre && bytes.Equal(fx.lines[len(fx.lines)-1-suf], fy.lines[len(fy.lines)-1-suf]) {
		suf++
	}
	// Map the run back onto ours, base and theirs by the common prefix
	// and suffix of each with the merged lines: a conservative region.
	lo := func(f file) int {
		n := 0
		for n < pre && n < len(f.lines) && bytes.Equal(f.lines[n], fx.lines[n]) {
			n++
		}
		return n
	}
	hi := func(f file, from int) int {
		n := 0
		for n < suf && len(f.lines)-1-n >= from && bytes.Equal(f.lines[len(f.lines)-1-n], fx.lines[len(fx.lines)-1-n]) {
			n++
		}
		return len(f.lines) - n
	}
	r := region{mode: modeConflict}
	r.i0, r.i1, r.i2 = lo(o), lo(a), lo(b)
	r.c0, r.c1, r.c2 = hi(o, r.i0)-r.i0, hi(a, r.i1)-r.i1, hi(b, r.i2)-r.i2
	return write([]region{r}, o, a, b, opt)
}

// file is one version split into lines, each line with its ending.
type file struct {
	lines [][]byte
	ids   []rune // each line as one rune of a table shared by the three
}

// table numbers the distinct lines of the three versions, as go-diff's
// line mode does, so a diff compares numbers, not bytes.
type table struct {
	ids map[string]rune
	n   int
}

func newTable() *table { return &table{ids: map[string]rune{}} }

// runeOf numbers the i-th distinct line. (Valid runes only, as go-diff
// needs them, so the two can be run side by side.)
func runeOf(i int) rune {
	r := rune(i + 1)
	if r >= 0xD800 {
		r += 0x800
	}
	return r
}

func (t *table) split(data []byte) file {
	var f file
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data
		if i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		id, ok := t.ids[string(line)]
		if !ok {
			id = runeOf(t.n)
			t.n++
			t.ids[string(line)] = id
		}
		f.lines = append(f.lines, line)
		f.ids = append(f.ids, id)
	}
	return f
}

// hunk is one change from the base to a side: base lines [o, o+on)
// became the side's lines [s, s+sn).
type hunk struct {
	o, on, s, sn int
}

// hunks diffs base against side by lines, under the time bound. With
// reverse it diffs the two read backwards, which moves a change that could
// stand at more than one place among repeated lines to the latest one.
func hunks(base, side []rune, reverse bool, timeout time.Duration) []hunk {
	if reverse {
		h := hunks(reversed(base), reversed(side), false, timeout)
		out := make([]hunk, len(h))
		for i, x := range h {
			out[len(h)-1-i] = hunk{o: len(base) - x.o - x.on, on: x.on, s: len(side) - x.s - x.sn, sn: x.sn}
		}
		return compact(base, side, out)
	}
	var out []hunk
	o, s := 0, 0
	var cur *hunk
	for _, e := range lineDiff(base, side, timeout) {
		switch e.op {
		case opEqual:
			if cur != nil {
				out = append(out, *cur)
				cur = nil
			}
			o += e.n
			s += e.n
			continue
		case opDelete:
			if cur == nil {
				cur = &hunk{o: o, s: s}
			}
			cur.on += e.n
			o += e.n
		case opInsert:
			if cur == nil {
				cur = &hunk{o: o, s: s}
			}
			cur.sn += e.n
			s += e.n
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return compact(base, side, out)
}

func reversed(r []rune) []rune {
	out := make([]rune, len(r))
	for i, x := range r {
		out[len(r)-1-i] = x
	}
	return out
}

// Region modes, as git's merge names them.
const (
	modeConflict = 0
	modeOurs     = 1
	modeTheirs   = 2
)

// region is one place the result differs from ours-copied-through: base
// lines [i0, i0+c0), ours [i1, i1+c1), theirs [i2, i2+c2).
type region struct {
	mode           int
	i0, c0         int
	i1, c1, i2, c2 int
}

// add appends r, joining it to the region before when the two touch in
// either side (then a mix of modes is a conflict), as git does.
func add(rs []region, r region) []region {
	if n := len(rs); n > 0 {
		m := &rs[n-1]
		if r.i1 <= m.i1+m.c1 || r.i2 <= m.i2+m.c2 {
			if r.mode != m.mode {
				m.mode = modeConflict
			}
			m.c0 = r.i0 + r.c0 - m.i0
			m.c1 = r.i1 + r.c1 - m.i1
			m.c2 = r.i2 + r.c2 - m.i2
			return rs
		}
	}
	return append(rs, r)
}

// combine walks the two sides' hunks in base order. A hunk that ends
// before the other side's next one starts is that side's alone; two that
// overlap or touch are a conflict, unless both made the very same change.
func combine(h1, h2 []hunk, o, a, b file) []region {
	var rs []region
	i, j := 0, 0
	for i < len(h1) && j < len(h2) {
		x, y := h1[i], h2[j]
		if x.o+x.on < y.o {
			rs = add(rs, region{mode: modeOurs, i0: x.o, c0: x.on, i1: x.s, c1: x.sn, i2: y.s - y.o + x.o, c2: x.on})
			i++
			continue
		}
		if y.o+y.on < x.o {
			rs = add(rs, region{mode: modeTheirs, i0: y.o, c0: y.on, i1: x.s - x.o + y.o, c1: y.on, i2: y.s, c2: y.sn})
			j++
			continue
		}
		if x.o != y.o || x.on != y.on || x.sn != y.sn || !sameLines(a.lines[x.s:x.s+x.sn], b.lines[y.s:y.s+y.sn]) {
			off := x.o - y.o
			ffo := off + x.on - y.on
			i0, i1, i2 := x.o, x.s, y.s
			if off > 0 {
				i0 -= off
				i1 -= off
			} else {
				i2 += off
			}
			c0 := x.o + x.on - i0
			c1 := x.s + x.sn - i1
			c2 := y.s + y.sn - i2
			if ffo < 0 {
				c0 -= ffo
				c1 -= ffo
			} else {
				c2 += ffo
			}
			rs = add(rs, region{mode: modeConflict, i0: i0, c0: c0, i1: i1, c1: c1, i2: i2, c2: c2})
		}
		e1, e2 := x.o+x.on, y.o+y.on
		if e1 >= e2 {
			j++
		}
		if e2 >= e1 {
			i++
		}
	}
	for ; i < len(h1); i++ {
		x := h1[i]
		rs = add(rs, region{mode: modeOurs, i0: x.o, c0: x.on, i1: x.s, c1: x.sn, i2: x.o + len(b.lines) - len(o.lines), c2: x.on})
	}
	for ; j < len(h2); j++ {
		y := h2[j]
		rs = add(rs, region{mode: modeTheirs, i0: y.o, c0: y.on, i1: y.o + len(a.lines) - len(o.lines), c1: y.on, i2: y.s, c2: y.sn})
	}
	return rs
}

func sameLines(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// write makes the merged bytes: ours where nothing changed, each side's
// change where it alone changed, and diff3 markers around each conflict.
func write(rs []region, o, a, b file, opt Options) Result {
	res := Result{Clean: true}
	var out []byte
	at := 0 // next line of ours to copy
	for _, r := range rs {
		for _, l := range a.lines[at:r.i1] {
			out = append(out, l...)
		}
		switch r.mode {
		case modeOurs:
			out = appendLines(out, a.lines[r.i1:r.i1+r.c1], false, false)
		case modeTheirs:
			out = appendLines(out, b.lines[r.i2:r.i2+r.c2], false, false)
		default:
			res.Clean = false
			res.Conflicts = append(res.Conflicts, conflictOf(r))
			out = conflictHunk(out, r, o, a, b, opt)
		}
		at = r.i1 + r.c1
	}
	for _, l := range a.lines[at:] {
		out = append(out, l...)
	}
	res.Bytes = out
	return res
}

func conflictOf(r region) Conflict {
	if r.c1 == 0 {
		l := max(r.i1, 1)
		return Conflict{Start: l, End: l}
	}
	return Conflict{Start: r.i1 + 1, End: r.i1 + r.c1}
}

// conflictHunk writes one conflict as git merge-file --diff3 does: each
// side's lines end with a newline (a last line without one gets one), in
// CRLF where the files around it use CRLF.
func conflictHunk(out []byte, r region, o, a, b file, opt Options) []byte {
	cr := needsCR(r, o, a, b)
	marker := func(c byte, label string) {
		for range MarkerSize {
			out = append(out, c)
		}
		if label != "" {
			out = append(out, ' ')
			out = append(out, label...)
		}
		if cr {
			out = append(out, '\r')
		}
		out = append(out, '\n')
	}
	marker('<', opt.Ours)
	out = appendLines(out, a.lines[r.i1:r.i1+r.c1], true, cr)
	marker('|', opt.Base)
	out = appendLines(out, o.lines[r.i0:r.i0+r.c0], true, cr)
	marker('=', "")
	out = appendLines(out, b.lines[r.i2:r.i2+r.c2], true, cr)
	marker('>', opt.Theirs)
	return out
}

// appendLines copies lines; with nl, a last line without a newline gets
// one (CRLF when cr).
func appendLines(out []byte, lines [][]byte, nl, cr bool) []byte {
	for _, l := range lines {
		out = append(out, l...)
	}
	if nl && len(lines) > 0 {
		if last := lines[len(lines)-1]; last[len(last)-1] != '\n' {
			if cr {
				out = append(out, '\r')
			}
			out = append(out, '\n')
		}
	}
	return out
}

// needsCR follows git: markers end in CRLF when the line before the
// conflict in ours and in theirs (or their first line) ends in CRLF, and
// so does the base's first line; a file that cannot tell does not object.
func needsCR(r region, o, a, b file) bool {
	cr := eolCRLF(a, max(r.i1-1, 0))
	if cr > 0 {
		cr = eolCRLF(b, max(r.i2-1, 0))
	}
	if cr > 0 {
		cr = eolCRLF(o, 0)
	}
	return cr > 0
}

// eolCRLF says whether line i of f ends in CRLF: 1 yes, 0 no, -1 the file
// cannot tell (it is empty, or its only line has no ending).
func eolCRLF(f file, i int) int {
	n := len(f.lines)
	crlf := func(l []byte) int {
		if len(l) > 1 && l[len(l)-2] == '\r' {
			return 1
		}
		return 0
	}
	switch {
	case i < n-1:
		return crlf(f.lines[i])
	case n == 0:
		return -1
	}
	if l := f.lines[i]; len(l) > 0 && l[len(l)-1] == '\n' {
		return crlf(l)
	}
	if i == 0 {
		return -1
	}
	return crlf(f.lines[i-1])
}
