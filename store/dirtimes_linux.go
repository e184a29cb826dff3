package store

import "golang.org/x/sys/unix"

// dirTimesKept reports whether the file system holding the folder fd is
// one known to set a folder's mtime and ctime whenever an entry is added,
// removed or renamed in it, with no attribute caching in between: the
// local ones. (A network or FUSE file system may serve stale times.)
func dirTimesKept(fd int) bool {
	var sf unix.Statfs_t
	if unix.Fstatfs(fd, &sf) != nil {
		return false
	}
	switch uint32(sf.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC, unix.F2FS_SUPER_MAGIC, 0x2fc12fc1: // the last: ZFS
		return true
	}
	return false
}

// openStatOnly opens a folder whose entries are only stat'ed: O_PATH
// skips what opening it for reading costs.
const openStatOnly = unix.O_PATH
