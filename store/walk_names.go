package store

import (
	"errors"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// sameEntry reports whether the names a and b in the folder dirfd are one
// file (a file system that folds case finds one under both spellings).
func sameEntry(dirfd int, a, b string) bool {
	var sa, sb unix.Stat_t
	return unix.Fstatat(dirfd, a, &sa, unix.AT_SYMLINK_NOFOLLOW) == nil &&
		unix.Fstatat(dirfd, b, &sb, unix.AT_SYMLINK_NOFOLLOW) == nil &&
		sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// joinNames is prefix+name for each name, the paths sharing one string.
func joinNames(prefix string, names []string) []string {
	size := len(names) * len(prefix)
	for _, n := range names {
		size += len(n)
	}
	var b strings.Builder
	b.Grow(size)
	for _, n := range names {
		b.WriteString(prefix)
		b.WriteString(n)
	}
	all, off := b.String(), 0
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = all[off : off+len(prefix)+len(n)]
		off += len(prefix) + len(n)
	}
	return paths
}

// readNames lists the folder fd with getdents (getdirentries on macOS)
// into buf, which it reuses.
func readNames(fd int, buf []byte) ([]string, error) {
	var names []string
	for {
		n, err := unix.ReadDirent(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

// under reports whether rel lies in one of the folders dirs.
func under(rel string, dirs []string) bool {
	for _, d := range dirs {
		if d == "" || rel == d || strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return false
}

// parents lists rel's folders, outermost first.
func parents(rel string) []string {
	var out []string
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		out = append(out, d)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
