package watch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ckpt-dev/ckpt/store"
)

// DefaultIdle is how long the background watcher runs with no question
// before it exits: longer than an agent's pauses between shell steps in
// a session, short enough that a project left alone holds no watcher
// overnight. A watcher started anew costs one full sweep.
const DefaultIdle = 30 * time.Minute

// lockName is held by the process that owns the socket.
const lockName = "watch.lock"

// pidName holds the owning process's id and mode ("serve" or "record").
const pidName = "watch.pid"

// ErrRunning means another watcher owns the project's socket.
var ErrRunning = errors.New("watch: a watcher runs for this project already")

// Server answers on the store's socket for one Tree.
type Server struct {
	Tree  *Tree
	Store string // the store folder
	Mode  string // "serve" or "record", for status
	// Idle, when set, stops the server after that long with no question.
	Idle time.Duration
	// Cut, when set, is called for `turn LABEL` (ckpt turn), its error
	// the answer; without it the question is refused.
	Cut func(label string) error

	ln   net.Listener
	lock *os.File
	dir  *os.File
	last time.Time
	mu   sync.Mutex
	stop chan struct{}
	once sync.Once
}

// Listen takes the project's watcher lock and binds the socket, mode
// 0600, by a name relative to the store folder.
func (s *Server) Listen() error {
	lf, err := os.OpenFile(filepath.Join(s.Store, lockName), os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	if err := unix.Flock(int(lf.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		lf.Close()
		return ErrRunning
	}
	dir, err := os.Open(s.Store)
	if err != nil {
		lf.Close()
		return fmt.Errorf("watch: %w", err)
	}
	sock := filepath.Join(s.Store, store.WatchSocket)
	os.Remove(sock) // the lock is ours: whatever stands there is stale
	addr, err := store.SocketAddr(s.Store, int(dir.Fd()))
	if err == nil {
		old := unix.Umask(0o177)
		s.ln, err = net.Listen("unix", addr)
		unix.Umask(old)
	}
	if err != nil {
		dir.Close()
		lf.Close()
		return fmt.Errorf("watch: listen on %s: %w", sock, err)
	}
	s.ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := os.Chmod(sock, 0o600); err != nil {
		s.ln.Close()
		dir.Close()
		lf.Close()
		return fmt.Errorf("watch: make %s private: %w", sock, err)
	}
	// The pid file is for doctor and --stop; without it the socket still
	// answers "stop".
	_ = writePid(s.Store, s.Mode)
	s.lock, s.dir, s.last, s.stop = lf, dir, time.Now(), make(chan struct{})
	return nil
}

// Serve answers until ctx ends, the tree stops, `stop` is asked, or the
// idle period passes; then it removes the socket and releases the lock.
func (s *Server) Serve(ctx context.Context) error {
	defer s.close()
	go func() {
		for {
			c, err := s.ln.Accept()
			if err != nil {
				return
			}
			go s.answer(c)
		}
	}()
	var idle <-chan time.Time
	for {
		if s.Idle > 0 {
			s.mu.Lock()
			left := s.Idle - time.Since(s.last)
			s.mu.Unlock()
			if left <= 0 {
				return nil
			}
			idle = time.After(left)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.Tree.Done():
			return nil
		case <-s.stop:
			return nil
		case <-idle:
		}
	}
}

// writePid writes the pid file whole or not at all: a reader never sees
// it made but not yet written. Only the holder of the watcher lock
// writes it, so one temporary name serves, and a crash leaves at most
// that one file, which the next watcher writes over.
func writePid(store, mode string) error {
	tmp := filepath.Join(store, pidName+".tmp")
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(os.Getpid())+" "+mode+"\n"), 0o600); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, filepath.Join(store, pidName)); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// Stop makes Serve return.
func (s *Server) Stop() { s.once.Do(func() { close(s.stop) }) }

func (s *Server) close() {
	s.ln.Close()
	os.Remove(filepath.Join(s.Store, store.WatchSocket))
	os.Remove(filepath.Join(s.Store, pidName))
	s.dir.Close()
	s.lock.Close()
}

// answer serves one connection: one question, one answer.
func (s *Server) answer(c net.Conn) {
	defer c.Close()
	if !samePeer(c) {
		return
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return
	}
	verb, arg, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
	w := bufio.NewWriter(c)
	defer w.Flush()
	switch verb {
	case "since":
		s.mu.Lock()
		s.last = time.Now()
		s.mu.Unlock()
		ch, err := s.Tree.Since(arg)
		if err != nil {
			return // the asker times out and lists the tree
		}
		if !ch.Known {
			fmt.Fprintf(w, "full %s\n", ch.Next)
			return
		}
		fmt.Fprintf(w, "ok %s %d\n", ch.Next, len(ch.Paths))
		for _, p := range ch.Paths {
			w.WriteString(p)
			w.WriteByte(0)
		}
	case "status":
		st := s.Tree.Status()
		fmt.Fprintf(w, "%s %d %d %d %q\n", s.Mode, os.Getpid(), st.Folders, st.Lost, st.Limit)
	case "turn":
		if s.Cut == nil {
			fmt.Fprintf(w, "no ckpt watch is recording here (only the background watcher)\n")
			return
		}
		if err := s.Cut(arg); err != nil {
			fmt.Fprintf(w, "%s\n", strings.ReplaceAll(err.Error(), "\n", " "))
			return
		}
		fmt.Fprintf(w, "ok\n")
	case "stop":
		fmt.Fprintf(w, "ok\n")
		w.Flush()
		s.Stop()
	}
}

// Ask sends one line to the watcher of the store folder storeAbs and
// returns its answer's first line.
func Ask(storeAbs, line string, timeout time.Duration) (string, error) {
	sock := filepath.Join(storeAbs, store.WatchSocket)
	fi, err := os.Lstat(sock)
	if err != nil {
		return "", store.ErrNoWatcher
	}
	if err := store.CheckSocket(fi); err != nil {
		return "", fmt.Errorf("%s: %w", sock, err)
	}
	dir, err := os.Open(storeAbs)
	if err != nil {
		return "", err
	}
	defer dir.Close()
	addr, err := store.SocketAddr(storeAbs, int(dir.Fd()))
	if err != nil {
		return "", err
	}
	c, err := net.DialTimeout("unix", addr, timeout)
	if err != nil {
		return "", store.ErrNoWatcher
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		return "", err
	}
	ans, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("watcher at %s: %w", sock, err)
	}
	return strings.TrimSuffix(ans, "\n"), nil
}

// StopWatcher asks the watcher of storeAbs to stop and waits (up to
// timeout) until it has let go of the project.
func StopWatcher(storeAbs string, timeout time.Duration) (bool, error) {
	if _, err := Ask(storeAbs, "stop", timeout); err != nil {
		if errors.Is(err, store.ErrNoWatcher) {
			return false, nil
		}
		return false, err
	}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		lf, err := os.OpenFile(filepath.Join(storeAbs, lockName), os.O_RDWR|unix.O_NOFOLLOW, 0)
		if err != nil {
			return true, nil
		}
		err = unix.Flock(int(lf.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		lf.Close()
		if err == nil {
			return true, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true, fmt.Errorf("the watcher of %s did not stop within %v", storeAbs, timeout)
}
