package store

import (
	"slices"
	"strings"
)

// sorted lays the folders' listings out in path order (bytes, as the
// baseline is), each folder sorted on its own: no sort of the whole tree.
// A folder's own entry and what lies under it are apart when a sibling's
// name extends its name with a byte below '/' ("a", "a.go", "a/b"), so
// each folder's contents go where name+"/" sorts among its siblings.
func (w *walker) sorted() []*baseEntry {
	byRel := make(map[string]*dirList, len(w.lists))
	total := 0
	for _, l := range w.lists {
		byRel[l.rel] = l
		total += len(l.ents)
	}
	for _, rel := range w.partial {
		parent := ""
		if k := strings.LastIndexByte(rel, '/'); k >= 0 {
			parent = rel[:k]
		}
		if l := byRel[parent]; l != nil && rel != "" {
			lp := len(parent) + 1
			if parent == "" {
				lp = 0
			}
			if k, ok := slices.BinarySearchFunc(l.ents, rel[lp:], func(e baseEntry, n string) int { return strings.Compare(e.path[lp:], n) }); ok {
				l.ents[k].mtime, l.ents[k].ctime, l.ents[k].ino = 0, 0, 0
			}
		}
	}
	out := make([]*baseEntry, 0, total)
	var groups []int
	var emit func(l *dirList)
	emit = func(l *dirList) {
		lp := 0
		if l.rel != "" {
			lp = len(l.rel) + 1
		}
		name := func(i int) string { return l.ents[i].path[lp:] }
		at := len(groups)
		for i := range l.ents {
			if l.ents[i].kind == baseDir {
				groups = append(groups, i)
			}
		}
		gs := groups[at:]
		slices.SortFunc(gs, func(a, b int) int { return cmpKey(name(a), true, name(b), true) })
		i, g := 0, 0
		for i < len(l.ents) || g < len(gs) {
			if g == len(gs) || i < len(l.ents) && cmpKey(name(i), false, name(gs[g]), true) < 0 {
				out = append(out, &l.ents[i])
				i++
				continue
			}
			if c := byRel[l.ents[gs[g]].path]; c != nil {
				emit(c)
			}
			g++
		}
		groups = groups[:at]
	}
	if root := byRel[""]; root != nil {
		emit(root)
	}
	return out
}

// cmpKey compares a and b, names without a '/', each followed by a '/'
// when its flag is set (the contents of a folder of that name).
func cmpKey(a string, aSlash bool, b string, bSlash bool) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	next := func(s string, slash bool) int { // the byte after the common part; -1: none
		switch {
		case len(s) > n:
			return int(s[n])
		case slash:
			return '/'
		}
		return -1
	}
	// At most one of them goes on past n, and never with a '/'; equal
	// bytes here mean the same name with the same flag.
	return next(a, aSlash) - next(b, bSlash)
}
