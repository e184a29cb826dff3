//go:build !linux

package storefs

import (
	"os"
	"syscall"
)

// SyncFS falls back to sync(2) where syncfs is missing (macOS): one barrier
// for the batch, as on Linux, though it flushes every file system.
func SyncFS(r Root) error {
	syscall.Sync()
	return nil
}

// SyncOpen is SyncFS through a descriptor already open on the file system.
func SyncOpen(f *os.File) error {
	syscall.Sync()
	return nil
}

// StartWriteback does nothing where sync_file_range is missing.
func StartWriteback(f *os.File, off, n int64) {}
