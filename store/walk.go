package store

import (
	"bytes"
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ckpt-dev/ckpt/store/internal/ignore"
)

// walker lists a tree with one stat per entry, folders read in parallel.
// Folders are opened relative to their parent's descriptor without
// following links, so a link never leads the walk out of the root.
type walker struct {
	// queue holds folders opened and waiting for a worker (at most
	// queueMax: past that a folder is listed where it was found, which
	// bounds the open descriptors); active counts the folders being
	// listed, waiting the workers parked on more.
	qmu     sync.Mutex
	qcond   sync.Cond
	queue   []walkJob
	active  int
	waiting int
	mu      sync.Mutex
	lists   []*dirList
	unread  []string // folders that could not be listed: their old entries stand
	maxRead int64    // ignore files larger than this are not read
	// prior, when set, is the baseline whose rules a folder it lists
	// follows instead of the ignore files on disk.
	prior *baseline
	rules map[string][]byte // the ignore files followed, by path
	// old is the last baseline, whose listing of a folder stands in for
	// reading the folder again when the folder's stat is as it was (see
	// oldNames). nil: every folder is read.
	old *baseline
	dev uint64 // the root's device: a folder on another is always read
	// diff, when set, keeps of each folder's listing only what differs
	// from the old baseline (see walkChanged).
	diff *walkDiff
	// partial names the folders whose listing left out something it
	// could not look at: their stat is not kept, so they are read again.
	partial []string
	// fed, when set, makes this a watcher-fed listing (see walkFed).
	fed *fedWalk
	// seen counts the entries listed, and deadline ends the walk: a tree
	// past walkMaxEntries or walkMaxTime (a pseudo file system the checks
	// below missed, a loop of bind mounts) fails the sweep with tooBig,
	// naming the folder it was in, rather than run until the hook's
	// timeout.
	seen     atomic.Int64
	deadline time.Time
	tooBig   error
	root     string
}

type walkJob struct {
	fd    int
	rel   string // "" for the root
	ig    *ignore.Set
	st    dirStat
	fresh bool // the ignore rules above differ from old's: read it
	// paths, when reused, is old's listing of the folder, and fd was
	// opened only to stat its entries (O_PATH where there is one).
	paths  []string
	reused bool
	// trusted: a fed listing's folder that is the one the old baseline
	// knew, whose subfolders the watcher vouches for; mode is its
	// permission bits.
	trusted bool
	mode    uint32
	// olds are the old baseline's entries in the folder (when the walk
	// compares with one), in path order.
	olds []baseEntry
	// inPrior says whether the prior baseline holds the folder, when the
	// parent's olds are that baseline's: 1 yes, -1 no, 0 ask it.
	inPrior int8
}

// dirStat is what says whether a folder's entries may have changed.
type dirStat struct {
	mtime, ctime int64
	ino, dev     uint64
}

// dirList is one folder's listing, sorted by name. Its entries' paths
// share one string.
type dirList struct {
	rel  string // "" for the root
	ents []baseEntry
}

// walkTree lists every folder, file and link under root that a sweep
// covers, sorted by path, and the ignore files it followed (path to
// bytes, the empty ones left out): a first sweep's listing, with no
// baseline to compare with (walkChanged lists against one).
func walkTree(root string) ([]*baseEntry, []string, map[string][]byte, error) {
	w, rootJob, err := openWalk(root, nil, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := w.run(rootJob); err != nil {
		return nil, nil, nil, errf("sweep %s: %w", root, err)
	}
	if w.tooBig != nil {
		return nil, nil, nil, w.tooBig
	}
	return w.sorted(), w.unread, w.rules, nil
}

// openWalk opens root and makes the walker that lists it, and the job
// of the root folder (whose descriptor the walk closes once it lists
// it). With prior, a folder the prior baseline lists follows the rules
// that baseline was taken under, not the ignore files on disk now; a
// folder it lacks follows its own ignore files on disk (no file under it
// is in the baseline).
//
// With old, a folder whose stat (mtime, ctime, inode) is what old recorded,
// and not racily so, has the same entries as then, so old's listing of it
// stands in for reading it (git's untracked cache rests on the same rule):
// each entry is still stat'ed. That holds only on file systems known to
// keep folders' times (dirTimesKept), and only under the same ignore
// rules: a folder whose rules, or whose parents' rules, differ from old's
// is read.
func openWalk(root string, prior, old *baseline) (*walker, walkJob, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, walkJob{}, errf("sweep %s: %w", root, err)
	}
	if prior != nil && prior.rules == nil {
		prior = nil // a baseline of version 2: its rules are unknown
	}
	w := &walker{maxRead: 1 << 20, prior: prior, rules: map[string][]byte{}, root: root}
	w.qcond.L = &w.qmu
	var rst unix.Stat_t
	rootOK := unix.Fstat(fd, &rst) == nil
	if old != nil && old.rules != nil && rootOK && dirTimesKept(fd) {
		w.old, w.dev = old, uint64(rst.Dev)
	}
	w.deadline = time.Now().Add(walkMaxTime)
	return w, walkJob{fd: fd, ig: &ignore.Set{}, st: dirStat{dev: uint64(rst.Dev)}}, nil
}

// run lists the folders of jobs, here, one after the other, and what
// lies under them on as many workers as there are cores; it returns
// once every folder is listed, with the first job's error (the other
// folders it cannot list are in w.unread, which the sweep reports).
func (w *walker) run(jobs ...walkJob) error {
	// One worker a core: more only spin in the scheduler when the tree is
	// in the page cache, which it is for every sweep but the first.
	var wg sync.WaitGroup
	w.active = 1 // the jobs listed here
	for range runtime.GOMAXPROCS(0) - 1 {
		wg.Go(func() { w.work(make([]byte, 32<<10)) })
	}
	buf := make([]byte, 32<<10)
	var first error
	for i, j := range jobs {
		if err := w.dir(j, buf); i == 0 {
			first = err
		}
	}
	w.qmu.Lock()
	w.active--
	w.qmu.Unlock()
	w.work(buf)
	wg.Wait()
	return first
}

// rulesMoved reports whether the ignore files of the folder rel differ
// from those old was listed under; then nothing under it may reuse
// old's listing.
func (w *walker) rulesMoved(rel string, git, ckpt []byte) bool {
	if w.old == nil {
		return true
	}
	prefix := ""
	if rel != "" {
		prefix = rel + "/"
	}
	return !bytes.Equal(git, w.old.rules[prefix+".gitignore"]) || !bytes.Equal(ckpt, w.old.rules[prefix+".ckptignore"])
}

func (w *walker) markPartial(rel string) {
	w.mu.Lock()
	w.partial = append(w.partial, rel)
	w.mu.Unlock()
}

// ignoreFile is the bytes of the ignore file name in the folder j lists,
// by the rules the walk follows, and records them.
func (w *walker) ignoreFile(j walkJob, name string, onDisk bool) []byte {
	rel := name
	if j.rel != "" {
		rel = j.rel + "/" + name
	}
	var data []byte
	if name == ".gitignore" && w.isStoreTop(j.rel) {
		return nil // the store's, for git (see Rules.Enter)
	}
	inPrior := j.inPrior > 0 || j.inPrior == 0 && w.prior != nil && w.prior.hasDir(j.rel)
	if w.prior != nil && inPrior {
		data = w.prior.rules[rel]
	} else if onDisk {
		data = w.readSmall(j.fd, name)
	}
	if len(data) > 0 {
		w.mu.Lock()
		w.rules[rel] = data
		w.mu.Unlock()
	}
	return data
}

// isStoreTop reports whether rel is the store's .osfoundry at the root:
// that name exactly or, where the file system folds case, another
// spelling of it.
func (w *walker) isStoreTop(rel string) bool {
	return rel == storeTop || strings.EqualFold(rel, storeTop) && storeName(w.root, rel)
}

// queueMax bounds the folders opened and waiting for a worker.
const queueMax = 64

// spawn queues a folder for whichever worker is free, or lists it here
// when the queue is full.
func (w *walker) spawn(j walkJob, buf []byte) {
	w.qmu.Lock()
	if len(w.queue) < queueMax {
		w.queue = append(w.queue, j)
		if w.waiting > 0 {
			w.qcond.Signal()
		}
		w.qmu.Unlock()
		return
	}
	w.qmu.Unlock()
	_ = w.dir(j, buf) // a folder it cannot list is in w.unread, which the sweep reports
}

// work lists queued folders until none is queued or being listed. A
// worker parks only when the queue is empty, so a folder changes hands
// only when a worker would otherwise be idle.
func (w *walker) work(buf []byte) {
	w.qmu.Lock()
	for {
		for len(w.queue) == 0 && w.active > 0 {
			w.waiting++
			w.qcond.Wait()
			w.waiting--
		}
		if len(w.queue) == 0 {
			w.qcond.Broadcast() // the walk is over
			w.qmu.Unlock()
			return
		}
		j := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		w.active++
		w.qmu.Unlock()
		_ = w.dir(j, buf) // a folder it cannot list is in w.unread, which the sweep reports
		w.qmu.Lock()
		w.active--
	}
}

// dir lists one folder and closes its descriptor.
func (w *walker) dir(j walkJob, buf []byte) error {
	defer unix.Close(j.fd)
	var domain []string
	prefix := ""
	if j.rel != "" {
		domain = strings.Split(j.rel, "/")
		prefix = j.rel + "/"
	}
	lp := len(prefix)
	paths, gitData, ckptData, ok, err := w.list(j, buf, prefix)
	if !ok {
		return err
	}
	fresh := j.fresh || w.rulesMoved(j.rel, gitData, ckptData)
	git := ignore.Parse(gitData, domain)
	ckpt := ignore.Parse(ckptData, domain)
	ig := j.ig.With(git, ckpt)
	local := make([]baseEntry, 0, len(paths))
	var st unix.Stat_t
	elems := append(domain[:len(domain):len(domain)], "")
	inStoreTop := w.isStoreTop(j.rel)
	for _, rel := range paths {
		n := rel[lp:]
		switch {
		case j.rel == "" && n == ".git":
			continue
		case j.rel == "" && w.prior != nil && !w.prior.hasDir(n) && w.isStoreTop(n):
			// A baseline taken when sweeps left all of .osfoundry out:
			// what the project keeps there is not the command's, and the
			// next sweep before a command takes it in as a hand edit.
			continue
		case inStoreTop && storeOwnIn(j.fd, n):
			continue // the store's own
		}
		if err := unix.Fstatat(j.fd, n, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			w.markPartial(j.rel)
			continue // gone since the listing
		}
		elems[len(elems)-1] = n
		e := baseEntry{path: rel, mode: uint32(st.Mode) & 0o777}
		if n == ".git" && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			// A nested repository's history is listed as one folder and
			// never read (see nestedGit); a .git file (a submodule's or
			// a worktree's pointer) is swept like any file.
			e.kind = baseDir
			local = append(local, e)
			continue
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			if ig.Skip(elems, true) {
				continue
			}
			e.kind = baseDir
			// A folder's stat is taken before it is read: whatever
			// changes in it from then on moves its times past these.
			e.mtime, e.ctime, e.ino = st.Mtim.Nano(), st.Ctim.Nano(), st.Ino
			if w.fed != nil && w.fed.keeps(rel, e.ino, j.trusted) {
				local = append(local, e)
				continue
			}
			sj := walkJob{rel: rel, ig: ig, fresh: fresh, st: dirStat{mtime: e.mtime, ctime: e.ctime, ino: e.ino, dev: uint64(st.Dev)}}
			sj.olds = w.oldsOf(rel)
			oe := j.oldEntry(rel)
			sj.paths, sj.reused = w.oldNames(sj, oe)
			sj.inPrior = w.inPrior(oe)
			flags := unix.O_RDONLY
			if sj.reused {
				flags = openStatOnly
			}
			sub, err := unix.Openat(j.fd, n, flags|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				w.mu.Lock()
				w.unread = append(w.unread, rel)
				w.mu.Unlock()
				w.markPartial(j.rel)
				e.kind, e.mode = baseUnknown, e.mode|unlistedDir // listed, as unread (see notKeptBefore)
				local = append(local, e)
				continue
			}
			if uint64(st.Dev) != j.st.dev && isPseudoFS(sub) {
				unix.Close(sub) // a mount of the kernel's: never swept
				continue
			}
			local = append(local, e)
			sj.fd = sub
			w.spawn(sj, buf)
			continue
		case unix.S_IFREG:
			e.kind = baseFile
		case unix.S_IFLNK:
			e.kind = baseLink
		default:
			t := specialType(uint32(st.Mode) & unix.S_IFMT)
			if t == 0 {
				continue
			}
			e.kind, e.mode = baseSpecial, e.mode|t // named pipes, sockets, devices: stat only
		}
		if ig.Skip(elems, false) {
			continue
		}
		e.size = st.Size
		e.mtime = st.Mtim.Nano()
		e.ctime = st.Ctim.Nano()
		e.ino = st.Ino
		local = append(local, e)
	}
	slices.SortFunc(local, func(a, b baseEntry) int { return strings.Compare(a.path[lp:], b.path[lp:]) })
	if w.diff != nil {
		if local = w.diff.folder(j, local); len(local) == 0 {
			return nil
		}
	}
	w.mu.Lock()
	w.lists = append(w.lists, &dirList{rel: j.rel, ents: local})
	w.mu.Unlock()
	return nil
}

// list is the names of j's folder (those the old baseline holds when its
// stat vouches for them, else read) and its ignore files. It reports false
// when the folder is not to be listed further: unreadable (err), or past
// the walk's bounds.
func (w *walker) list(j walkJob, buf []byte, prefix string) (paths []string, gitData, ckptData []byte, ok bool, err error) {
	lp := len(prefix)
	paths, reused := j.paths, j.reused
	for {
		if !reused {
			var err error
			fd := j.fd
			if j.reused { // opened to stat only: open it to read
				if fd, err = unix.Openat(j.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
					defer unix.Close(fd)
				}
			}
			var names []string
			if err == nil {
				names, err = readNames(fd, buf)
			}
			if err != nil {
				w.mu.Lock()
				w.unread = append(w.unread, j.rel)
				w.mu.Unlock()
				w.markPartial(j.rel)
				return nil, nil, nil, false, err
			}
			paths = joinNames(prefix, names)
		}
		if w.over(j.rel, len(paths)) {
			return nil, nil, nil, false, nil
		}
		var hasGit, hasCkpt bool
		for _, p := range paths {
			switch p[lp:] {
			case ".gitignore":
				hasGit = true
			case ".ckptignore":
				hasCkpt = true
			}
		}
		gitData = w.ignoreFile(j, ".gitignore", hasGit)
		ckptData = w.ignoreFile(j, ".ckptignore", hasCkpt)
		if !reused || !w.rulesMoved(j.rel, gitData, ckptData) {
			break
		}
		reused = false // its ignore files changed in place: read it
	}
	return paths, gitData, ckptData, true, nil
}

// readSmall reads an ignore file in the folder fd; unreadable or huge,
// it counts as empty.
func (w *walker) readSmall(dirfd int, name string) []byte {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > w.maxRead {
		return nil
	}
	buf := make([]byte, fi.Size())
	n, err := f.Read(buf)
	if err != nil && !errors.Is(err, os.ErrClosed) && n == 0 {
		return nil
	}
	return buf[:n]
}
