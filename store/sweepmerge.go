package store

// The merge at the heart of a shell sweep: the old baseline and the new
// listing, both in path order, walked side by side.

import (
	"slices"
	"strings"
)

// dirMode is the mode a rewind gives a folder it makes for the files it
// puts back, when nothing recorded the folder's own.
const dirMode = 0o755

// sweepMerge is what merging the old baseline's entries with the new
// listing found: the changes, the paths to read, the racy files to hash,
// and the next baseline's entries in path order as the merge met them
// (j ≥ 0 is now[j], -(i+1) an old entry that stands).
type sweepMerge struct {
	changes, racy []sweepChange
	toRead        []string
	order         []int32
	// touched lists the old entries the merge changed in place (their
	// times dropped), which the next baseline must write.
	touched []int32
	// added lists the entries of now that old lacks.
	added []int32
	// shut lists the folders the old baseline listed that the walk could
	// not open (see sweep_shut.go).
	shut []string
}

// mergeListing walks the old entries and the new listing, both in path
// order, side by side. unread lists the folders the walk could not read:
// what the old baseline holds under them stands.
func mergeListing(old *baseline, oldEntries []baseEntry, now []*baseEntry, unread []string) *sweepMerge {
	m := &sweepMerge{}
	m.order = make([]int32, 0, len(now)+8)
	i, j := 0, 0
	for i < len(oldEntries) || j < len(now) {
		switch {
		case j == len(now) || i < len(oldEntries) && oldEntries[i].path < now[j].path:
			o := &oldEntries[i]
			i++
			if under(o.path, unread) {
				if len(m.shut) > 0 && o.kind != baseDir && o.kind != baseUnknown && under(o.path, m.shut) {
					m.shutIn(o, i-1)
				}
				// Not listed this time, it stands: -(its index+1). Its stat
				// was taken under the old baseline's time; one racy then
				// (a file, or a folder whose listing it vouches for) would
				// look settled under the new one, so it loses its times
				// and is read again once it can be.
				if o.mtime >= old.at-racyWindow || o.ctime >= old.at-racyWindow {
					o.mtime, o.ctime = 0, 0
					m.touched = append(m.touched, int32(i-1))
				}
				m.order = append(m.order, int32(-i))
				continue
			}
			if o.kind != baseDir || nestedGit(o) || o.mode != dirMode {
				// A vanished folder of a mode of its own is recorded, so a
				// rewind makes it again with that mode.
				m.changes = append(m.changes, sweepChange{old: o})
			}
		case i == len(oldEntries) || now[j].path < oldEntries[i].path:
			n := now[j]
			m.order = append(m.order, int32(j))
			m.added = append(m.added, int32(j))
			j++
			switch {
			case n.kind != baseDir:
				m.changes = append(m.changes, sweepChange{now: n})
				if n.kind != baseUnknown && n.kind != baseSpecial { // a folder it could not list; nothing to read
					m.toRead = append(m.toRead, n.path)
				}
			case !holdsNew(now[j:], n.path):
				// A new folder with nothing new in it (mkdir e) is
				// recorded itself, so a rewind removes it; one that holds
				// new entries is recorded through them.
				m.changes = append(m.changes, sweepChange{now: n})
			}
		default:
			o, n := &oldEntries[i], now[j]
			m.order = append(m.order, int32(j))
			i, j = i+1, j+1
			if o.sameStat(n) && !old.racy(o) {
				n.sum, n.link, n.kind = o.sum, o.link, o.kind
				continue
			}
			if o.sameStat(n) && o.kind == baseFile && n.kind == baseFile && len(m.racy) < racyHashMax {
				m.racy = append(m.racy, sweepChange{old: o, now: n})
				continue
			}
			switch {
			case n.kind == baseDir && o.kind == baseDir && o.mode == n.mode:
				// A folder is still a folder: what changed is in it.
			case n.kind == baseDir || n.kind == baseUnknown || n.kind == baseSpecial:
				if o.kind == baseDir && n.kind == baseUnknown && n.mode&unlistedDir != 0 {
					m.shut = append(m.shut, n.path)
				}
				// A file or link became a folder (or a folder's mode
				// moved, or it can no longer be listed): recorded with
				// its kind, nothing to read.
				m.changes = append(m.changes, sweepChange{old: o, now: n})
			default:
				m.changes = append(m.changes, sweepChange{old: o, now: n})
				m.toRead = append(m.toRead, n.path)
			}
		}
	}
	// The store's .osfoundry is listed for what the project keeps in it;
	// the folder itself is the store's, never recorded.
	m.changes = slices.DeleteFunc(m.changes, func(c sweepChange) bool { return c.path() == storeTop })
	return m
}

// holdsNew reports whether rest, the listing's entries after the folder
// dir in path order, holds any under it. They follow it, after its
// siblings that sort before dir+"/" ("e.txt" before "e/x").
func holdsNew(rest []*baseEntry, dir string) bool {
	prefix := dir + "/"
	k, _ := slices.BinarySearchFunc(rest, prefix, func(e *baseEntry, p string) int { return strings.Compare(e.path, p) })
	return k < len(rest) && strings.HasPrefix(rest[k].path, prefix)
}

// settleRacy hashes m's racy files: one holding the baseline's bytes,
// which are kept already, is no change. The rest join the changes to
// read. It returns how many it hashed and found the same.
func (s *Store) settleRacy(m *sweepMerge) int {
	hashed := 0
	if len(m.racy) > 0 {
		for _, c := range m.racy {
			if s.sameBytes(c.now, c.old) {
				c.now.sum, c.now.kind = c.old.sum, c.old.kind
				hashed++
				continue
			}
			m.changes = append(m.changes, c)
			m.toRead = append(m.toRead, c.now.path)
		}
		slices.SortFunc(m.changes, func(a, b sweepChange) int { return strings.Compare(a.path(), b.path()) })
		slices.Sort(m.toRead)
	}
	return hashed
}

// nextBaseline lays out the next baseline's entries in the merge's order,
// leaving out the paths that are no longer a file, link or folder.
func nextBaseline(order []int32, oldEntries []baseEntry, now []*baseEntry) []*baseEntry {
	next := make([]*baseEntry, 0, len(order))
	for _, k := range order {
		switch {
		case k < 0:
			next = append(next, &oldEntries[-k-1])
		case now[k].kind != 0:
			next = append(next, now[k])
		}
	}
	return next
}
