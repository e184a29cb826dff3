//go:build !linux

package store

import "golang.org/x/sys/unix"

// dirTimesKept is false where the file systems are not checked: every
// folder is listed.
func dirTimesKept(fd int) bool { return false }

// openStatOnly opens a folder whose entries are only stat'ed.
const openStatOnly = unix.O_RDONLY
