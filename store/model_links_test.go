package store_test

// Hard links in TestModel. A shell command makes a second name of a file
// inside the root (ln); from then on the names are one file:
//
//   - a write in place through one name (an edit tool, a hand edit, a
//     command), or a chmod, changes every name; removing one name, moving
//     it, or replacing it (the store's Write renames a new file over it)
//     leaves the others as they are;
//   - a capture of one name captures every other name the last sweep's
//     baseline lists with the same inode that is the same file still, and
//     a seal of one seals those of them the turn captured (CONTRACT.md,
//     "Kinds and names"); without a baseline only the given name is known;
//   - a rewind, undo or redo gives every name its bytes and mode back. A
//     name it writes becomes a file of its own: the store never writes
//     through a hard link (another name may be outside the root), so the
//     group is not kept for the names it writes, and a name it leaves as
//     it is stays a name of the file it was. checkLinks holds the folder to
//     exactly that: the names that share a file on disk are those the
//     model says share one.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// names lists every path that names the same file as p (p among them),
// sorted; none when p is no regular file.
func (m *model) names(p string) []string {
	id, ok := m.ino[p]
	if !ok {
		return nil
	}
	var out []string
	for q, i := range m.ino {
		if i == id {
			out = append(out, q)
		}
	}
	slices.Sort(out)
	return out
}

// setInPlace gives every name of p's file v's bytes and mode, as a write
// through p of a file that is there does; otherwise it is set.
func (m *model) setInPlace(p string, v img) {
	if !m.disk(p).isFile() || !v.isFile() {
		m.set(p, v)
		return
	}
	for _, q := range m.names(p) {
		m.files[q] = fileImg(v.data, v.mode)
	}
}

// put writes v at p on disk and in the model: a regular file that is
// there is written in place (os.WriteFile truncates it), through every
// name it has.
func (h *harness) put(p string, v img) {
	h.diskWrite(p, v)
	h.m.setInPlace(p, v)
}

// chmod changes the mode of p's file, every name of it.
func (h *harness) chmod(p string, mode os.FileMode) {
	if err := os.Chmod(h.abs(p), mode); err != nil {
		h.fatalf("chmod %s: %v", p, err)
	}
	v := h.m.disk(p)
	v.mode = mode
	h.m.setInPlace(p, v)
}

// move is mv p q: q is the name p was, of the same file.
func (h *harness) move(p, q string) {
	cur, id, linked := h.m.disk(p), h.m.ino[p], h.m.disk(p).isFile()
	h.m.set(q, cur)
	h.m.set(p, img{})
	if linked {
		h.m.ino[q] = id
	}
}

// shellLink is ln p q: q, missing, becomes a second name of p's file.
func (h *harness) shellLink(p string) []string {
	var free []string
	for _, q := range h.pool {
		if !h.m.disk(q).exists && h.m.usable(q) && !strings.HasPrefix(q, p+"/") {
			free = append(free, q)
		}
	}
	if len(free) == 0 {
		return nil
	}
	q := free[h.rng.IntN(len(free))]
	if err := os.MkdirAll(filepath.Dir(h.abs(q)), 0o755); err != nil {
		h.fatalf("mkdir for %s: %v", q, err)
	}
	if err := os.Link(h.abs(p), h.abs(q)); err != nil {
		h.fatalf("ln %s %s: %v", p, q, err)
	}
	id := h.m.ino[p]
	h.m.set(q, h.m.disk(p))
	h.m.ino[q] = id
	h.cov["shell-ln"]++
	return []string{fmt.Sprintf("ln %s %s (names %v)", p, q, h.m.names(p))}
}

// pick is a path for a step to touch: from the pool, or now and then a
// name of a file with others, so that writes through one name of a hard
// link are common enough to matter.
func (h *harness) pick() string {
	if h.rng.IntN(3) == 0 {
		var names []string
		for p := range h.m.ino {
			if h.inGroup(p) && slices.Contains(h.pool, p) {
				names = append(names, p)
			}
		}
		if len(names) > 0 {
			slices.Sort(names)
			return names[h.rng.IntN(len(names))]
		}
	}
	return h.pool[h.rng.IntN(len(h.pool))]
}

// linked is what a capture or seal of p adds: the other names of its
// file that the baseline lists with its inode.
func (h *harness) linked(p string) []string {
	names := h.m.names(p)
	if len(names) < 2 || !h.base.ok {
		return nil
	}
	var out []string
	for _, q := range names {
		if q != p && h.base.ino[q] == h.m.ino[p] && h.base.files[q].isFile() {
			out = append(out, q)
		}
	}
	return out
}

// captureLinked captures paths in t, each with the other names of its
// file the store finds (looked at before anything is written).
func (h *harness) captureLinked(t *mturn, paths []string) {
	var extra []string
	for _, p := range paths {
		for _, q := range h.linked(p) {
			if !slices.Contains(paths, q) && !slices.Contains(extra, q) {
				extra = append(extra, q)
			}
		}
	}
	for _, p := range append(slices.Clone(paths), extra...) {
		if _, had := t.pre[p]; !had && slices.Contains(extra, p) {
			h.cov["hardlink-capture"]++
		}
		h.m.capture(t, p)
	}
}

// sealLinked seals paths in t, and the other names of each file that t
// captured.
func (h *harness) sealLinked(t *mturn, paths []string) {
	all := slices.Clone(paths)
	for _, p := range paths {
		for _, q := range h.linked(p) {
			if _, ok := t.pre[q]; ok && !slices.Contains(all, q) {
				all = append(all, q)
				h.cov["hardlink-seal"]++
			}
		}
	}
	for _, p := range all {
		h.m.seal(t, p)
	}
}

// checkLinks compares which names share a file on disk with the model.
func (h *harness) checkLinks() {
	h.t.Helper()
	disk := map[uint64][]string{}
	for p, v := range h.m.files {
		if !v.isFile() {
			continue
		}
		fi, err := os.Lstat(h.abs(p))
		if err != nil {
			h.fatalf("stat %s: %v", p, err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return
		}
		disk[uint64(st.Ino)] = append(disk[uint64(st.Ino)], p)
	}
	groups := func(by map[uint64][]string) []string {
		var out []string
		for _, g := range by {
			if len(g) > 1 {
				slices.Sort(g)
				out = append(out, strings.Join(g, " = "))
			}
		}
		slices.Sort(out)
		return out
	}
	model := map[uint64][]string{}
	for p, id := range h.m.ino {
		model[uint64(id)] = append(model[uint64(id)], p)
	}
	got, want := groups(disk), groups(model)
	if !slices.Equal(got, want) {
		h.fatalf("hard links on disk %q, model %q", got, want)
	}
	if len(got) > 0 {
		h.cov["hardlink-groups"]++
	}
}

// inGroup reports whether p names a file with another name.
func (h *harness) inGroup(p string) bool { return len(h.m.names(p)) > 1 }
