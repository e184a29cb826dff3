//go:build !linux

package store

import "golang.org/x/sys/unix"

// isPseudoFS reports whether the folder fd is the root of a file system
// of the kernel's own, which a sweep never descends into: on macOS, devfs.
func isPseudoFS(fd int) bool {
	var st unix.Statfs_t
	if unix.Fstatfs(fd, &st) != nil {
		return false
	}
	name := st.Fstypename[:]
	n := 0
	for n < len(name) && name[n] != 0 {
		n++
	}
	return string(name[:n]) == "devfs"
}
