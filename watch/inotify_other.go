//go:build !linux

package watch

import "fmt"

// newSource fails where there is no inotify: macOS's kqueue needs a
// descriptor per file, which a tree of any size soon runs out of, and
// it cannot say which file in a folder changed. Sweeps there list the
// whole tree, as without a watcher.
func newSource() (source, error) {
	return nil, fmt.Errorf("%w: no inotify on this system (kqueue would need a descriptor per file)", ErrUnsupported)
}

func untrusted(root string) string { return "" }
