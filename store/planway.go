package store

import (
	"io/fs"
	"path"
	"strings"
)

// wayBlocked returns a test of the folders on a path's way, for steps
// that write the path: when one of them is a file or a symbolic link now
// (put there since the path was recorded) and the plan does not itself
// put that folder right (a goal there wanting a folder, or nothing), the
// step cannot be done without removing what stands there, which is no
// operation's to remove; nor is a link ever written through. The test
// says why, or "" when the way is clear or made by the plan. Each folder
// is looked at once per plan, from the top down.
func (s *Store) wayBlocked(goals []wanted) func(rel string) string {
	mend := map[string]bool{}
	for _, g := range goals {
		if g.refused == "" && (g.img.Kind == ImageDir || g.img.Kind == ImageAbsent) {
			mend[g.path] = true
		}
	}
	kinds := map[string]fs.FileMode{}
	const absent = fs.ModeIrregular // a marker: nothing there
	return func(rel string) string {
		if path.IsAbs(rel) {
			return ""
		}
		for i := 0; ; {
			j := strings.IndexByte(rel[i:], '/')
			if j < 0 {
				return ""
			}
			dir := rel[:i+j]
			i += j + 1
			if mend[dir] {
				return "" // its own step puts it right, looking above it
			}
			m, ok := kinds[dir]
			if !ok {
				m = absent
				if fi, err := s.root.Lstat(dir); err == nil {
					m = fi.Mode().Type()
				}
				kinds[dir] = m
			}
			switch {
			case m == absent:
				return "" // made as the step writes the path
			case m == fs.ModeDir:
			case m == fs.ModeSymlink:
				return "not restored: a symbolic link stands where its folder " + dir + " was"
			default:
				return "not restored: a file stands where its folder " + dir + " was"
			}
		}
	}
}

// wayIsFolders reports whether every folder above rel is a real folder,
// or missing (to be made): none is a link, which an os.Root would follow
// to make or remove a folder somewhere else, and none is a file.
func (s *Store) wayIsFolders(rel string) bool {
	for i := 0; ; {
		j := strings.IndexByte(rel[i:], '/')
		if j < 0 {
			return true
		}
		fi, err := s.root.Lstat(rel[:i+j])
		switch {
		case err != nil:
			return true
		case !fi.IsDir():
			return false
		}
		i += j + 1
	}
}
