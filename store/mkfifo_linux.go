package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// mkfifoat makes the named pipe base in the folder dir, through its
// descriptor (abs, its path, is for systems without mkfifoat).
func mkfifoat(dir *os.File, base, _ string, perm uint32) error {
	return unix.Mkfifoat(int(dir.Fd()), base, perm)
}
