package storefs

import (
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Stat is what identifies one state of a file's bytes: a write changes
// its size or its times, a file replaced by a rename has another inode.
type Stat struct {
	Size, Mtime, Ctime int64 // Unix ns
	Ino                uint64
	Regular            bool
}

// StatAt describes name, an entry directly in the folder d (no '/'),
// without following it: one fstatat, no open, for a folder of many files
// whose caches are checked against them.
func (d *Dir) StatAt(name string) (Stat, error) {
	if name == "" || strings.ContainsRune(name, '/') {
		return Stat{}, &fs.PathError{Op: "stat", Path: d.display(name), Err: fs.ErrInvalid}
	}
	var st unix.Stat_t
	for {
		err := unix.Fstatat(int(d.fd.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return Stat{}, &fs.PathError{Op: "stat", Path: d.display(name), Err: err}
		}
		break
	}
	return statOf(&st), nil
}

// StatOf is Stat for an open file.
func StatOf(f *os.File) (Stat, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return Stat{}, &fs.PathError{Op: "stat", Path: f.Name(), Err: err}
	}
	return statOf(&st), nil
}

func statOf(st *unix.Stat_t) Stat {
	return Stat{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: uint64(st.Ino),
		Regular: st.Mode&unix.S_IFMT == unix.S_IFREG}
}
