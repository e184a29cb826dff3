package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// A file watcher (ckpt watch --serve) can spare a sweep the listing of
// the whole tree: asked "what changed since token T", it names the paths
// that may have changed, and the sweep stats and reads only those (and
// the racy entries, as ever). The store keeps the token of the last sweep
// in watch.token; the watcher holds nothing the store lacks: a watcher
// that is missing, was restarted, lost events or does not know the token
// costs a full sweep, never a wrong answer.

// WatchSocket is the watcher's Unix socket, in the store folder.
const WatchSocket = "watch.sock"

// tokenFile holds the token the baseline was taken at.
const tokenFile = "watch.token"

// FeedTimeout bounds how long a sweep waits for the watcher's answer:
// past it the sweep lists the whole tree, as without a watcher. In a big
// tree the wait grows with it, up to FeedTimeoutMax (see feedWait).
const (
	FeedTimeout    = 5 * time.Millisecond
	FeedTimeoutMax = 25 * time.Millisecond
)

// feedWait is how long a sweep over a baseline of n entries waits for
// the watcher: FeedTimeout, and 1 ms more per 20,000 entries, up to
// FeedTimeoutMax. The answer spares listing the tree, which costs about
// 3 µs an entry, so the wait stays within a fiftieth of what a missed
// answer costs; on a busy machine an answer a few milliseconds late no
// longer costs a second's listing of 300,000 files.
func feedWait(n int) time.Duration {
	return min(FeedTimeout+time.Duration(n)*time.Millisecond/20000, FeedTimeoutMax)
}

// Changes is a watcher's answer to "what changed since token".
type Changes struct {
	// Paths may have changed since the token: relative to the root,
	// '/'-separated. It may name paths that did not change; it leaves out
	// none that did.
	Paths []string
	// Next is the token to ask with at the next sweep.
	Next string
	// Known is false when the watcher cannot say (it started since, lost
	// events, or does not know the token): the sweep lists everything.
	Known bool
}

// ChangeFeed tells a sweep which paths may have changed since its last.
// Since must answer within a few milliseconds or fail.
type ChangeFeed interface {
	Since(token string) (Changes, error)
}

// FeedState says how a sweep learned what changed.
type FeedState string

// Feed states of a sweep.
const (
	FeedNone  FeedState = ""      // no watcher runs: the whole tree was listed
	FeedFull  FeedState = "full"  // the watcher could not say: the whole tree was listed
	FeedFed   FeedState = "fed"   // only the paths the watcher named were looked at
	FeedNoUse FeedState = "nouse" // no baseline: everything is read anyway
	FeedSlow  FeedState = "slow"  // a watcher is there but did not answer in time
)

// ErrNoWatcher means no watcher listens on the store's socket.
var ErrNoWatcher = errors.New("store: no watcher running")

// socketFeed asks the watcher on the store's socket.
type socketFeed struct {
	s    *Store
	wait time.Duration
}

// Since asks the watcher over the socket, within f.wait.
func (f socketFeed) Since(token string) (Changes, error) {
	return f.s.askWatcher(token, f.wait)
}

// WatcherOff reports whether the user turned the background watcher off
// ($CKPT_WATCHER=off): sweeps then never ask one, and nothing starts one.
func WatcherOff() bool { return os.Getenv("CKPT_WATCHER") == "off" }

// feedFor is the feed a sweep asks: the one given to Open, else the
// socket's.
func (s *Store) feedFor(entries int) ChangeFeed {
	if s.feed != nil {
		return s.feed
	}
	if WatcherOff() {
		return nil
	}
	return socketFeed{s, feedWait(entries)}
}

// watchToken is the token the baseline was taken at ("" none).
func (s *Store) watchToken() string {
	b, err := s.dir.ReadFile(tokenFile)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// saveWatchToken records the token a baseline just written was taken
// at. It is written after the baseline: a crash between the two leaves
// the older token, whose answer covers more, never less.
func (s *Store) saveWatchToken(tok string) {
	if tok == "" {
		_ = s.dir.Remove(tokenFile) // a token left behind is older, and an older token's answer covers more
		return
	}
	if err := storefs.WriteAtomic(s.dir, tokenFile, []byte(tok+"\n"), 0o600, false); err != nil {
		_ = s.dir.Remove(tokenFile) // a stale token must not outlive a newer baseline; if it does, it only covers more
	}
}

// SocketAddr is the address to bind or connect the store's watcher
// socket by: its path when short enough, else (on Linux) a path through
// the store folder's descriptor, since a socket's path is limited to
// about 104 bytes. dirFd is a descriptor of the store folder.
func SocketAddr(storePath string, dirFd int) (string, error) {
	p := storePath + string(os.PathSeparator) + WatchSocket
	if len(p) < 100 {
		return p, nil
	}
	if runtime.GOOS == "linux" {
		return "/proc/self/fd/" + strconv.Itoa(dirFd) + "/" + WatchSocket, nil
	}
	return "", fmt.Errorf("the socket path %s is too long for a Unix socket", p)
}

// CheckSocket refuses a socket in the store that is not ckpt's own: not
// a socket, another user's, or open to others.
func CheckSocket(fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("%s is not a socket", fi.Name())
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s is not this user's own (mode %v)", fi.Name(), fi.Mode().Perm())
	}
	return nil
}

// askWatcher sends "since TOKEN" to the watcher and reads its answer:
// "ok NEXT COUNT\n" and COUNT paths each ended by a NUL byte, or
// "full NEXT\n".
func (s *Store) askWatcher(token string, timeout time.Duration) (Changes, error) {
	fi, err := s.dir.Lstat(WatchSocket)
	if err != nil {
		return Changes{}, ErrNoWatcher
	}
	if err := CheckSocket(fi); err != nil {
		return Changes{}, fmt.Errorf("watcher: %s: %w", s.path(WatchSocket), err)
	}
	dirFd := -1
	if len(s.path(WatchSocket)) >= 100 { // reached through the folder's descriptor
		d, err := os.Open(s.path(""))
		if err != nil {
			return Changes{}, err
		}
		defer d.Close()
		dirFd = int(d.Fd())
	}
	fd, err := dialWatcher(s.path(""), dirFd, timeout)
	if err != nil {
		return Changes{}, err
	}
	defer unix.Close(fd)
	if token == "" {
		token = "-"
	}
	if _, err := unix.Write(fd, []byte("since "+token+"\n")); err != nil {
		return Changes{}, fmt.Errorf("watcher: ask: %w", err)
	}
	deadline := time.Now().Add(timeout)
	var buf []byte
	chunk := make([]byte, 64<<10)
	for {
		if c, done, err := parseAnswer(buf); err != nil || done {
			return c, err
		}
		if time.Now().After(deadline) {
			return Changes{}, fmt.Errorf("watcher: no answer within %v", timeout)
		}
		n, err := unix.Read(fd, chunk)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return Changes{}, fmt.Errorf("watcher: read: %w", err)
		}
		if n == 0 {
			return Changes{}, fmt.Errorf("watcher: answer cut short")
		}
		buf = append(buf, chunk[:n]...)
	}
}

// dialWatcher connects to the watcher's socket in the store folder at
// storePath (dirFd a descriptor of it, for a long path), reads and
// writes on it bounded by timeout; ErrNoWatcher when none listens.
func dialWatcher(storePath string, dirFd int, timeout time.Duration) (int, error) {
	addr, err := SocketAddr(storePath, dirFd)
	if err != nil {
		return -1, err
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, err
	}
	unix.CloseOnExec(fd)
	tv := unix.NsecToTimeval(timeout.Nanoseconds())
	// Without its time bound the socket could hold a hook: give up
	// instead. The send bound also bounds a connect to a full backlog.
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: addr}); err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.ECONNREFUSED) || errors.Is(err, unix.ENOENT) {
			return -1, ErrNoWatcher
		}
		return -1, fmt.Errorf("watcher: connect: %w", err)
	}
	return fd, nil
}

// parseAnswer parses a watcher's answer; done is false while it is not
// all there.
func parseAnswer(b []byte) (Changes, bool, error) {
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		if len(b) > 512 {
			return Changes{}, false, fmt.Errorf("watcher: bad answer")
		}
		return Changes{}, false, nil
	}
	f := strings.Fields(string(b[:nl]))
	switch {
	case len(f) == 2 && f[0] == "full":
		return Changes{Next: f[1]}, true, nil
	case len(f) == 3 && f[0] == "ok":
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 {
			return Changes{}, false, fmt.Errorf("watcher: bad answer %q", b[:nl])
		}
		rest := b[nl+1:]
		if bytes.Count(rest, []byte{0}) < n {
			return Changes{}, false, nil
		}
		c := Changes{Next: f[1], Known: true, Paths: make([]string, 0, n)}
		for range n {
			i := bytes.IndexByte(rest, 0)
			c.Paths = append(c.Paths, string(rest[:i]))
			rest = rest[i+1:]
		}
		return c, true, nil
	}
	return Changes{}, false, fmt.Errorf("watcher: bad answer %q", b[:nl])
}

// refusedFile holds why the watcher refused this tree, and when.
const refusedFile = "watch.refused"

// refusedFor is how long a refusal stands before a watcher is tried
// again (a limit raised, a mount changed).
const refusedFor = time.Hour

// WatcherRefused says why a watcher last refused this tree, if it did
// within the last hour.
func (s *Store) WatcherRefused() string {
	fi, err := s.dir.Lstat(refusedFile)
	if err != nil || time.Since(fi.ModTime()) > refusedFor {
		return ""
	}
	b, _ := s.dir.ReadFile(refusedFile)
	return strings.TrimSpace(string(b))
}

// SetWatcherRefused records why no watcher can serve this tree ("" to
// clear it).
func (s *Store) SetWatcherRefused(why string) error {
	if why == "" {
		err := s.dir.Remove(refusedFile)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	return storefs.WriteAtomic(s.dir, refusedFile, []byte(why+"\n"), 0o600, false)
}

// StartWatcher starts the background watcher for this project, `exe
// watch --serve --root ROOT`, and returns at once: it runs in its own
// session with its standard streams on /dev/null, so no agent waits on it
// and no pipe of the caller stays open. Nothing starts when the user
// turned watchers off or one refused this tree within the hour; a second
// watcher started beside a running one exits at once.
func (s *Store) StartWatcher(exe string) error {
	if WatcherOff() || s.WatcherRefused() != "" {
		return nil
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	attr := &os.ProcAttr{Dir: "/", Files: []*os.File{null, null, null}, Sys: &syscall.SysProcAttr{Setsid: true}}
	p, err := os.StartProcess(exe, []string{exe, "watch", "--serve", "--root", s.rootPath}, attr)
	if err != nil {
		return fmt.Errorf("start the watcher %s: %w", exe, err)
	}
	return p.Release()
}
