package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// failpoint kills the process after the k-th counted file operation of a
// phase, so tests can check that nothing is left half-done. It is set with
// CKPT_FAILPOINT=phase:k (phases: apply, capture) and costs a comparison
// when unset.
type failpoint struct {
	phase string
	at    int64
	n     atomic.Int64
}

func newFailpoint(phase string) *failpoint {
	v := os.Getenv("CKPT_FAILPOINT")
	p, k, ok := strings.Cut(v, ":")
	if !ok || p != phase {
		return &failpoint{}
	}
	at, err := strconv.ParseInt(k, 10, 64)
	if err != nil || at <= 0 {
		return &failpoint{}
	}
	return &failpoint{phase: phase, at: at}
}

// armed reports whether this failpoint kills the process at some hit.
func (f *failpoint) armed() bool { return f.at != 0 }

// hit counts one file operation.
func (f *failpoint) hit() {
	if f.at == 0 {
		return
	}
	if f.n.Add(1) == f.at {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}

// writeFault, set only by tests, is asked before each write of bytes to a
// file (a restore, a blob, a record). An error it returns is what the
// write returns, after half the bytes went out: a full disk or a failing
// device cuts a write short.
var writeFault func(name string) error

// write writes data to f, which is name.
func write(f *os.File, name string, data []byte) error {
	if writeFault != nil {
		if err := writeFault(name); err != nil {
			f.Write(data[:len(data)/2])
			return &fs.PathError{Op: "write", Path: name, Err: err}
		}
	}
	_, err := f.Write(data)
	return err
}

// faultWriter passes each write through write, so a test's writeFault
// reaches streamed restores too.
type faultWriter struct {
	f    *os.File
	name string
}

func (w faultWriter) Write(p []byte) (int, error) {
	if err := write(w.f, w.name, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// writeFileAtomic writes data to name inside r through a temporary file in
// the same folder, renamed into place; sync fsyncs the file before the
// rename (the caller syncs the folder or the file system).
func writeFileAtomic(r dirRoot, name string, data []byte, perm os.FileMode, sync bool) error {
	return writeVia(r, path.Join(path.Dir(name), ".tmp-"+randHex(8)), name, data, perm, sync, false)
}

// writeVia writes data to tmp and renames it over name; tmp is removed on
// failure. With chmod it sets the mode exactly, so the umask cannot change
// a kept mode.
func writeVia(r dirRoot, tmp, name string, data []byte, perm os.FileMode, sync, chmod bool) error {
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	err = write(f, name, data)
	if err == nil && chmod {
		err = f.Chmod(perm)
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.Rename(tmp, name)
	}
	if err != nil {
		r.Remove(tmp)
	}
	return err
}

// truncateDurably cuts a store file to size and fsyncs it.
func truncateDurably(r dirRoot, name string, size int64) error {
	f, err := r.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir fsyncs a folder so a rename or create in it is durable.
func syncDir(r dirRoot, name string) error {
	f, err := r.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// appendFile appends data to name (creating it) in one write; the caller
// makes it durable.
func appendFile(r dirRoot, name string, data []byte) error {
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// appendDurable appends data to name (creating it) and fsyncs it.
func appendDurable(r dirRoot, name string, data []byte) error {
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	// One write: a killed process never leaves half of it.
	err = write(f, name, data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func errf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// names lists a store folder's entries without a stat of each (a blob
// folder holds thousands). A missing folder has none.
func names(r dirRoot, dir string) ([]string, error) {
	f, err := r.Open(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	list, err := f.Readdirnames(-1)
	sort.Strings(list)
	return list, err
}

// guarded runs fn, turning a panic into an error. The store's workers run
// inside agent hooks, where a crash would exit non-zero, and a hook that
// exits 2 blocks the agent's tool.
func guarded(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("store: internal error: %v", r)
		}
	}()
	return fn()
}

// replaceTmp is the temporary name a file is written to before it is
// renamed over name: fixed per path, so a recovery removes a leftover.
func replaceTmp(name string) string {
	h := sha256.Sum256([]byte(name))
	return path.Join(path.Dir(name), ".ckpt-tmp-"+hex.EncodeToString(h[:8]))
}

// writeReplaceFrom writes what src yields to a file beside name and
// renames it over name, with exactly perm. Nothing is renamed unless src
// ends cleanly (a verifying reader fails on bytes that do not match).
func writeReplaceFrom(r *os.Root, name string, src io.Reader, perm os.FileMode) error {
	tmp := replaceTmp(name)
	r.Remove(tmp)
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	var dst io.Writer = struct{ io.Writer }{f}
	if writeFault != nil {
		dst = faultWriter{f, name}
	}
	_, err = io.CopyBuffer(dst, struct{ io.Reader }{src}, make([]byte, 1<<20))
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.Rename(tmp, name)
	}
	if err != nil {
		r.Remove(tmp)
	}
	return err
}
