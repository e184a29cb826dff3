package store

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// dirCache opens each folder of a batch once as an os.Root of its own,
// each through its parent's, so reading a file deep in the tree costs one
// open rather than one per path element, and a folder one open per batch.
// A bulk capture's reads use the folders open as plain descriptors
// instead (see readInto). It also remembers how paths resolve (see
// Store.rel), so symlinks are resolved once per folder. It is safe for
// concurrent use.
type dirCache struct {
	s    *Store
	root *os.Root
	mu   sync.Mutex
	subs map[string]*os.Root
	rels map[string]string // memo for Store.rel
	// fds holds folders open as plain descriptors, for readInto; -1 for
	// one that could not be opened so.
	fds map[string]int
	// links memoizes viaLink.
	links map[string]bool
}

// maxOpenDirs bounds the folders a dirCache holds open; past it, paths
// are opened through the project root. It leaves most of the process's
// file descriptors to the rest.
var maxOpenDirs = func() int {
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && lim.Cur > 2048 {
		return int(min(lim.Cur/4, 16384))
	}
	return 512
}()

func newDirCache(s *Store) *dirCache {
	return &dirCache{s: s, root: s.root, subs: map[string]*os.Root{}, rels: map[string]string{}, fds: map[string]int{}, links: map[string]bool{}}
}

// in returns the root to use for rel and rel's name inside it.
func (d *dirCache) in(rel string) (*os.Root, string) {
	dir, base := path.Split(rel)
	if dir == "" {
		return d.root, rel
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if r := d.sub(strings.TrimSuffix(dir, "/")); r != nil {
		return r, base
	}
	return d.root, rel
}

// sub opens dir (through its parent when that is open) or returns nil.
// Caller holds d.mu.
func (d *dirCache) sub(dir string) *os.Root {
	if r, ok := d.subs[dir]; ok {
		return r
	}
	if len(d.subs) >= maxOpenDirs {
		return nil
	}
	parent, base := path.Split(dir)
	var pr *os.Root
	if parent != "" {
		pr = d.sub(strings.TrimSuffix(parent, "/"))
	}
	var r *os.Root
	var err error
	if pr != nil {
		r, err = pr.OpenRoot(base)
	} else {
		r, err = d.root.OpenRoot(dir)
	}
	if err != nil {
		// A missing folder, or a link leading out of its parent: the full
		// path through the project root gives the right answer or error.
		d.subs[dir] = nil
		return nil
	}
	d.subs[dir] = r
	return r
}

// readDir lists the folder rel, opened through the folder above it
// held open (see sub), or through the project root when that one cannot
// be.
func (d *dirCache) readDir(rel string) ([]fs.DirEntry, error) {
	d.mu.Lock()
	r := d.sub(rel)
	d.mu.Unlock()
	var f *os.File
	var err error
	if r != nil {
		f, err = r.Open(".")
	} else {
		f, err = d.root.Open(rel)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// exists reports whether the folder dir ("." for the root) is there, as
// the batch first found it: a folder itself, reached without following a
// link. A link to a folder is no folder of its own (an operation that
// deletes the link and writes beneath it makes the folder).
func (d *dirCache) exists(dir string) bool {
	if dir == "." {
		return true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fd(dir) >= 0 {
		return true
	}
	if d.viaLink(path.Dir(dir)) {
		return false
	}
	fi, err := d.root.Lstat(dir)
	return err == nil && fi.IsDir()
}

// lkind is the type of what stands at rel, a link not followed (as in
// fs.FileMode.Type), and false when nothing does. It asks through the
// folder above rel held open when there is one, so the folders of a deep
// path, looked at from the top down, cost one call each.
func (d *dirCache) lkind(rel string) (fs.FileMode, bool) {
	dir, base := path.Split(rel)
	d.mu.Lock()
	pfd := d.fd(strings.TrimSuffix(dir, "/"))
	d.mu.Unlock()
	if pfd < 0 {
		fi, err := d.root.Lstat(rel)
		if err != nil {
			return 0, false
		}
		return fi.Mode().Type(), true
	}
	var st unix.Stat_t
	if err := unix.Fstatat(pfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir, true
	case unix.S_IFLNK:
		return fs.ModeSymlink, true
	case unix.S_IFREG:
		return 0, true
	}
	return fs.ModeDevice, true // something else: no folder, nor nothing
}

// rel is Store.rel with the batch's memo of resolved folders.
func (d *dirCache) rel(s *Store, p string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return s.rel(p, d.rels)
}

// read reads a recorded path, which was resolved when it was recorded:
// behind a link now, wherever the link leads (inside the root, out of it,
// or round in a loop), it is gone.
func (d *dirCache) read(rel string) (Image, []byte, error) {
	img, data, err := d.readWith(rel, hashOnly)
	if err != nil && d.behindLink(rel) {
		return Image{Kind: ImageAbsent}, nil, nil
	}
	return img, data, err
}

// readWith reads rel, or finds it absent behind a link that stays inside
// the root (one leading out, or a loop, is an error naming the reason).
func (d *dirCache) readWith(rel string, big bigFile) (Image, []byte, error) {
	r, name := d.in(rel)
	img, data, err := d.s.readInWith(r, name, rel, big)
	if err == nil && d.behindLink(rel) {
		return Image{Kind: ImageAbsent}, nil, nil
	}
	return img, data, err
}

// behindLink reports whether one of rel's folders is a symbolic link. A
// record's path was resolved when it was taken, so a link on its way now
// was put there since (a folder replaced by a link to another): the path
// itself is gone, and what the link leads to is another path, never to
// be read or written as this one.
func (d *dirCache) behindLink(rel string) bool {
	dir := path.Dir(rel)
	if dir == "." {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.viaLink(dir)
}

// viaLink reports whether the folder dir, or one above it, is a link.
// Caller holds d.mu.
func (d *dirCache) viaLink(dir string) bool {
	if dir == "" || dir == "." {
		return false
	}
	if d.fd(dir) >= 0 {
		return false // opened one element at a time without following
	}
	if v, ok := d.links[dir]; ok {
		return v
	}
	parent := path.Dir(dir)
	v := d.viaLink(parent)
	if !v {
		fi, err := d.root.Lstat(dir)
		v = err == nil && fi.Mode()&fs.ModeSymlink != 0
	}
	d.links[dir] = v
	return v
}

// readInto is readWith for a bulk capture, reading a file's bytes into
// buf when it has room (the result may share buf's memory). A regular
// file in a folder open as a plain descriptor is read with a few plain
// system calls (openat, fstat, read, close) and no *os.File; anything
// else, and any error, goes through readWith, which has the final say.
func (d *dirCache) readInto(rel string, big bigFile, buf []byte) (Image, []byte, error) {
	dir, name := path.Split(rel)
	d.mu.Lock()
	dfd := d.fd(strings.TrimSuffix(dir, "/"))
	d.mu.Unlock()
	if dfd < 0 {
		return d.readWith(rel, big)
	}
	img, data, ok := readRegularAt(dfd, name, buf)
	if !ok {
		return d.readWith(rel, big)
	}
	return img, data, nil
}

// fd returns the folder dir ("" for the root) open as a plain descriptor,
// each through its parent's without following a link, or -1 when it
// cannot be (a link, a missing folder, too many open): its files are then
// read through readWith. The descriptors stay open until close. Caller
// holds d.mu.
func (d *dirCache) fd(dir string) int {
	if fd, ok := d.fds[dir]; ok {
		return fd
	}
	fd := -1
	switch {
	case len(d.fds) >= maxOpenDirs:
		return -1
	case dir == "":
		if f, err := d.root.Open("."); err == nil {
			fd, _ = unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
			f.Close()
		}
	default:
		parent, base := path.Split(dir)
		if pfd := d.fd(strings.TrimSuffix(parent, "/")); pfd >= 0 {
			fd, _ = unix.Openat(pfd, base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		}
	}
	if fd < 0 {
		fd = -1
	}
	d.fds[dir] = fd
	return fd
}

func (d *dirCache) close() {
	for _, r := range d.subs {
		if r != nil {
			r.Close()
		}
	}
	for _, fd := range d.fds {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}
