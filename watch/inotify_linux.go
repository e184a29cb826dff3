package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/ckpt-dev/ckpt/store"
	"golang.org/x/sys/unix"
)

// watchMask is what a folder's watch reports: every change to an entry
// (content, stat, creation, removal, rename) and the folder's own end.
const watchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

// inotify is the Linux event source: one instance for the whole tree,
// one watch per folder a sweep covers.
type inotify struct {
	f *os.File

	mu     sync.Mutex
	dirs   map[int]*wdir // watch descriptor → folder
	byRel  map[string]int
	cookie int          // the cookie folder's watch
	git    map[int]bool // watches of .git and its refs/heads folders
	t      *Tree
}

// wdir is one watched folder: its path and the rules in force inside it
// (and, to read its ignore files again, those of its parent).
type wdir struct {
	rel       string
	rules, up *store.Rules
}

func newSource() (source, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		if errors.Is(err, unix.EMFILE) {
			return nil, fmt.Errorf("%w: inotify instances used up (fs.inotify.max_user_instances); raise it with sysctl", ErrUnsupported)
		}
		return nil, fmt.Errorf("watch: inotify: %w", err)
	}
	return &inotify{f: os.NewFile(uintptr(fd), "inotify"), dirs: map[int]*wdir{}, byRel: map[string]int{}, git: map[int]bool{}}, nil
}

func (in *inotify) start(t *Tree) error {
	in.t = t
	cd := filepath.Join(t.storeAbs, cookieDir)
	if err := os.Mkdir(cd, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("watch: %w", err)
	}
	wd, err := unix.InotifyAddWatch(int(in.f.Fd()), cd, unix.IN_CREATE|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_ONLYDIR|unix.IN_DONT_FOLLOW)
	if err != nil {
		return fmt.Errorf("watch: %s: %w", cd, err)
	}
	in.cookie = wd
	root := store.ProjectRules(t.root)
	if err := in.addTree("", root.Enter("", readSmall(t.root, ".gitignore"), readSmall(t.root, ".ckptignore")), root); err != nil {
		return err
	}
	in.watchGit()
	go in.read()
	return nil
}

// watchGit watches .git (HEAD, packed-refs) and .git/refs/heads, where
// a commit moves a branch; a .git file (a worktree) is not followed.
func (in *inotify) watchGit() {
	g := filepath.Join(in.t.root, ".git")
	if fi, err := os.Lstat(g); err != nil || !fi.IsDir() {
		return
	}
	const mask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_MODIFY | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW
	_ = filepath.WalkDir(filepath.Join(g, "refs", "heads"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			if wd, err := unix.InotifyAddWatch(int(in.f.Fd()), p, mask); err == nil {
				in.git[wd] = true
			}
		}
		return nil
	})
	if wd, err := unix.InotifyAddWatch(int(in.f.Fd()), g, mask); err == nil {
		in.git[wd] = true
	}
}

func (in *inotify) folders() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.byRel)
}

func (in *inotify) close() { in.f.Close() }

// addTree watches the folder rel and every folder under it the rules
// keep. A folder that cannot be watched (gone, unreadable) is left out:
// a sweep cannot list it either, and an event on its entry in its parent
// (a chmod) tries again. Past the watch limit it records the limit.
func (in *inotify) addTree(rel string, rules, up *store.Rules) error {
	abs := filepath.Join(in.t.root, filepath.FromSlash(rel))
	wd, err := unix.InotifyAddWatch(int(in.f.Fd()), abs, watchMask)
	if err != nil {
		if errors.Is(err, unix.ENOSPC) {
			in.t.setLimit("the inotify watch limit is reached (fs.inotify.max_user_watches): sweeps list the whole tree until it is raised, e.g. sysctl fs.inotify.max_user_watches=1048576")
			return nil
		}
		if rel == "" {
			return fmt.Errorf("watch: %s: %w", abs, err)
		}
		return nil
	}
	in.mu.Lock()
	in.dirs[wd] = &wdir{rel: rel, rules: rules, up: up}
	in.byRel[rel] = wd
	in.mu.Unlock()
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil
	}
	prefix := ""
	if rel != "" {
		prefix = rel + "/"
	}
	for _, e := range ents {
		if !e.IsDir() || rules.Skip(e.Name(), true) {
			continue
		}
		sub := filepath.Join(abs, e.Name())
		if err := in.addTree(prefix+e.Name(), rules.Enter(e.Name(), readSmall(sub, ".gitignore"), readSmall(sub, ".ckptignore")), rules); err != nil {
			return err
		}
	}
	return nil
}

// unwatch drops the watches of rel and every folder under it (moved
// away: their watches would report the old paths).
func (in *inotify) unwatch(rel string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for r, wd := range in.byRel {
		if r == rel || strings.HasPrefix(r, rel+"/") {
			_, _ = unix.InotifyRmWatch(int(in.f.Fd()), uint32(wd)) // the kernel drops it itself once the folder is gone
			delete(in.byRel, r)
			delete(in.dirs, wd)
		}
	}
}

// read reads events until the instance is closed.
func (in *inotify) read() {
	buf := make([]byte, 64<<10)
	for {
		n, err := in.f.Read(buf)
		if err != nil {
			if !errors.Is(err, os.ErrClosed) {
				in.t.stop("reading events: " + err.Error())
			}
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := ""
			if ev.Len > 0 {
				raw := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
				name = strings.TrimRight(string(raw), "\x00")
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
			in.handle(int(ev.Wd), ev.Mask, name)
		}
	}
}

// handle is one event.
func (in *inotify) handle(wd int, mask uint32, name string) {
	t := in.t
	if mask&unix.IN_Q_OVERFLOW != 0 {
		t.lose("the event queue overflowed (fs.inotify.max_queued_events): the next sweep lists the whole tree; raise it with sysctl if this recurs")
		in.rescan()
		return
	}
	if wd == in.cookie {
		if mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0 {
			t.stop("the store was removed")
			return
		}
		t.cookieSeen(name)
		return
	}
	if in.git[wd] {
		if name == "HEAD" || name == "packed-refs" || !strings.HasSuffix(name, ".lock") && name != "" {
			t.gitMoved()
		}
		return
	}
	in.mu.Lock()
	d := in.dirs[wd]
	if d != nil && mask&unix.IN_IGNORED != 0 {
		if in.byRel[d.rel] == wd {
			delete(in.byRel, d.rel)
		}
		delete(in.dirs, wd)
	}
	in.mu.Unlock()
	if d == nil || mask&unix.IN_IGNORED != 0 {
		return
	}
	if name == "" { // the folder itself
		if d.rel == "" && mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0 {
			t.stop("the project folder was moved or removed")
			return
		}
		t.note(d.rel)
		return
	}
	rel := name
	if d.rel != "" {
		rel = d.rel + "/" + name
	}
	if mask&unix.IN_ISDIR != 0 {
		switch {
		case mask&unix.IN_MOVED_FROM != 0:
			in.unwatch(rel)
		case mask&(unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_ATTRIB) != 0 && !d.rules.Skip(name, true):
			in.mu.Lock()
			_, have := in.byRel[rel]
			in.mu.Unlock()
			if !have || mask&unix.IN_ATTRIB == 0 {
				sub := filepath.Join(t.root, filepath.FromSlash(rel))
				_ = in.addTree(rel, d.rules.Enter(name, readSmall(sub, ".gitignore"), readSmall(sub, ".ckptignore")), d.rules)
			}
		}
	}
	if store.IsIgnoreFile(name) {
		// The rules inside d move: watch what they no longer skip.
		abs := filepath.Join(t.root, filepath.FromSlash(d.rel))
		base := filepath.Base(d.rel)
		if d.rel == "" {
			base = ""
		}
		_ = in.addTree(d.rel, d.up.Enter(base, readSmall(abs, ".gitignore"), readSmall(abs, ".ckptignore")), d.up)
	}
	// Noted after any watch it needed: a sweep told of rel lists it, and
	// sees whatever was written before the watch was in place.
	t.note(rel)
}

// rescan watches the folders an overflow may have hidden the creation of.
func (in *inotify) rescan() {
	root := store.ProjectRules(in.t.root)
	if err := in.addTree("", root.Enter("", readSmall(in.t.root, ".gitignore"), readSmall(in.t.root, ".ckptignore")), root); err != nil {
		in.t.lose(err.Error()) // the root is not watched: every answer is "cannot say"
	}
}

// readSmall reads an ignore file; missing, unreadable or huge, it is
// none (as the sweep reads it).
func readSmall(dir, name string) []byte {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return nil
	}
	buf := make([]byte, fi.Size())
	n, _ := f.Read(buf)
	return buf[:n]
}
