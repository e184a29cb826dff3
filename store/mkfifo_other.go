//go:build !linux

package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// mkfifoat makes the named pipe base in the folder dir at abs. Without
// mkfifoat in x/sys here, it goes by the path, which the operation has
// checked holds no link on the way (the step fails before otherwise).
func mkfifoat(_ *os.File, _, abs string, perm uint32) error {
	return unix.Mkfifo(abs, perm)
}
