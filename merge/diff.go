package merge

import "time"

// The line diff under the merge: Myers' O(ND) algorithm, splitting at the
// middle snake as go-diff's diffBisect does (which the diff view runs in
// line mode), here over line numbers rather than runes. It is its own copy
// because the store, which merges, is linked into ckpt-hook, an
// executable that must not carry a diff library; the merge tests hold it
// to git's results.

// edit is one run of a diff: equal, deleted from a, or inserted from b.
type edit struct {
	op int // opEqual, opDelete, opInsert
	n  int
}

const (
	opEqual = iota
	opDelete
	opInsert
)

// differ diffs under a deadline: past it, what is left of a subproblem is
// deleted and inserted whole, a correct diff that is not the smallest.
type differ struct {
	deadline time.Time
	out      []edit
}

func (d *differ) add(op, n int) {
	if n == 0 {
		return
	}
	if k := len(d.out); k > 0 && d.out[k-1].op == op {
		d.out[k-1].n += n
		return
	}
	d.out = append(d.out, edit{op, n})
}

// lineDiff diffs a against b.
func lineDiff(a, b []rune, timeout time.Duration) []edit {
	d := &differ{deadline: time.Now().Add(timeout)}
	d.diff(a, b)
	return d.normal()
}

// normal puts each change's deletions before its insertions, so a run of
// changes reads delete, insert, equal.
func (d *differ) normal() []edit {
	var out []edit
	del, ins := 0, 0
	flush := func() {
		if del > 0 {
			out = append(out, edit{opDelete, del})
		}
		if ins > 0 {
			out = append(out, edit{opInsert, ins})
		}
		del, ins = 0, 0
	}
	for _, e := range d.out {
		switch e.op {
		case opDelete:
			del += e.n
		case opInsert:
			ins += e.n
		default:
			flush()
			out = append(out, e)
		}
	}
	flush()
	return out
}

func (d *differ) diff(a, b []rune) {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	d.add(opEqual, pre)
	a, b = a[pre:], b[pre:]
	suf := 0
	for suf < len(a) && suf < len(b) && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	a, b = a[:len(a)-suf], b[:len(b)-suf]
	switch {
	case len(a) == 0 || len(b) == 0:
		d.add(opDelete, len(a))
		d.add(opInsert, len(b))
	default:
		x, y, ok := d.bisect(a, b)
		if !ok {
			d.add(opDelete, len(a))
			d.add(opInsert, len(b))
		} else {
			d.diff(a[:x], b[:y])
			d.diff(a[x:], b[y:])
		}
	}
	d.add(opEqual, suf)
}

// bisect finds the middle snake of a and b (both non-empty, differing at
// both ends): the point where a forward and a backward search for the
// shortest edit script meet. It reports false past the deadline.
func (d *differ) bisect(a, b []rune) (int, int, bool) {
	n, m := len(a), len(b)
	maxD := (n + m + 1) / 2
	off := maxD + 1
	size := 2 * (maxD + 1)
	v1, v2 := make([]int, size), make([]int, size)
	for i := range v1 {
		v1[i], v2[i] = -1, -1
	}
	v1[off+1], v2[off+1] = 0, 0
	delta := n - m
	front := delta%2 != 0
	k1start, k1end, k2start, k2end := 0, 0, 0, 0
	for step := 0; step < maxD; step++ {
		if step%16 == 0 && time.Now().After(d.deadline) {
			return 0, 0, false
		}
		for k1 := -step + k1start; k1 <= step-k1end; k1 += 2 {
			i := off + k1
			var x1 int
			if k1 == -step || (k1 != step && v1[i-1] < v1[i+1]) {
				x1 = v1[i+1]
			} else {
				x1 = v1[i-1] + 1
			}
			y1 := x1 - k1
			for x1 < n && y1 < m && a[x1] == b[y1] {
				x1++
				y1++
			}
			v1[i] = x1
			switch {
			case x1 > n:
				k1end += 2
			case y1 > m:
				k1start += 2
			case front:
				if j := off + delta - k1; j >= 0 && j < size && v2[j] != -1 && x1 >= n-v2[j] {
					return x1, y1, true
				}
			}
		}
		for k2 := -step + k2start; k2 <= step-k2end; k2 += 2 {
			i := off + k2
			var x2 int
			if k2 == -step || (k2 != step && v2[i-1] < v2[i+1]) {
				x2 = v2[i+1]
			} else {
				x2 = v2[i-1] + 1
			}
			y2 := x2 - k2
			for x2 < n && y2 < m && a[n-x2-1] == b[m-y2-1] {
				x2++
				y2++
			}
			v2[i] = x2
			switch {
			case x2 > n:
				k2end += 2
			case y2 > m:
				k2start += 2
			case !front:
				if j := off + delta - k2; j >= 0 && j < size && v1[j] != -1 {
					x1 := v1[j]
					y1 := off + x1 - j
					if x1 >= n-x2 {
						return x1, y1, true
					}
				}
			}
		}
	}
	return 0, 0, false
}
