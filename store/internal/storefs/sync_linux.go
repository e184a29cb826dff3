package storefs

import (
	"os"

	"golang.org/x/sys/unix"
)

// SyncFS makes every write on the file system holding dir durable with one
// barrier (syncfs), which costs far less than an fsync per file in a batch.
// syncfs reports the write-back errors that happened since its descriptor
// was opened, so the store folder's own descriptor, opened with the store
// before anything was written, is used where there is one: one opened only
// now would miss an I/O error in write-back the kernel started earlier.
func SyncFS(r Root) error {
	if d, ok := r.(*Dir); ok && d.fd != nil {
		return SyncOpen(d.fd)
	}
	f, err := r.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	return SyncOpen(f)
}

// SyncOpen is SyncFS through a descriptor already open on the file system.
func SyncOpen(f *os.File) error { return unix.Syncfs(int(f.Fd())) }

// StartWriteback asks the kernel to start writing a range of f to the
// disk without waiting for it (sync_file_range with only
// SYNC_FILE_RANGE_WRITE). It promises nothing: the barrier that follows
// still makes the range durable, sooner for finding it written.
func StartWriteback(f *os.File, off, n int64) {
	if c, err := f.SyscallConn(); err == nil {
		c.Control(func(fd uintptr) { unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE) })
	}
}
