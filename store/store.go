package store

import (
	"errors"
	"fmt"
	"golang.org/x/sys/unix"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// DefaultMaxBlob is the size over which a file's bytes are not kept.
const DefaultMaxBlob = 8 << 20

// storeDir is the store's folder, relative to the project root.
const storeDir = ".osfoundry/checkpoints"

// ImageOther is what a path holds when it is neither a file, a link nor
// absent (a folder, a socket): ckpt never writes over one.
const ImageOther ImageKind = "other"

// StatusRefused is the status of an index entry whose path lies outside
// the root (a hostile or foreign index); Reason says why.
const StatusRefused Status = "refused"

// Options tunes Open.
type Options struct {
	// Create makes the store if the root has none. Read-only commands leave
	// it false so they never create a store.
	Create bool
	// MaxBlob is the size limit for kept bytes; 0 means DefaultMaxBlob.
	MaxBlob int64
	// Notify is told, in a sentence, of an interrupted operation that Open
	// finished. Nil discards the sentence; it always goes to the store's
	// error log as well.
	Notify func(msg string)
	// Feed tells sweeps what changed since the last one; nil asks the
	// watcher on the store's socket, if one runs (see ChangeFeed).
	Feed ChangeFeed
}

// Store is an open checkpoint store. Its methods are safe for concurrent
// use by goroutines; processes coordinate through the store's lock.
type Store struct {
	// formatSeen is the version FORMAT named when the store was opened
	// (0: none), and formatVersion once this ckpt has written it.
	formatSeen atomic.Int32

	rootPath string       // absolute, symlinks resolved
	root     *os.Root     // the project
	rootFd   *os.File     // the project folder, opened with the store, for syncfs
	dir      *storefs.Dir // the store folder: nothing in it is followed
	maxBlob  int64
	notify   func(string)
	feed     ChangeFeed       // nil: the store's socket
	clock    func() time.Time // stamps records' At (display only); tests step it back
	// restoreFault, set only by tests, fails a path's restore or delete
	// before anything is written, as a full disk fails a write beside it.
	restoreFault func(path string) error
	// sweepRead, set only by tests, runs in a sweep between its reading
	// what changed and its recording it, where another process's hook
	// may land.
	sweepRead func()

	bmu   sync.Mutex   // guards blobs
	blobs *storefs.Dir // the blobs folder, opened on first use
	packs packSet      // the packs' indexes, loaded on first use
	// looseMax is the most new blobs a batch keeps as loose files (see
	// looseMax the constant); tests lower it to put every batch in a pack.
	looseMax int

	mu      sync.Mutex // guards cache, stats and checked
	cache   cache
	stats   statCache
	checked map[BlobID]string    // blob → what is wrong with it ("" for sound)
	planned [2]map[BlobID][]byte // the merges of the two newest plans, for ReadImage

	// copyCtl bounds first sweeps (see firstcopy.go); copying is the
	// first sweep reading now, which lookUnsynced counts and stops.
	copyCtl atomic.Pointer[CopyControl]
	copying atomic.Pointer[copyRun]

	digests indexDigests // what kept copies of git's index stage (gitindex_staged.go)
	grants  grants       // the ctimes files opened to be read were left with (open_unread.go)

	jmu  sync.Mutex  // guards held
	held *writerNote // the note of the store lock while this Store holds it
}

// FindRoot walks up from start to the first directory holding
// .osfoundry/checkpoints or a .git entry; failing both, start itself.
func FindRoot(start string) string {
	abs, err := filepath.Abs(start)
	if err != nil {
		return start
	}
	for d := abs; ; {
		if fi, err := os.Stat(filepath.Join(d, storeDir)); err == nil && fi.IsDir() {
			return d
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return abs
		}
		d = up
	}
}

// Open opens the store of the project at root. With Options.Create it
// makes the store (folders 0700, files 0600, and .osfoundry/.gitignore
// holding "*"); otherwise a root without one gives ErrNoStore. Open
// finishes an operation a killed process left half-done before it returns.
func Open(root string, opt Options) (*Store, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, errf("open store: %w", err)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	rt, err := os.OpenRoot(abs)
	if err != nil {
		return nil, errf("open project root %s: %w", abs, err)
	}
	s := &Store{rootPath: abs, root: rt, maxBlob: opt.MaxBlob, notify: opt.Notify, looseMax: looseMax, clock: time.Now, feed: opt.Feed}
	s.cache.files = map[string]*turnFile{}
	s.cache.steps = map[string][]record.Line{}
	s.cache.stepsAt = map[string]storefs.Stat{}
	s.checked = map[BlobID]string{}
	if s.maxBlob <= 0 {
		s.maxBlob = DefaultMaxBlob
	}
	if fi, err := rt.Lstat(".osfoundry"); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		rt.Close()
		return nil, errf("open store: %s: %w", filepath.Join(abs, ".osfoundry"), ErrLinkInStore)
	}
	fi, err := rt.Lstat(storeDir)
	created := false
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		rt.Close()
		return nil, errf("open store: %s: %w", filepath.Join(abs, storeDir), ErrLinkInStore)
	case err == nil && !fi.IsDir():
		rt.Close()
		return nil, errf("open store: %s is not a folder", filepath.Join(abs, storeDir))
	case errors.Is(err, fs.ErrNotExist) && !opt.Create:
		rt.Close()
		return nil, errf("%s: %w", abs, ErrNoStore)
	case errors.Is(err, fs.ErrNotExist):
		if err := s.create(); err != nil {
			rt.Close()
			return nil, err
		}
		created = true
	case err != nil:
		rt.Close()
		return nil, errf("open store %s: %w", filepath.Join(abs, storeDir), err)
	}
	s.dir, err = storefs.Open(rt, storeDir, filepath.Join(abs, storeDir))
	if err != nil {
		rt.Close()
		return nil, errf("open store %s: %w", filepath.Join(abs, storeDir), err)
	}
	s.rootFd, _ = rt.Open(".") // without it a barrier opens its own
	if created {
		// Made now, so that verify, which takes them shared, never has
		// to make them.
		for _, name := range []string{"blobs.lock", "repack.lock"} {
			if f, err := s.dir.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600); err == nil {
				_ = f.Close()
			}
		}
	}
	if err := s.checkFormat(); err != nil {
		// Nothing is written to a newer store but this one line for
		// people, once: a hook has nobody else to tell why it records
		// nothing (an agent's config naming an older ckpt-hook).
		s.logOnce(err.Error())
		s.Close()
		return nil, err
	}
	if err := s.recover(); err != nil {
		s.Close()
		return nil, err
	}
	if _, err := s.dir.Lstat(purgeFile); err == nil {
		if err := s.finishPurgeLocking(); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

func (s *Store) create() error {
	if err := s.root.MkdirAll(storeDir, 0o700); err != nil {
		return errf("create store %s: %w", filepath.Join(s.rootPath, storeDir), err)
	}
	// MkdirAll leaves existing folders' modes alone; the store's own two
	// must be private since they hold copies of secrets.
	_ = s.root.Chmod(".osfoundry", 0o700)
	_ = s.root.Chmod(storeDir, 0o700)
	if _, err := s.root.Lstat(".osfoundry/.gitignore"); errors.Is(err, fs.ErrNotExist) {
		// O_EXCL: a link standing there is never written through.
		f, err := s.root.OpenFile(".osfoundry/.gitignore", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, err = f.Write([]byte("*\n"))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if errors.Is(err, fs.ErrExist) {
			// Another hook made the store at the same moment.
			if fi, lerr := s.root.Lstat(".osfoundry/.gitignore"); lerr == nil && fi.Mode().IsRegular() {
				err = nil
			}
		}
		if err != nil {
			return errf("create %s: %w", filepath.Join(s.rootPath, ".osfoundry/.gitignore"), err)
		}
	}
	return nil
}

// ensureDirs makes the store's subfolders before a first write (seed
// stores lack them).
func (s *Store) ensureDirs() error {
	for _, d := range []string{"blobs", "turns", "ops"} {
		if err := s.dir.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return errf("create %s: %w", s.path(d), err)
		}
		if fi, err := s.dir.Lstat(d); err == nil && !fi.IsDir() {
			if fi.Mode()&fs.ModeSymlink != 0 {
				return errf("%s: %w", s.path(d), ErrLinkInStore)
			}
			return errf("%s is not a folder", s.path(d))
		}
	}
	// A store of an older format this ckpt writes to becomes one of its
	// own: FORMAT says so, and an older ckpt then refuses to write to it
	// rather than miss what it cannot read.
	if s.formatSeen.Load() < formatVersion {
		if err := storefs.WriteAtomic(s.dir, formatFile, []byte(FormatName+"\n"), 0o600, false); err != nil {
			return errf("write %s: %w", s.path(formatFile), err)
		}
		s.formatSeen.Store(formatVersion)
	}
	return nil
}

// Close releases the store.
func (s *Store) Close() error {
	if s.blobs != nil {
		_ = s.blobs.Close()
	}
	s.packs.close()
	if s.dir != nil {
		_ = s.dir.Close()
	}
	if s.rootFd != nil {
		s.rootFd.Close()
	}
	return s.root.Close()
}

// Root is the project root's absolute path, symlinks resolved.
func (s *Store) Root() string { return s.rootPath }

// path names a file of the store for messages.
func (s *Store) path(name string) string {
	return filepath.Join(s.rootPath, storeDir, filepath.FromSlash(name))
}

// Rel turns p (absolute, or relative to the root) into a root-relative
// slash path. It refuses with ErrOutsideRoot a path outside the root, the
// root itself, and paths inside the store — after resolving symlinks in
// every element but the last (which may itself be a link, kept as one), so
// neither "../x" nor a link to somewhere else gets through.
// The error is a *PathError naming p.
func (s *Store) Rel(p string) (string, error) { return s.rel(p, nil) }

// errInsideStore is why a path inside the store is refused; it is an
// ErrOutsideRoot.
var errInsideStore error = insideStore{}

type insideStore struct{}

func (insideStore) Error() string        { return "it is inside the checkpoint store" }
func (insideStore) Is(target error) bool { return target == ErrOutsideRoot }

// deepDir is the number of folders above which Rel resolves a path
// folder by folder (resolveDir), from each folder opened, rather than
// through EvalSymlinks, which hands the kernel the path up to each
// element in turn.
const deepDir = 32

// rel is Rel with a memo of resolved folders, for a batch of paths.
func (s *Store) rel(p string, memo map[string]string) (string, error) {
	if p == "" || strings.IndexByte(p, 0) >= 0 {
		return "", &PathError{Path: fmt.Sprintf("%q", p), Err: ErrOutsideRoot}
	}
	abs := p
	if !filepath.IsAbs(abs) {
		// Not Join, which cleans ".." as text before the links are seen.
		abs = s.rootPath + string(filepath.Separator) + filepath.FromSlash(p)
	}
	clean := cleanAsKernel(abs)
	dir, base := filepath.Split(clean)
	dir = filepath.Clean(dir)
	if memo == nil && strings.Count(dir, string(filepath.Separator)) > deepDir {
		memo = map[string]string{} // folder by folder: O(depth), not O(depth²)
	}
	var resolved string
	if memo != nil {
		resolved = resolveDir(dir, memo)
	} else {
		resolved = resolvePrefix(dir)
	}
	var rel string
	if resolved == dir && base != "" && filepath.Separator == '/' && s.rootPath != "/" && strings.HasPrefix(clean, s.rootPath+"/") {
		// No link on the way, and under the root: the rest of the path is
		// the answer (the common case, thousands of times in a batch).
		rel = clean[len(s.rootPath)+1:]
	} else {
		r, err := filepath.Rel(s.rootPath, filepath.Join(resolved, base))
		if err != nil {
			return "", &PathError{Path: p, Err: ErrOutsideRoot}
		}
		rel = path.Clean(filepath.ToSlash(r))
	}
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") {
		return "", &PathError{Path: p, Err: ErrOutsideRoot}
	}
	if top, rest, _ := strings.Cut(rel, "/"); storeName(s.rootPath, top) && storeOwnPath(s.rootPath, rest) {
		return "", &PathError{Path: p, Err: errInsideStore}
	}
	return rel, nil
}

// storeName reports whether the entry name of the folder root is the
// store's .osfoundry: that name exactly or, where the file system folds
// case (macOS's by default), another spelling of it that names the same
// folder. On a case-sensitive file system .OSFoundry is a project folder
// like any other.
func storeName(root, name string) bool {
	if name == ".osfoundry" {
		return true
	}
	if !strings.EqualFold(name, ".osfoundry") {
		return false
	}
	a, err := os.Lstat(filepath.Join(root, name))
	if err != nil {
		// Not there: where case folds, it would be the store once made.
		b, err := os.Lstat(filepath.Join(root, ".osfoundry"))
		return err == nil && b.IsDir() && foldsCase(root)
	}
	b, err := os.Lstat(filepath.Join(root, ".osfoundry"))
	return err == nil && os.SameFile(a, b)
}

// foldsCase reports whether the file system holding root's store finds
// .osfoundry under another spelling.
func foldsCase(root string) bool {
	a, err := os.Lstat(filepath.Join(root, ".osfoundry"))
	if err != nil {
		return false
	}
	b, err := os.Lstat(filepath.Join(root, ".OSFOUNDRY"))
	return err == nil && os.SameFile(a, b)
}

// cleanAsKernel cleans the absolute path p as the kernel resolves it: a
// ".." after a symbolic link leaves the folder the link leads to, not
// the link's own folder, so the path up to each ".." has its links
// resolved before the ".." takes a step back. Without a ".." it is
// filepath.Clean.
func cleanAsKernel(p string) string {
	if !strings.Contains(p, "..") {
		return filepath.Clean(p)
	}
	done := "/"
	for _, el := range strings.Split(p, "/") {
		switch el {
		case "", ".":
		case "..":
			done = filepath.Dir(resolvePrefix(done))
		default:
			done = filepath.Join(done, el)
		}
	}
	return done
}

// resolveDir is resolvePrefix through a memo of folders already
// resolved. The folders below the nearest one the memo knows are looked
// at one element at a time through a descriptor of their parent (fstatat
// and openat of one name), so a path n folders deep costs O(n) however
// deep it is, where an lstat of each folder's whole path made the kernel
// walk every path from the top again (O(n²): seconds at 1,000 folders).
// A link met on the way is resolved as the kernel resolves it.
func resolveDir(dir string, memo map[string]string) string {
	if r, ok := memo[dir]; ok {
		return r
	}
	if dir == "/" {
		return dir
	}
	if !filepath.IsAbs(dir) || filepath.Separator != '/' {
		r := resolvePrefix(dir)
		memo[dir] = r
		return r
	}
	// ends[i] is where the i-th folder of dir ends: dir[:ends[i]].
	var ends []int
	for i := 1; i < len(dir); i++ {
		if dir[i] == '/' {
			ends = append(ends, i)
		}
	}
	ends = append(ends, len(dir))
	k := len(ends) - 1
	for ; k >= 0; k-- {
		if _, ok := memo[dir[:ends[k]]]; ok {
			break
		}
	}
	cur := "/"
	if k >= 0 {
		cur = memo[dir[:ends[k]]]
	}
	fd := openDirPath(cur)
	for j := k + 1; j < len(ends); j++ {
		start := 1
		if j > 0 {
			start = ends[j-1] + 1
		}
		name := dir[start:ends[j]]
		next := filepath.Join(cur, name)
		if fd >= 0 {
			var st unix.Stat_t
			err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
			switch {
			case err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK:
				next = resolvePrefix(dir[:ends[j]])
				unix.Close(fd)
				fd = openDirPath(next)
			case err == nil:
				nfd, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
				unix.Close(fd)
				fd = -1
				if err == nil {
					fd = nfd
				} else if st.Mode&unix.S_IFMT == unix.S_IFDIR {
					// A folder that does not open (no read permission):
					// the rest by whole paths, as before.
					fd = -2
				}
			default:
				unix.Close(fd)
				fd = -1 // not there: the rest is kept as written
			}
		} else if fd == -2 {
			pathWalk.Add(int64(len(next)))
			if fi, err := os.Lstat(next); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				next = resolvePrefix(dir[:ends[j]])
			}
		}
		cur = next
		memo[dir[:ends[j]]] = cur
	}
	if fd >= 0 {
		unix.Close(fd)
	}
	return cur
}

// pathWalk counts the bytes of whole paths that resolving paths has
// handed the kernel, each of which it walks element by element: what
// TestDeepPathResolvesInDepth holds to the depth, not its square.
var pathWalk atomic.Int64

// openDirPath opens the folder p for resolveDir, or returns -2 when it
// cannot: the folders below it are then looked at by their whole paths.
func openDirPath(p string) int {
	pathWalk.Add(int64(len(p)))
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -2
	}
	return fd
}

// prefixBytes is what EvalSymlinks hands the kernel to resolve p: the
// path up to each of its elements, one after the other.
func prefixBytes(p string) int64 {
	var n int64
	for i := 1; i < len(p); i++ {
		if p[i] == filepath.Separator {
			n += int64(i)
		}
	}
	return n + int64(len(p))
}

// resolvePrefix resolves symlinks in the longest existing prefix of an
// absolute path and appends the rest unchanged.
func resolvePrefix(p string) string {
	rest := ""
	for d := p; ; {
		pathWalk.Add(prefixBytes(d))
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(r, rest)
		}
		up := filepath.Dir(d)
		if up == d {
			return p
		}
		rest = filepath.Join(filepath.Base(d), rest)
		d = up
	}
}
