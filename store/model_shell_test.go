package store_test

// Shell steps of TestModel: a command run between two sweeps (CONTRACT.md,
// "Shell commands"). The model keeps its own baseline: what the folder held
// at the last sweep, the turn it was made for, and the size of ops.log then.
//
//   - before a command, the sweep is skipped when the baseline was made
//     for the same turn and no operation ran since; otherwise the baseline
//     becomes the folder as it is (what changed is a hand edit, in no turn);
//   - after it, every path whose bytes, mode or link differ from the
//     baseline is captured in the turn with the baseline as its pre-image
//     (the first capture wins; folders the baseline lacked are the turn's)
//     and sealed with the disk, unless the turn sealed those very bytes
//     already; then the baseline becomes the folder.

import (
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ckpt-dev/ckpt/store"
)

// shellBase is the model's baseline.
type shellBase struct {
	ok    bool
	files map[string]img
	dirs  map[string]bool
	ino   map[string]int // which file each regular file named (the baseline knows inodes)
	turn  string
	ops   int64
	// bornOps is ops.log's size when the baseline's turn began: a turn
	// goes on only while no operation ran since it began (an operation's
	// newer-turn rule orders turns by when they began).
	bornOps int64
}

// opsSize is the size of ops.log, which every applied operation grows.
func (h *harness) opsSize() int64 {
	fi, err := os.Stat(filepath.Join(h.root, ".osfoundry", "checkpoints", "ops.log"))
	if err != nil {
		return 0
	}
	return fi.Size()
}

func (h *harness) takeBase(turn string) {
	born := h.base.bornOps
	if turn != h.base.turn {
		born = h.opsSize()
	}
	h.base = shellBase{ok: true, files: maps.Clone(h.m.files), dirs: maps.Clone(h.m.dirs), ino: maps.Clone(h.m.ino), turn: turn, ops: h.opsSize(), bornOps: born}
}

func (h *harness) shellStep() {
	var mt *mturn
	if h.base.ok && h.rng.IntN(2) == 0 {
		if t := h.m.byID[h.base.turn]; t != nil && !t.rewound && t == h.m.turns[len(h.m.turns)-1] && h.base.bornOps == h.opsSize() {
			mt = t
			h.cov["shell-same-turn"]++
		}
	}
	if mt == nil {
		label := fmt.Sprintf("shell turn at step %d", h.step)
		id, err := h.s.NewTurn(store.TurnMeta{Label: label})
		if err != nil {
			h.fatalf("NewTurn: %v", err)
		}
		mt = h.m.newTurn(string(id), label)
	}
	id := mt.id
	h.touched[id] = true
	cmd := fmt.Sprintf("make step%d", h.step)
	res, err := h.s.SweepBefore(store.TurnID(id), store.TurnMeta{}, cmd)
	if err != nil {
		h.fatalf("SweepBefore(%s): %v", id, err)
	}
	skip := h.base.ok && h.base.turn == id && h.base.ops == h.opsSize()
	if res.Skipped != skip || len(res.Changed) > 0 {
		h.fatalf("SweepBefore(%s): skipped %v, changed %v; want skipped %v, nothing recorded", id, res.Skipped, res.Changed, skip)
	}
	if skip {
		h.cov["shell-skip-before"]++
	} else {
		h.takeBase(id)
	}

	// The command.
	var desc []string
	for range 1 + h.rng.IntN(4) {
		desc = append(desc, h.shellChange()...)
	}
	h.logf("shell step in turn %s (sweep before skipped: %v): %s", id, skip, strings.Join(desc, "; "))

	res, err = h.s.SweepAfter(store.TurnID(id), store.TurnMeta{}, cmd)
	if err != nil {
		h.fatalf("SweepAfter(%s): %v", id, err)
	}
	changed := h.shellChanged()
	if !slices.Equal(res.Changed, changed) {
		h.fatalf("SweepAfter(%s) found %v changed, want %v", id, res.Changed, changed)
	}
	if len(changed) > 0 && res.Turn != store.TurnID(id) {
		h.fatalf("SweepAfter(%s) recorded in turn %q", id, res.Turn)
	}
	for _, p := range changed {
		now := h.m.disk(p)
		if post, ok := mt.post[p]; ok && post.same(now) {
			continue // sealed by the agent's own tool already
		}
		if _, ok := mt.pre[p]; !ok {
			pre := h.base.img(p)
			mt.paths = append(mt.paths, p)
			mt.pre[p] = pre
			mt.capSeq[p] = h.m.tick()
			if pre.big() {
				h.m.bigCaptures++
			}
			if !pre.exists {
				for d := path.Dir(p); d != "."; d = path.Dir(d) {
					if h.base.dirs[d] {
						continue
					}
					mt.madeBy[p] = append(mt.madeBy[p], d)
					if !slices.Contains(mt.made, d) {
						mt.made = append(mt.made, d)
					}
				}
			}
		}
		h.m.seal(mt, p)
	}
	if len(changed) > 0 {
		h.cov["shell-recorded"]++
	}
	h.takeBase(id)
	h.moved = true
}

// img is what p held at the baseline.
func (b *shellBase) img(p string) img {
	if b.dirs[p] {
		return dirImg
	}
	return b.files[p]
}

// shellChanged lists the paths the sweep after a command records: every
// file or link whose bytes, mode or target differ from the baseline, and
// every path whose kind changed (a file or link that became a folder, or a
// folder that became one). A folder made or removed is no change of its
// own: what was in it is.
func (h *harness) shellChanged() []string {
	all := map[string]bool{}
	for _, m := range []map[string]img{h.base.files, h.m.files} {
		for p := range m {
			all[p] = true
		}
	}
	for _, m := range []map[string]bool{h.base.dirs, h.m.dirs} {
		for p := range m {
			all[p] = true
		}
	}
	var changed []string
	for _, p := range slices.Sorted(maps.Keys(all)) {
		was, now := h.base.img(p), h.m.disk(p)
		switch {
		case was.dir && now.dir, was.dir && !now.exists, !was.exists && now.dir:
		case !was.same(now):
			changed = append(changed, p)
		}
	}
	return changed
}

// shellChange is one change a command makes, described.
func (h *harness) shellChange() []string {
	p := h.pick()
	cur := h.m.disk(p)
	n := h.rng.IntN(12)
	if cur.dir {
		n = 6
	} else if !h.m.usable(p) {
		return nil
	}
	switch {
	case n < 2 && cur.exists:
		h.diskRemove(p)
		h.m.set(p, img{})
		h.cov["shell-delete"]++
		return []string{"rm " + p}
	case n < 4 && cur.exists:
		q := h.pool[h.rng.IntN(len(h.pool))]
		if h.m.disk(q).exists || q == p || strings.HasPrefix(q, p+"/") || !h.m.usable(q) {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(h.abs(q)), 0o755); err != nil {
			h.fatalf("mkdir for %s: %v", q, err)
		}
		if err := os.Rename(h.abs(p), h.abs(q)); err != nil {
			h.fatalf("mv %s %s: %v", p, q, err)
		}
		h.move(p, q)
		h.cov["shell-move"]++
		return []string{"mv " + p + " " + q}
	case n < 5 && cur.isFile():
		v := cur
		v.mode ^= 0o111
		h.chmod(p, v.mode)
		h.cov["shell-chmod"]++
		return []string{fmt.Sprintf("chmod %v %s", v.mode, p)}
	case n < 6 && cur.exists:
		// rm p; mkdir p; echo … > p/k: a file or link becomes a folder.
		h.diskRemove(p)
		h.m.set(p, img{})
		k := p + "/k"
		v := fileImg(fmt.Sprintf("in the folder %s made at step %d\n", p, h.step), 0o644)
		h.put(k, v)
		h.cov["shell-to-folder"]++
		return []string{fmt.Sprintf("rm %s; mkdir %s; write %s=%s", p, p, k, v)}
	case n < 7:
		return h.shellFolderGoes()
	case n < 8 && h.rng.IntN(2) == 0:
		// truncate and write at offsets: a sparse file, a hole in it.
		v := fileImg("header of "+p+"\n", 0o644)
		v.data += strings.Repeat("\x00", 2*holeBlock-len(v.data)) + "tail\n"
		h.diskWriteSparse(p, v)
		h.m.set(p, v)
		h.cov["shell-sparse"]++
		return []string{"write sparse " + p}
	case n < 8:
		// ln -sf: a file (or nothing) becomes a link.
		v := h.linkImg()
		h.put(p, v)
		h.cov["shell-to-link"]++
		return []string{fmt.Sprintf("ln -sf %s %s", v.link, p)}
	}
	if n < 10 && cur.isFile() && !h.m.purged[p] {
		// ln p q: a second name of the file.
		return h.shellLink(p)
	}
	v := h.agentWriteImg(p)
	if cur.isLink() {
		h.cov["shell-link-to-file"]++
	}
	if h.inGroup(p) {
		h.cov["shell-write-linked"]++
	}
	h.put(p, v)
	h.cov["shell-write"]++
	return []string{fmt.Sprintf("write %s=%s", p, v)}
}

// shellFolderGoes is rm -rf d and a file or a link in its place: a
// folder, and all that is in it, becomes one path of another kind.
func (h *harness) shellFolderGoes() []string {
	dirs := slices.Sorted(maps.Keys(h.m.dirs))
	if len(dirs) == 0 {
		return nil
	}
	d := dirs[h.rng.IntN(len(dirs))]
	if err := os.RemoveAll(h.abs(d)); err != nil {
		h.fatalf("rm -rf %s: %v", d, err)
	}
	h.m.removeAll(d)
	v := fileImg(fmt.Sprintf("a file where the folder %s was, step %d\n", d, h.step), 0o644)
	what := "shell-folder-to-file"
	if h.rng.IntN(3) == 0 {
		v, what = h.linkImg(), "shell-folder-to-link"
	}
	h.put(d, v)
	h.cov[what]++
	return []string{fmt.Sprintf("rm -rf %s; put %s=%s", d, d, v)}
}

// diskWriteSparse writes v's bytes leaving its blocks of zeros unwritten,
// as holes.
func (h *harness) diskWriteSparse(p string, v img) {
	h.diskRemove(p)
	if err := os.MkdirAll(filepath.Dir(h.abs(p)), 0o755); err != nil {
		h.fatalf("mkdir for %s: %v", p, err)
	}
	f, err := os.OpenFile(h.abs(p), os.O_WRONLY|os.O_CREATE|os.O_EXCL, v.mode)
	if err != nil {
		h.fatalf("create %s: %v", p, err)
	}
	defer f.Close()
	zero := strings.Repeat("\x00", holeBlock)
	for off := 0; off < len(v.data); off += holeBlock {
		b := v.data[off:min(off+holeBlock, len(v.data))]
		if b == zero {
			continue
		}
		if _, err := f.WriteAt([]byte(b), int64(off)); err != nil {
			h.fatalf("write %s: %v", p, err)
		}
	}
	if err := f.Truncate(int64(len(v.data))); err != nil {
		h.fatalf("truncate %s: %v", p, err)
	}
}

// holed reports whether the file p has a hole before its end.
func (h *harness) holed(p string) bool {
	f, err := os.Open(h.abs(p))
	if err != nil {
		h.fatalf("open %s: %v", p, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		h.fatalf("stat %s: %v", p, err)
	}
	off, err := unix.Seek(int(f.Fd()), 0, unix.SEEK_HOLE)
	return err == nil && off < fi.Size()
}

// keepsHoles reports whether the file system under dir keeps a sparse
// file's holes.
func keepsHoles(dir string) bool {
	f, err := os.CreateTemp(dir, "holes")
	if err != nil {
		return false
	}
	defer os.Remove(f.Name())
	defer f.Close()
	f.WriteAt([]byte("x"), 4*holeBlock)
	off, err := unix.Seek(int(f.Fd()), 0, unix.SEEK_HOLE)
	return err == nil && off < 4*holeBlock
}
