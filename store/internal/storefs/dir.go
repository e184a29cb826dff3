// Package storefs is the safe file-system layer under the store: the
// store folder opened one element at a time without following a link,
// durable and atomic writes (a temporary name in the same folder, fsync,
// rename, a barrier for a batch), the barrier itself (syncfs), and
// fallocate before a file is written in place.
//
// It knows nothing of what the files hold.
package storefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/format"
	"golang.org/x/sys/unix"
)

// ErrLinkInStore means a file or folder of the store is a symbolic link.
// ckpt never follows one: a cloned repository can ship
// .osfoundry/checkpoints/lock pointing anywhere.
var ErrLinkInStore = errors.New("store: a symbolic link inside the store: refused, never followed")

// Root is what the file helpers need of a folder: the project's
// os.Root, or the store's Dir.
type Root interface {
	OpenFile(name string, flag int, perm os.FileMode) (*os.File, error)
	Open(name string) (*os.File, error)
	Rename(oldname, newname string) error
	Remove(name string) error
}

// Dir is the store folder. Every name inside it is opened without
// following a symbolic link at any element, and only as a regular file
// or a folder (a FIFO or device standing in for a store file is refused,
// so nothing hangs on it). An os.Root alone is not enough: it follows a
// link that stays inside it.
type Dir struct {
	root *os.Root // renames, removes and mkdirs, which never follow a final link
	fd   *os.File // the folder itself, for openat
	path string   // absolute, for messages
}

// Open opens the store folder rel inside the project root,
// refusing it (and every folder on the way) when it is a link.
func Open(rt *os.Root, rel, abs string) (*Dir, error) {
	top, err := rt.Open(".")
	if err != nil {
		return nil, err
	}
	defer top.Close()
	fd, err := walkNoFollow(int(top.Fd()), rel, unix.O_RDONLY|unix.O_DIRECTORY, 0, abs)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), abs)
	r, err := rt.OpenRoot(rel)
	if err == nil {
		// The root must be the folder just opened without links: a swap
		// in between would be a link followed.
		var a, b os.FileInfo
		if a, err = f.Stat(); err == nil {
			if b, err = r.Stat("."); err == nil && !os.SameFile(a, b) {
				err = fmt.Errorf("%s changed while being opened", abs)
			}
		}
		if err != nil {
			r.Close()
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Dir{root: r, fd: f, path: abs}, nil
}

// walkNoFollow opens name below the folder dirfd, one element at a time,
// none of them followed if a link. Folders on the way are opened
// O_DIRECTORY; the last element gets flag. A link anywhere is
// ErrLinkInStore; a last element that is neither a regular file nor a
// folder is refused. display names the file in errors.
func walkNoFollow(dirfd int, name string, flag int, perm uint32, display string) (int, error) {
	if name == "" || strings.HasPrefix(name, "/") {
		return -1, &fs.PathError{Op: "open", Path: display, Err: fs.ErrInvalid}
	}
	if name == "." {
		// A fresh open, not a dup: a dup shares the folder's read offset,
		// so a second walk would find it already read to the end.
		var fd int
		var err error
		for {
			fd, err = unix.Openat(dirfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != unix.EINTR {
				break
			}
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: display, Err: err}
		}
		return fd, nil
	}
	els := strings.Split(name, "/")
	cur, own := dirfd, false
	closeCur := func() {
		if own {
			unix.Close(cur)
		}
	}
	for i, el := range els {
		if el == "" || el == "." || el == ".." {
			closeCur()
			return -1, &fs.PathError{Op: "open", Path: display, Err: fs.ErrInvalid}
		}
		last := i == len(els)-1
		fl := unix.O_RDONLY | unix.O_DIRECTORY
		if last {
			// O_NONBLOCK: opening a FIFO must not wait for a writer.
			fl = flag | unix.O_NONBLOCK
		}
		var fd int
		var err error
		for {
			fd, err = unix.Openat(cur, el, fl|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
			if err != unix.EINTR {
				break
			}
		}
		if err != nil {
			var st unix.Stat_t
			if (err == unix.ELOOP || err == unix.ENOTDIR || err == unix.EMLINK) &&
				unix.Fstatat(cur, el, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				err = ErrLinkInStore
			}
			closeCur()
			if err == ErrLinkInStore {
				return -1, fmt.Errorf("%s: %w", display, ErrLinkInStore)
			}
			return -1, &fs.PathError{Op: "open", Path: display, Err: err}
		}
		closeCur()
		cur, own = fd, true
	}
	var st unix.Stat_t
	if err := unix.Fstat(cur, &st); err != nil {
		unix.Close(cur)
		return -1, &fs.PathError{Op: "stat", Path: display, Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG, unix.S_IFDIR:
	default:
		unix.Close(cur)
		return -1, fmt.Errorf("%s is not a regular file: %w", display, format.ErrCorrupt)
	}
	if err := unix.SetNonblock(cur, false); err != nil {
		unix.Close(cur)
		return -1, &fs.PathError{Op: "open", Path: display, Err: err}
	}
	return cur, nil
}

func (d *Dir) display(name string) string {
	return d.path + string(os.PathSeparator) + name
}

// OpenFile opens name as os.OpenFile would, never following a link.
func (d *Dir) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	fd, err := walkNoFollow(int(d.fd.Fd()), name, flag, uint32(perm.Perm()), d.display(name))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), d.display(name)), nil
}

// Open opens name for reading, never following a link.
func (d *Dir) Open(name string) (*os.File, error) { return d.OpenFile(name, os.O_RDONLY, 0) }

// ReadFile reads the whole of name, never following a link.
func (d *Dir) ReadFile(name string) ([]byte, error) {
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One buffer of the size the file has now (a byte more, to see it
	// end), not the doubling of io.ReadAll: a store file of megabytes
	// read by a short-lived hook costs its pages once.
	fi, err := f.Stat()
	if err != nil || fi.Size() <= 0 || fi.Size() > 1<<30 {
		return io.ReadAll(f)
	}
	buf := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // it grew: go on past the stat'ed size
		}
	}
}

// WriteFile writes data to name, creating or truncating it, never
// following a link.
func (d *Dir) WriteFile(name string, data []byte, perm os.FileMode) error {
	f, err := d.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// parentOK refuses a name whose folders on the way are links; the last
// element is not looked at (the caller's call never follows it).
func (d *Dir) parentOK(name string) error {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return nil
	}
	f, err := d.OpenFile(name[:i], os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

// Lstat describes name without following it (or a folder on the way).
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	if err := d.parentOK(name); err != nil {
		return nil, err
	}
	return d.root.Lstat(name)
}

// Stat is Lstat: nothing in the store is followed.
func (d *Dir) Stat(name string) (fs.FileInfo, error) { return d.Lstat(name) }

// Mkdir makes a folder; an existing link of that name is ErrExist, and
// callers check what stands there with Lstat.
func (d *Dir) Mkdir(name string, perm os.FileMode) error {
	if err := d.parentOK(name); err != nil {
		return err
	}
	return d.root.Mkdir(name, perm)
}

// Remove removes name itself (a link is removed, not followed).
func (d *Dir) Remove(name string) error {
	if err := d.parentOK(name); err != nil {
		return err
	}
	return d.root.Remove(name)
}

// Rename renames within the store; links are renamed, never followed,
// and a link standing at newname is refused rather than replaced.
func (d *Dir) Rename(oldname, newname string) error {
	if err := d.parentOK(oldname); err != nil {
		return err
	}
	if err := d.parentOK(newname); err != nil {
		return err
	}
	if fi, err := d.root.Lstat(newname); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s: %w", d.display(newname), ErrLinkInStore)
	}
	return d.root.Rename(oldname, newname)
}

// Sub opens a subfolder of the store with the same discipline.
func (d *Dir) Sub(name string) (*Dir, error) {
	return Open(d.root, name, d.display(name))
}

// OpenRoot opens a subfolder of the store as an os.Root of its own,
// refusing a link.
func (d *Dir) OpenRoot(name string) (*os.Root, error) {
	f, err := d.OpenFile(name, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := d.root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	a, err1 := f.Stat()
	b, err2 := r.Stat(".")
	if err1 != nil || err2 != nil || !os.SameFile(a, b) {
		r.Close()
		return nil, fmt.Errorf("%s changed while being opened: %w", d.display(name), ErrLinkInStore)
	}
	return r, nil
}

// FS lists the store folder's files for a walk (verify, prune), with the
// same discipline as OpenFile.
func (d *Dir) FS() fs.FS { return dirFS{d} }

type dirFS struct{ d *Dir }

func (f dirFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	file, err := f.d.Open(name)
	if err != nil {
		return nil, err
	}
	return file, nil
}

// Close releases the folder.
func (d *Dir) Close() error {
	d.fd.Close()
	return d.root.Close()
}
