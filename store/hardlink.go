package store

import (
	"os"
	"syscall"
)

// linkedNames returns the other names, inside the root, of the regular
// files among rels that have more than one hard link. A file tool that
// writes in place through one name changes them all, so each must be
// captured and sealed with it, or a rewind would leave the agent's bytes
// under the others. The baseline (the last sweep's listing) knows every
// file's inode; each name found there is checked on disk to be the same
// file still. Without a baseline nothing is found: the names the agent
// gave are all that is known.
func (s *Store) linkedNames(rels []string) []string {
	type multi struct {
		fi  os.FileInfo
		ino uint64
	}
	var many []multi
	for _, rel := range rels {
		fi, err := s.root.Lstat(rel)
		if err != nil || !fi.Mode().IsRegular() || links(fi) < 2 {
			continue
		}
		many = append(many, multi{fi, inode(fi)})
	}
	if len(many) == 0 {
		return nil
	}
	b, err := s.loadBaseline()
	if err != nil || b == nil {
		return nil
	}
	have := set(rels)
	var out []string
	for i := range b.entries {
		e := &b.entries[i]
		if e.kind == baseDir || e.kind == baseLink || e.kind == baseSpecial || have[e.path] {
			continue
		}
		for _, m := range many {
			if e.ino != m.ino {
				continue
			}
			if fi, err := s.root.Lstat(e.path); err == nil && os.SameFile(fi, m.fi) {
				out = append(out, e.path)
				have[e.path] = true
			}
			break
		}
	}
	return out
}

func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
