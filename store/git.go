package store

import (
	"os"
	"path/filepath"
	"strings"
)

// GitHead is the commit the project's git HEAD names, or "".
func (s *Store) GitHead() string { return gitHead(s.root) }

// gitHead returns the commit the project's git HEAD names, or "" when
// there is no repository. It reads git's files directly: running git on
// every capture would cost more than the capture.
func gitHead(root *os.Root) string {
	read := func(name string) string {
		var b []byte
		var err error
		if filepath.IsAbs(name) {
			b, err = os.ReadFile(name)
		} else {
			b, err = root.ReadFile(name)
		}
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	gitDir := ".git"
	if fi, err := root.Lstat(".git"); err != nil {
		return ""
	} else if !fi.IsDir() {
		g, ok := strings.CutPrefix(read(".git"), "gitdir: ")
		if !ok {
			return ""
		}
		gitDir = g
	}
	join := func(a, b string) string { return filepath.Join(a, b) }
	common := gitDir
	if c := read(join(gitDir, "commondir")); c != "" {
		if filepath.IsAbs(c) {
			common = c
		} else {
			common = join(gitDir, c)
		}
	}
	head := read(join(gitDir, "HEAD"))
	ref, ok := strings.CutPrefix(head, "ref: ")
	if !ok {
		return head
	}
	if h := read(join(gitDir, ref)); h != "" {
		return h
	}
	if h := read(join(common, ref)); h != "" {
		return h
	}
	for _, line := range strings.Split(read(join(common, "packed-refs")), "\n") {
		if sha, name, ok := strings.Cut(line, " "); ok && name == ref {
			return sha
		}
	}
	return ""
}
