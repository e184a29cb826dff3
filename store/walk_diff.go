package store

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// A sweep without a watcher lists the whole tree, but it keeps only what
// differs from the old baseline: each folder's listing is compared, as
// it is made, with the old baseline's entries of that folder, looked up
// in its table, and the entries that stand as they were are let go. So
// a warm sweep holds what changed, a folder's listing at a time and a
// bounded cache of the table's blocks, never the whole tree twice.

// walkDiff is a walk's comparison with the old baseline: the old entries
// the listings stand in for, by path, and the entries listed in all.
type walkDiff struct {
	base   *baseline
	mu     sync.Mutex
	old    map[string]*baseEntry
	listed atomic.Int64
	err    error // the first damage a lookup in base found
}

// walkChanged lists the whole tree as walkTree does, against old (which
// must not be nil), and returns only what differs from it: the old
// entries that changed, vanished or must be looked at again beside what
// stands for them now, both in path order, as a watcher-fed listing
// does; the rest of old stands. seen counts every entry listed. A damaged
// block of old's file is errBadBaseline.
func walkChanged(root string, prior, old *baseline) (l *fedListing, seen int, err error) {
	w, rootJob, err := openWalk(root, prior, old)
	if err != nil {
		return nil, 0, err
	}
	d := &walkDiff{base: old, old: map[string]*baseEntry{}}
	w.diff = d
	rootJob.olds = d.children("")
	rootErr := w.run(rootJob)
	switch {
	case rootErr != nil:
		return nil, 0, errf("sweep %s: %w", root, rootErr)
	case w.tooBig != nil:
		return nil, 0, w.tooBig
	}
	l = d.listing(w)
	if d.err != nil {
		return nil, 0, d.err
	}
	l.rules = w.rules
	return l, int(d.listed.Load()), nil
}

// children is a copy of base's entries in the folder dir, in path order.
func (d *walkDiff) children(dir string) []baseEntry {
	var out []baseEntry
	d.note(d.base.childrenOf(dir, func(e *baseEntry) { out = append(out, *e) }))
	return out
}

// note keeps the first damage found.
func (d *walkDiff) note(err error) {
	if err == nil {
		return
	}
	d.mu.Lock()
	if d.err == nil {
		d.err = errBadBaseline
	}
	d.mu.Unlock()
}

// keepOld notes that the listing stands in for o; a folder's stands in
// for everything under it too (it vanished, or was not read).
func (d *walkDiff) keepOld(o *baseEntry, subtree bool) {
	var under []baseEntry
	if subtree {
		d.note(d.base.subtreeOf(o.path, func(e *baseEntry) { under = append(under, *e) }))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.old[o.path]; !ok {
		c := *o
		d.old[o.path] = &c
	}
	for i := range under {
		if _, ok := d.old[under[i].path]; !ok {
			d.old[under[i].path] = &under[i]
		}
	}
}

// folder compares the listing of the folder j (sorted) with old's
// entries of it and returns what differs: new entries, and those whose
// stat moved or cannot vouch for them (racy). An old entry that is not
// listed any more is noted as vanished, with what lay under it, and so
// is what lay under a folder that is now a file or link.
func (d *walkDiff) folder(j walkJob, local []baseEntry) []baseEntry {
	d.listed.Add(int64(len(local)))
	olds := j.olds
	kept := local[:0]
	i, k := 0, 0
	for i < len(olds) || k < len(local) {
		switch {
		case k == len(local) || i < len(olds) && olds[i].path < local[k].path:
			d.keepOld(&olds[i], olds[i].kind == baseDir)
			i++
		case i == len(olds) || local[k].path < olds[i].path:
			kept = append(kept, local[k])
			k++
		default:
			if !d.stands(&olds[i], &local[k]) {
				// A folder that is one no longer is not listed: what
				// lay under it is gone.
				d.keepOld(&olds[i], olds[i].kind == baseDir && local[k].kind != baseDir)
				kept = append(kept, local[k])
			}
			i, k = i+1, k+1
		}
	}
	return kept
}

// stands reports whether the listed entry n is old's o as it was: the
// merge would find no change and the next baseline would write nothing.
func (d *walkDiff) stands(o, n *baseEntry) bool {
	if !o.sameStat(n) || d.base.racy(o) {
		return false
	}
	c := *n
	c.sum, c.link, c.kind = o.sum, o.link, o.kind
	return c == *o
}

// listing is what the walk found, as a fedListing: the entries kept, in
// path order, and the old entries they (and the vanished and unread
// folders) stand in for. A folder whose listing left something out
// loses its times, as in walkTree.
func (d *walkDiff) listing(w *walker) *fedListing {
	var now []*baseEntry
	for _, l := range w.lists {
		for i := range l.ents {
			now = append(now, &l.ents[i])
		}
	}
	slices.SortFunc(now, func(a, b *baseEntry) int { return strings.Compare(a.path, b.path) })
	for _, u := range w.unread {
		if e := d.base.find(u); e != nil {
			d.keepOld(e, e.kind == baseDir)
		}
	}
	var extra []*baseEntry
	for _, rel := range w.partial {
		if rel == "" {
			continue
		}
		if e := findIn(now, rel); e != nil {
			e.mtime, e.ctime, e.ino = 0, 0, 0
			continue
		}
		// Listed as it was, so let go: it stands again, without its times.
		if o := d.base.find(rel); o != nil && o.kind == baseDir {
			d.keepOld(o, false)
			c := *o
			c.mtime, c.ctime, c.ino = 0, 0, 0
			extra = append(extra, &c)
		}
	}
	if len(extra) > 0 {
		now = append(now, extra...)
		slices.SortFunc(now, func(a, b *baseEntry) int { return strings.Compare(a.path, b.path) })
	}
	if err := d.base.srcErr(); err != nil {
		d.note(err)
	}
	l := &fedListing{now: now, unread: w.unread}
	l.old = make([]baseEntry, 0, len(d.old))
	for _, e := range d.old {
		l.old = append(l.old, *e)
	}
	slices.SortFunc(l.old, func(a, b baseEntry) int { return strings.Compare(a.path, b.path) })
	return l
}

// childrenOf calls fn with each entry directly in the folder dir ("" the
// root), in path order, from the entries read or through the file. What
// lies deeper is passed over with a search, as the file's listing seeks
// past it: the cost is the children's, not the subtree's.
func (b *baseline) childrenOf(dir string, fn func(*baseEntry)) error {
	if b.src != nil && !b.loaded {
		return b.src.children(dir, fn)
	}
	pre := ""
	if dir != "" {
		pre = dir + "/"
	}
	search := func(from int, p string) int {
		k, _ := slices.BinarySearchFunc(b.entries[from:], p, func(e baseEntry, p string) int { return strings.Compare(e.path, p) })
		return from + k
	}
	for k := search(0, pre); k < len(b.entries) && strings.HasPrefix(b.entries[k].path, pre); {
		rest := b.entries[k].path[len(pre):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			k = search(k, pre+rest[:i]+"0") // '0' follows '/': past that folder's contents
			continue
		}
		fn(&b.entries[k])
		k++
	}
	return nil
}

// subtreeOf calls fn with each entry under the folder dir, in path order.
func (b *baseline) subtreeOf(dir string, fn func(*baseEntry)) error {
	if b.src != nil && !b.loaded {
		return b.src.subtree(dir, fn)
	}
	pre := dir + "/"
	lo, _ := slices.BinarySearchFunc(b.entries, pre, func(e baseEntry, p string) int { return strings.Compare(e.path, p) })
	for k := lo; k < len(b.entries) && strings.HasPrefix(b.entries[k].path, pre); k++ {
		fn(&b.entries[k])
	}
	return nil
}

// srcErr is the first damage a lookup in b's file found, if any.
func (b *baseline) srcErr() error {
	if b.src == nil {
		return nil
	}
	b.src.mu.Lock()
	defer b.src.mu.Unlock()
	return b.src.err
}

// oldNames is old's listing of the folder j (its entries' paths), when it
// stands for the folder now (see openWalk); e is old's entry of the
// folder. ok is false when the folder must be read.
func (w *walker) oldNames(j walkJob, e *baseEntry) (paths []string, ok bool) {
	if w.old == nil || e == nil || j.fresh || j.rel == "" || j.st.dev != w.dev || j.st.ino == 0 {
		return nil, false
	}
	if e.kind != baseDir || e.ino != j.st.ino || e.mtime != j.st.mtime || e.ctime != j.st.ctime ||
		e.mtime >= w.old.at-racyWindow || e.ctime >= w.old.at-racyWindow {
		return nil, false
	}
	paths = make([]string, len(j.olds))
	for i := range j.olds {
		paths[i] = j.olds[i].path
	}
	return paths, true
}

// oldEntry is old's entry of the folder rel among the entries of the
// folder j holding it, nil when it has none.
func (j *walkJob) oldEntry(rel string) *baseEntry {
	k, ok := slices.BinarySearchFunc(j.olds, rel, func(e baseEntry, p string) int { return strings.Compare(e.path, p) })
	if !ok {
		return nil
	}
	return &j.olds[k]
}

// oldsOf is the old baseline's entries in the folder rel, when the walk
// compares with one or may reuse its listings.
func (w *walker) oldsOf(rel string) []baseEntry {
	switch {
	case w.diff != nil:
		return w.diff.children(rel)
	case w.old == nil:
		return nil
	}
	var out []baseEntry
	_ = w.old.childrenOf(rel, func(e *baseEntry) { out = append(out, *e) }) // read whole: no lookup fails
	return out
}

// inPrior is a subfolder's walkJob.inPrior, from oe, its entry among its
// parent's olds: when those are the prior baseline's, whether that holds
// the folder is known without a lookup per folder.
func (w *walker) inPrior(oe *baseEntry) int8 {
	switch {
	case w.diff == nil || w.prior == nil || w.prior != w.diff.base:
		return 0
	case oe != nil && oe.kind == baseDir:
		return 1
	}
	return -1
}
