//go:build !linux

package store

import (
	"os"
	"syscall"
)

// syncFS falls back to sync(2) where syncfs is missing (macOS): one barrier
// for the batch, as on Linux, though it flushes every file system.
func syncFS(r dirRoot) error {
	syscall.Sync()
	return nil
}

// syncOpen is syncFS through a descriptor already open on the file system.
func syncOpen(f *os.File) error {
	syscall.Sync()
	return nil
}

// startWriteback does nothing where sync_file_range is missing.
func startWriteback(f *os.File, off, n int64) {}
