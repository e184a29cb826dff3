package storefs

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
)

// WriteFault, set only by tests, is asked before each write of bytes to a
// file (a restore, a blob, a record). An error it returns is what the
// write returns, after half the bytes went out: a full disk or a failing
// device cuts a write short.
var WriteFault func(name string) error

// Write writes data to f, which is name.
func Write(f *os.File, name string, data []byte) error {
	if WriteFault != nil {
		if err := WriteFault(name); err != nil {
			_, _ = f.Write(data[:len(data)/2])
			return &fs.PathError{Op: "write", Path: name, Err: err}
		}
	}
	_, err := f.Write(data)
	return err
}

// faultWriter passes each write through write, so a test's WriteFault
// reaches streamed restores too.
type faultWriter struct {
	f    *os.File
	name string
}

// WriteAtomic writes data to name inside r through a temporary file in
// the same folder, renamed into place; sync fsyncs the file before the
// rename (the caller syncs the folder or the file system).
func WriteAtomic(r Root, name string, data []byte, perm os.FileMode, sync bool) error {
	return WriteVia(r, path.Join(path.Dir(name), ".tmp-"+RandHex(8)), name, data, perm, sync, false)
}

// WriteVia writes data to tmp and renames it over name; tmp is removed on
// failure. With chmod it sets the mode exactly, so the umask cannot change
// a kept mode.
func WriteVia(r Root, tmp, name string, data []byte, perm os.FileMode, sync, chmod bool) error {
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	err = Write(f, name, data)
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
		_ = r.Remove(tmp)
	}
	return err
}

// TruncateDurably cuts a store file to size and fsyncs it.
func TruncateDurably(r Root, name string, size int64) error {
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

// SyncDir fsyncs a folder so a rename or create in it is durable.
func SyncDir(r Root, name string) error {
	f, err := r.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// Append appends data to name (creating it) in one write; the caller
// makes it durable.
func Append(r Root, name string, data []byte) error {
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

// AppendDurable appends data to name (creating it) and fsyncs it.
func AppendDurable(r Root, name string, data []byte) error {
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	// One write: a killed process never leaves half of it.
	err = Write(f, name, data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func RandHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Names lists a store folder's entries without a stat of each (a blob
// folder holds thousands). A missing folder has none.
func Names(r Root, dir string) ([]string, error) {
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

// ReplaceTmp is the temporary name a file is written to before it is
// renamed over name: fixed per path, so a recovery removes a leftover.
func ReplaceTmp(name string) string {
	h := sha256.Sum256([]byte(name))
	return path.Join(path.Dir(name), ".ckpt-tmp-"+hex.EncodeToString(h[:8]))
}

// WriteReplaceFrom writes what src yields to a file beside name and
// renames it over name, with exactly perm. Nothing is renamed unless src
// ends cleanly (a verifying reader fails on bytes that do not match).
func WriteReplaceFrom(r *os.Root, name string, src io.Reader, perm os.FileMode) error {
	tmp := ReplaceTmp(name)
	r.Remove(tmp)
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	sw := &sparseWriter{f: f}
	var dst io.Writer = sw
	if WriteFault != nil {
		dst = faultWriter{f, name}
	}
	_, err = io.CopyBuffer(dst, struct{ io.Reader }{src}, make([]byte, 1<<20))
	if err == nil && WriteFault == nil {
		err = sw.finish()
	}
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

func (w faultWriter) Write(p []byte) (int, error) {
	if err := Write(w.f, w.name, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// holeBlock is the run of zero bytes a sparseWriter leaves as a hole
// rather than writes: a file system block.
const holeBlock = 4 << 10

var zeroBlock [holeBlock]byte

// HasHole reports whether data holds a block of zeros a sparseWriter
// would leave as a hole (one aligned to the file's offsets).
func HasHole(data []byte) bool {
	for off := 0; off+holeBlock <= len(data); off += holeBlock {
		if bytes.Equal(data[off:off+holeBlock], zeroBlock[:]) {
			return true
		}
	}
	return false
}

// sparseWriter writes a new file, leaving each block of zeros as a hole:
// a sparse file (a disk image, a database's preallocated file) comes
// back taking the room it took, where writing its zeros would take all
// of its length and may not fit.
type sparseWriter struct {
	f   *os.File
	off int64
}

func (w *sparseWriter) Write(p []byte) (int, error) {
	// Blocks are aligned to the file's offsets, so a hole is whole; the
	// bytes between holes go down in one write.
	start, i := 0, 0
	flush := func(end int) error {
		if end > start {
			if _, err := w.f.WriteAt(p[start:end], w.off+int64(start)); err != nil {
				return err
			}
		}
		return nil
	}
	for i < len(p) {
		k := holeBlock - int((w.off+int64(i))%holeBlock)
		if k > len(p)-i {
			k = len(p) - i
		}
		if k == holeBlock && bytes.Equal(p[i:i+k], zeroBlock[:]) {
			if err := flush(i); err != nil {
				return start, err
			}
			start = i + k
		}
		i += k
	}
	if err := flush(len(p)); err != nil {
		return start, err
	}
	w.off += int64(len(p))
	return len(p), nil
}

// finish gives the file its length, which a hole at its end leaves out.
func (w *sparseWriter) finish() error {
	fi, err := w.f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() != w.off {
		return w.f.Truncate(w.off)
	}
	return nil
}
