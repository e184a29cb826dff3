package merge

// compact slides each run of changed lines as git's diff does before a
// merge (xdiff's change compaction, without the indent heuristic): as far
// down as the repeated lines let it, unless it can line up with a change
// in the other file, merging runs that bump into each other. Two line
// diffs that agree up to where repeated lines stand then give the same
// hunks, so a merge sees the changes where git sees them.
func compact(base, side []rune, h []hunk) []hunk {
	c0, c1 := marks(len(base), h, true), marks(len(side), h, false)
	compactMarks(base, c0, c1)
	compactMarks(side, c1, c0)
	return script(c0, c1)
}

// marks gives, per line of one file, whether a hunk changes it, with a
// false sentinel at each end (index 0 and n+1) as xdiff keeps them.
func marks(n int, h []hunk, base bool) []bool {
	m := make([]bool, n+2)
	for _, x := range h {
		at, k := x.s, x.sn
		if base {
			at, k = x.o, x.on
		}
		for i := at; i < at+k; i++ {
			m[i+1] = true
		}
	}
	return m
}

// group is a run [start, end) of changed lines (0-based, in a marks
// array offset by one), possibly empty.
type group struct{ start, end int }

type marked struct {
	ids []rune
	chg []bool // offset by one: chg[i+1] is line i
}

func (f marked) changed(i int) bool { return f.chg[i+1] }

func (f marked) first() group {
	g := group{}
	for f.changed(g.end) {
		g.end++
	}
	return g
}

func (f marked) next(g *group) bool {
	if g.end == len(f.ids) {
		return false
	}
	g.start = g.end + 1
	for g.end = g.start; f.changed(g.end); g.end++ {
	}
	return true
}

func (f marked) previous(g *group) bool {
	if g.start == 0 {
		return false
	}
	g.end = g.start - 1
	for g.start = g.end; f.changed(g.start - 1); g.start-- {
	}
	return true
}

func (f marked) slideDown(g *group) bool {
	if g.end < len(f.ids) && f.ids[g.start] == f.ids[g.end] {
		f.chg[g.start+1] = false
		f.chg[g.end+1] = true
		g.start++
		g.end++
		for f.changed(g.end) {
			g.end++
		}
		return true
	}
	return false
}

func (f marked) slideUp(g *group) bool {
	if g.start > 0 && f.ids[g.start-1] == f.ids[g.end-1] {
		g.start--
		g.end--
		f.chg[g.start+1] = true
		f.chg[g.end+1] = false
		for f.changed(g.start - 1) {
			g.start--
		}
		return true
	}
	return false
}

// compactMarks is xdiff's xdl_change_compact over one file (ids, chg),
// keeping its groups in step with the other file's (ochg).
func compactMarks(ids []rune, chg, ochg []bool) {
	f := marked{ids: ids, chg: chg}
	o := marked{ids: make([]rune, len(ochg)-2), chg: ochg}
	g, go_ := f.first(), o.first()
	for {
		if g.end != g.start {
			var earliest, matching, size int
			for {
				size = g.end - g.start
				matching = -1
				for f.slideUp(&g) {
					o.previous(&go_)
				}
				earliest = g.end
				if go_.end > go_.start {
					matching = g.end
				}
				for f.slideDown(&g) {
					o.next(&go_)
					if go_.end > go_.start {
						matching = g.end
					}
				}
				if size == g.end-g.start {
					break
				}
			}
			if g.end != earliest && matching != -1 {
				for go_.end == go_.start {
					f.slideUp(&g)
					o.previous(&go_)
				}
			}
		}
		if !f.next(&g) {
			break
		}
		o.next(&go_)
	}
}

// script turns the two files' marks back into hunks, pairing the runs
// as xdiff's xdl_build_script does.
func script(c0, c1 []bool) []hunk {
	var out []hunk
	i1, i2 := len(c0)-2, len(c1)-2
	for i1 >= 0 || i2 >= 0 {
		if (i1 > 0 && c0[i1]) || (i2 > 0 && c1[i2]) {
			l1, l2 := i1, i2
			for i1 > 0 && c0[i1] {
				i1--
			}
			for i2 > 0 && c1[i2] {
				i2--
			}
			out = append(out, hunk{o: i1, on: l1 - i1, s: i2, sn: l2 - i2})
		}
		i1--
		i2--
	}
	for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
		out[l], out[r] = out[r], out[l]
	}
	return out
}
