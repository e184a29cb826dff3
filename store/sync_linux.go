package store

import (
	"golang.org/x/sys/unix"
)

// syncFS makes every write on the file system holding dir durable with one
// barrier (syncfs), which costs far less than an fsync per file in a batch.
func syncFS(r dirRoot) error {
	f, err := r.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
