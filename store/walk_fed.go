package store

import (
	"errors"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ckpt-dev/ckpt/store/internal/ignore"
)

// fedMaxFolders bounds the folders a watcher-fed sweep lists one by one;
// past it, listing the whole tree costs about the same.
const fedMaxFolders = 4096

// fedWalk is what a watcher-fed listing needs to know beside the walker:
// the old baseline, and the folders listed by a job of their own.
type fedWalk struct {
	old    *baseline
	listed map[string]bool
}

// keeps reports whether the folder rel, found in a folder listed in
// place, needs no listing of its own: its own job lists it, or the
// watcher saw nothing under it and it is the folder the old baseline
// knew (same inode), whose old entries then stand.
func (f *fedWalk) keeps(rel string, ino uint64, trusted bool) bool {
	if f.listed[rel] {
		return true
	}
	if !trusted {
		return false
	}
	e := f.old.find(rel)
	return e != nil && e.kind == baseDir && e.ino == ino && e.ino != 0
}

// fedFolders is the set of folders a sweep fed by changed paths lists:
// each path's folder and the path itself when it is a folder, and the
// folders of the old baseline's racy entries, all among the folders the
// old baseline holds. ok is false when the paths cannot be served this
// way (an ignore file changed, or too many folders).
func fedFolders(old *baseline, paths []string) (map[string]bool, bool) {
	dirs := map[string]bool{}
	add := func(rel string) {
		if !dirs[rel] && (rel == "" || old.hasDir(rel)) {
			dirs[rel] = true
		}
	}
	for _, p := range paths {
		if p == "" || p == "." {
			add("")
			continue
		}
		if IsIgnoreFile(path.Base(p)) {
			return nil, false // the rules move: everything is listed
		}
		add(parentDir(p))
		add(p)
		if len(dirs) > fedMaxFolders {
			return nil, false
		}
	}
	for _, p := range old.recheck {
		e := old.find(p)
		switch {
		case e == nil:
		case e.kind == baseDir:
			add(e.path) // listed in part, or racy: listed again
		default:
			add(parentDir(e.path))
		}
	}
	return dirs, len(dirs) <= fedMaxFolders
}

// fedListing is what a watcher-fed listing found: the old entries it
// stands in for and what stands for them now, both in path order; the
// rest of old stands as it is.
type fedListing struct {
	old    []baseEntry
	now    []*baseEntry
	unread []string
	rules  map[string][]byte
	// whole: the listing is of the whole tree, and old all of the old
	// baseline's entries.
	whole bool
}

// walkFed lists what walkTree would, given that only the paths named may
// have changed since old was taken: it lists the folders fedFolders
// names (and, whole, the folders that are new under them), and returns
// what they held in old beside what they hold now. ok is false when it
// cannot serve; then walkTree must. A damaged block of old's file is
// errBadBaseline.
func walkFed(root string, prior, old *baseline, paths []string) (l *fedListing, ok bool, err error) {
	if old == nil || old.rules == nil {
		return nil, false, nil
	}
	dirs, ok := fedFolders(old, paths)
	if !ok {
		return nil, false, nil
	}
	w, rootJob, err := openWalk(root, prior, nil)
	if err != nil {
		return nil, false, err
	}
	rootFd := rootJob.fd // each folder is opened from here, not listed as a job
	defer unix.Close(rootFd)
	w.fed = &fedWalk{old: old, listed: dirs}
	order := make([]string, 0, len(dirs))
	for d := range dirs {
		order = append(order, d)
	}
	slices.Sort(order)
	gone := map[string]bool{}
	var jobs []walkJob
	var selves []*baseEntry // listed folders whose folder is not: their own stat
	for _, d := range order {
		j, gerr := fedJob(rootFd, d, old)
		switch {
		case gerr == nil:
			jobs = append(jobs, j)
			if d != "" && !dirs[parentDir(d)] {
				if e := old.find(d); e != nil {
					c := *e
					c.kind = baseDir // opened as one now, even if unreadable before
					c.mtime, c.ctime, c.ino, c.mode = j.st.mtime, j.st.ctime, j.st.ino, j.mode
					selves = append(selves, &c)
				}
			}
		case errors.Is(gerr, unix.ENOENT) || errors.Is(gerr, unix.ENOTDIR) || errors.Is(gerr, unix.ELOOP):
			gone[d] = true
		case d == "":
			return nil, false, errf("sweep %s: %w", root, gerr)
		default:
			w.unread = append(w.unread, d)
		}
	}
	_ = w.run(jobs...) // a folder it cannot list is in w.unread, which the sweep reports
	if w.tooBig != nil {
		return nil, false, w.tooBig
	}
	l, err = w.fedScope(old, gone, selves)
	if err != nil {
		return nil, false, err
	}
	l.rules = map[string][]byte{}
	for p, data := range old.rules {
		// A folder the walk did not cover stands, and so do its rules.
		if d := path.Dir(p); d == "." || l.hasDir(d) {
			l.rules[p] = data
		}
	}
	for p, data := range w.rules {
		l.rules[p] = data
	}
	return l, true, nil
}

// size is the size the listing found for rel (0 when it has none).
func (l *fedListing) size(rel string) int64 {
	if e := findIn(l.now, rel); e != nil {
		return e.size
	}
	return 0
}

// hasDir reports whether rel, a folder of the old baseline, is one of
// the listing the fed walk stands for: as listed now where it was
// listed; a folder the walk did not cover stands.
func (l *fedListing) hasDir(rel string) bool {
	if e := findIn(l.now, rel); e != nil {
		return e.kind == baseDir
	}
	_, covered := slices.BinarySearchFunc(l.old, rel, func(e baseEntry, p string) int { return strings.Compare(e.path, p) })
	return !covered
}

// fedJob opens the folder rel of the old baseline to list it in place.
func fedJob(rootFd int, rel string, old *baseline) (walkJob, error) {
	fd, err := unix.Openat(rootFd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return walkJob{}, err
	}
	ig := &ignore.Set{}
	var domain []string
	prefix := ""
	if rel != "" {
		for _, name := range strings.Split(rel, "/") {
			ig = ig.With(ignore.Parse(old.rules[prefix+".gitignore"], domain), ignore.Parse(old.rules[prefix+".ckptignore"], domain))
			next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			unix.Close(fd)
			if err != nil {
				return walkJob{}, err
			}
			fd = next
			domain = append(domain, name)
			prefix += name + "/"
		}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return walkJob{}, err
	}
	j := walkJob{fd: fd, rel: rel, ig: ig, trusted: rel == "", mode: uint32(st.Mode) & 0o777,
		st: dirStat{mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: st.Ino, dev: uint64(st.Dev)}}
	if e := old.find(rel); rel != "" && e != nil && e.kind == baseDir && e.ino == st.Ino {
		j.trusted = true
	}
	return j, nil
}

// fedScope is what the fed walk's listings stand in for in old, and
// what stands for it now: every folder listed (its own entries, and
// everything under a folder of it that is gone or was listed anew), the
// folders gone, those it could not read (whose old entries stand), and
// the listed folders' own entries.
func (w *walker) fedScope(old *baseline, gone map[string]bool, selves []*baseEntry) (*fedListing, error) {
	fresh := selves
	newDirs := map[string]bool{}
	for _, l := range w.lists {
		for i := range l.ents {
			fresh = append(fresh, &l.ents[i])
			if l.ents[i].kind == baseDir {
				newDirs[l.ents[i].path] = true
			}
		}
	}
	slices.SortFunc(fresh, func(a, b *baseEntry) int { return strings.Compare(a.path, b.path) })
	l := &fedListing{unread: w.unread}
	seen := map[string]bool{}
	add := func(e *baseEntry) {
		if !seen[e.path] {
			seen[e.path] = true
			l.old = append(l.old, *e)
		}
	}
	for d := range gone {
		if err := old.subtreeOf(d, add); err != nil {
			return nil, err
		}
	}
	for _, u := range w.unread {
		if e := old.find(u); e != nil {
			add(e)
		}
		if err := old.subtreeOf(u, add); err != nil {
			return nil, err
		}
	}
	for _, dl := range w.lists {
		var sub []string
		err := old.childrenOf(dl.rel, func(e *baseEntry) {
			add(e)
			if e.kind == baseDir && !newDirs[e.path] {
				sub = append(sub, e.path)
			}
		})
		if err != nil {
			return nil, err
		}
		for _, d := range sub {
			if err := old.subtreeOf(d, add); err != nil {
				return nil, err
			}
		}
	}
	for _, e := range selves {
		if o := old.find(e.path); o != nil {
			add(o)
		}
	}
	if err := old.srcErr(); err != nil {
		return nil, err
	}
	slices.SortFunc(l.old, func(a, b baseEntry) int { return strings.Compare(a.path, b.path) })
	for _, rel := range w.partial {
		if k, ok := slices.BinarySearchFunc(fresh, rel, func(e *baseEntry, p string) int { return strings.Compare(e.path, p) }); ok && rel != "" {
			c := *fresh[k]
			c.mtime, c.ctime, c.ino = 0, 0, 0
			fresh[k] = &c
		}
	}
	l.now = fresh
	return l, nil
}

// findIn is the entry for rel in a sorted listing, or nil.
func findIn(list []*baseEntry, rel string) *baseEntry {
	k, ok := slices.BinarySearchFunc(list, rel, func(e *baseEntry, p string) int { return strings.Compare(e.path, p) })
	if !ok {
		return nil
	}
	return list[k]
}

// parentDir is the folder holding rel ("" the root).
func parentDir(rel string) string {
	if k := strings.LastIndexByte(rel, '/'); k >= 0 {
		return rel[:k]
	}
	return ""
}
