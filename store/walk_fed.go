package store

import (
	"errors"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

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

// find is the entry for rel, or nil.
func (b *baseline) find(rel string) *baseEntry {
	i, ok := slices.BinarySearchFunc(b.entries, rel, func(e baseEntry, p string) int { return strings.Compare(e.path, p) })
	if !ok {
		return nil
	}
	return &b.entries[i]
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
	for i := range old.entries {
		e := &old.entries[i]
		switch {
		case e.kind == baseDir && e.ino == 0: // its last listing was partial
			add(e.path)
		case old.racy(e):
			add(parentDir(e.path))
		}
	}
	return dirs, len(dirs) <= fedMaxFolders
}

// walkFed lists what walkTree would, given that only the paths named may
// have changed since old was taken: it lists the folders fedFolders
// names (and, whole, the folders that are new under them) and takes the
// rest from old. ok is false when it cannot serve; then walkTree must.
func walkFed(root string, prior, old *baseline, paths []string) (now []*baseEntry, unread []string, rules map[string][]byte, ok bool, err error) {
	if old == nil || old.rules == nil {
		return nil, nil, nil, false, nil
	}
	dirs, ok := fedFolders(old, paths)
	if !ok {
		return nil, nil, nil, false, nil
	}
	rootFd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, nil, false, errf("sweep %s: %w", root, err)
	}
	defer unix.Close(rootFd)
	if prior != nil && prior.rules == nil {
		prior = nil
	}
	w := &walker{maxRead: 1 << 20, prior: prior, rules: map[string][]byte{}, root: root, fed: &fedWalk{old: old, listed: dirs}}
	w.qcond.L = &w.qmu
	w.deadline = time.Now().Add(walkMaxTime)
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
					c.mtime, c.ctime, c.ino, c.mode = j.st.mtime, j.st.ctime, j.st.ino, j.mode
					selves = append(selves, &c)
				}
			}
		case errors.Is(gerr, unix.ENOENT) || errors.Is(gerr, unix.ENOTDIR) || errors.Is(gerr, unix.ELOOP):
			gone[d] = true
		case d == "":
			return nil, nil, nil, false, errf("sweep %s: %w", root, gerr)
		default:
			w.unread = append(w.unread, d)
		}
	}
	var wg sync.WaitGroup
	w.active = 1
	for range runtime.GOMAXPROCS(0) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work(make([]byte, 32<<10))
		}()
	}
	buf := make([]byte, 32<<10)
	for _, j := range jobs {
		_ = w.dir(j, buf) // a folder it cannot list is in w.unread, which the sweep reports
	}
	w.qmu.Lock()
	w.active--
	w.qmu.Unlock()
	w.work(buf)
	wg.Wait()
	if w.tooBig != nil {
		return nil, nil, nil, false, w.tooBig
	}
	now = w.fedMerge(old, gone, selves)
	rules = map[string][]byte{}
	for p, data := range old.rules {
		d := path.Dir(p)
		if e := findIn(now, d); d == "." || e != nil && e.kind == baseDir {
			rules[p] = data
		}
	}
	for p, data := range w.rules {
		rules[p] = data
	}
	return now, w.unread, rules, true, nil
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

// fedMerge lays out the listing a fed walk stands for, in path order:
// the old baseline's entries, less those of every folder listed now (its
// direct entries, and everything under a folder of it that is gone or
// was listed anew), plus what the listings found.
func (w *walker) fedMerge(old *baseline, gone map[string]bool, selves []*baseEntry) []*baseEntry {
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
	drop := make([]bool, len(old.entries))
	span := func(rel string) (int, int) {
		if rel == "" {
			return 0, len(old.entries)
		}
		pre := rel + "/"
		lo, _ := slices.BinarySearchFunc(old.entries, pre, func(e baseEntry, p string) int { return strings.Compare(e.path, p) })
		hi := lo
		for hi < len(old.entries) && strings.HasPrefix(old.entries[hi].path, pre) {
			hi++
		}
		return lo, hi
	}
	for d := range gone {
		lo, hi := span(d)
		for i := lo; i < hi; i++ {
			drop[i] = true
		}
	}
	for _, l := range w.lists {
		lo, hi := span(l.rel)
		lp := 0
		if l.rel != "" {
			lp = len(l.rel) + 1
		}
		for i := lo; i < hi; i++ {
			rest := old.entries[i].path[lp:]
			k := strings.IndexByte(rest, '/')
			if k < 0 || !newDirs[old.entries[i].path[:lp+k]] {
				drop[i] = true
			}
		}
	}
	out := make([]*baseEntry, 0, len(old.entries)+len(fresh))
	i, j := 0, 0
	for i < len(old.entries) || j < len(fresh) {
		if i < len(old.entries) && drop[i] {
			i++
			continue
		}
		switch {
		case j == len(fresh) || i < len(old.entries) && old.entries[i].path < fresh[j].path:
			out = append(out, &old.entries[i])
			i++
		case i == len(old.entries) || fresh[j].path < old.entries[i].path:
			out = append(out, fresh[j])
			j++
		default: // listed anew and kept: the listing wins
			out = append(out, fresh[j])
			i, j = i+1, j+1
		}
	}
	for _, rel := range w.partial {
		if k, ok := slices.BinarySearchFunc(out, rel, func(e *baseEntry, p string) int { return strings.Compare(e.path, p) }); ok && rel != "" {
			c := *out[k]
			c.mtime, c.ctime, c.ino = 0, 0, 0
			out[k] = &c
		}
	}
	return out
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
