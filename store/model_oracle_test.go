package store_test

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/store"
)

// The model TestModel holds the store to: an in-memory account of the
// folder, the turns and the operations, written from CONTRACT.md's rules.
// Nothing in this file calls store code.

// img is what a path holds in the model: a regular file with bytes and
// permission bits, a symbolic link, a folder, or nothing.
type img struct {
	exists bool
	data   string
	mode   fs.FileMode
	link   string // the target, for a symbolic link
	dir    bool   // a folder (its mode is not tracked: every one is 755)
	// purged: a kept copy ckpt purge removed; nothing can put it back.
	purged bool
}

// purgedCopy is what a purge leaves of a kept image: nothing of an
// absent one was kept, so that stays as it is.
func (a img) purgedCopy() img {
	if !a.exists {
		return a
	}
	return img{exists: true, mode: a.mode, purged: true}
}

func fileImg(data string, mode fs.FileMode) img { return img{exists: true, data: data, mode: mode} }

// dirImg is a folder.
var dirImg = img{exists: true, dir: true}

func (a img) isLink() bool { return a.exists && a.link != "" }

// big says a capture records the file skipped: its bytes are over the
// store's size limit and are not kept.
func (a img) big() bool { return a.isFile() && !a.purged && len(a.data) > modelMaxBlob }

// lost: a rewind cannot put it back (over the size limit, or purged).
func (a img) lost() bool { return a.big() || a.purged }

// modelMaxBlob is the size limit the model's store is opened with, small
// enough that some files go over it, large enough for a sparse file.
const modelMaxBlob = 16 << 10

// holeBlock is the block of zeros a sparse file's hole is made of.
const holeBlock = 4 << 10

// hasHole reports whether data holds a block of zeros aligned to the
// file's offsets, which comes back from the store as a hole.
func hasHole(data string) bool {
	zero := strings.Repeat("\x00", holeBlock)
	for off := 0; off+holeBlock <= len(data); off += holeBlock {
		if data[off:off+holeBlock] == zero {
			return true
		}
	}
	return false
}

func (a img) isFile() bool { return a.exists && a.link == "" && !a.dir }

func (a img) sameBytes(b img) bool {
	return a.exists == b.exists && a.data == b.data && a.link == b.link && a.purged == b.purged && a.dir == b.dir
}

func (a img) same(b img) bool { return a.sameBytes(b) && (a.isLink() || a.dir || a.mode == b.mode) }

func (a img) String() string {
	switch {
	case !a.exists:
		return "absent"
	case a.purged:
		return "purged"
	case a.dir:
		return "folder"
	case a.isLink():
		return "link → " + a.link
	}
	return fmt.Sprintf("%q %v", abbrev(a.data), a.mode)
}

func abbrev(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%s…(%d bytes, sha %s)", s[:24], len(s), sum(s).Short())
	}
	return s
}

func sum(s string) store.BlobID { return sha256.Sum256([]byte(s)) }

type mturn struct {
	id, label string
	seq       int
	rewound   bool
	paths     []string       // in order of first capture
	pre       map[string]img // first capture wins
	post      map[string]img // newest seal
	sealSeq   map[string]int
	capSeq    map[string]int
	made      []string            // folders missing when the turn first captured a path beneath them
	madeBy    map[string][]string // of made, those the first capture of each path found missing
	successor bool                // a capture naming this rewound turn started id.2
}

// mrewind is one rewind and its later undos and redos.
type mrewind struct {
	op, target string
	turns      []*mturn
	paths      []string
	want       map[string]img
	made       []string
	before     map[string]img // the paths before the newest application (rewind or redo)
	live       []string       // paths whose pre-image was kept; the others fail and stay as they are
	removed    []string       // folders the newest application removed
	had        []string       // folders it could remove that stood as it began: its undo makes those missing then
	created    []string       // folders the newest application created
	appliedSeq int            // newest application
	undoneSeq  int            // newest undo
	// failSeq (undoFailSeq) is when fails (undoFails) were last tried:
	// the newest application (undo) or a retry of it since, which tried
	// them again after whatever put them or captured them afresh before.
	failSeq, undoFailSeq int
	applyOp              string // op id of the newest application
	undoOp               string // op id of the newest undo
	// applyHolder and undoHolder are the op ids a retry of the newest
	// application (undo) names: it, or its newest retry that failed again.
	applyHolder, undoHolder string
	// planFails are the paths the newest application's plan failed for
	// what stood in their way: it never changed them, so its undo leaves
	// them alone, whatever a retry did since.
	planFails []string
	// retryHolds: fails are those a retry of the newest redo failed
	// again, held by that retry, not by the redo: rewinding its turns
	// again is no retry of them alone (undo or redo again is), only with
	// leftFails.
	retryHolds bool
	everUndone bool
	fails      []string // paths the application in effect failed (a pre-image over the limit, a failed write)
	undoFails  []string // paths its newest undo failed to put back
	// purgedFails and purgedUndoFails are those of fails and undoFails
	// failed because what they wanted was purged: run again, they fail
	// again, so they are not retried.
	purgedFails, purgedUndoFails []string
	// retried is the application this one, a retry of a rewind, tried
	// again, and heldFails what retried had failed while this one is in
	// effect: undoing it makes them failed again, redoing it moot again.
	retried   *mrewind
	heldFails []string
	// leftFails are the paths the rewind's plan failed (paths not live)
	// while a redo of it is in effect: the redo leaves them as they are,
	// failed by the rewind still, at leftSeq (when it was applied), and
	// rewinding its turns again retries them. heldLeft is what of
	// retried's leftFails this retry made moot.
	leftFails, heldLeft []string
	leftSeq             int
}

// opWrite is an operation's write of a path. op is the application
// (rewind or redo) whose work it is, "" for an undo's: a failed path is
// put right only by a write whose application is still in effect.
type opWrite struct {
	seq int
	img img
	op  string
}

type mop struct {
	kind    store.Kind
	rw      *mrewind
	seq     int
	targets []string // ids an undo or redo entry may name as its target
	// none: every step failed, so the operation changed nothing; target
	// and turns are what its log entry says.
	none   bool
	target string
	turns  []string
	// fails: the paths an operation that changed nothing failed (all of
	// them); retryOf: the application whose failures it tried again, so
	// its failures stand only while that application's do.
	fails   []string
	retryOf *mrewind
	retryOp string
	// undoRetry: retryOf's undo was what it tried again, so its failures
	// stand only while that undo's do (no rewind made it moot since).
	undoRetry bool
}

type model struct {
	files map[string]img
	dirs  map[string]bool
	// ino says which file each regular file's path names: paths with the
	// same number are hard links of one file (model_links_test.go).
	ino     map[string]int
	nextIno int
	turns   []*mturn // oldest first
	byID    map[string]*mturn
	seq     int
	writes  map[string][]opWrite // what operations wrote, per path
	undo    []*mrewind           // in effect, newest last
	redo    []*mrewind           // undone, most recently undone last
	ops     map[string]*mop
	// lastUndo (lastRedo) is the application whose undo (redo) was the
	// newest operation that changed something but a rewind: undo (redo)
	// again retries what that failed.
	lastUndo, lastRedo *mrewind
	bigCaptures        int // captures of files over the size limit
	// redoCleared is set when a rewind emptied a non-empty redo stack, and
	// reset by the next redo attempt.
	redoCleared bool
	// noneOps are the operations that changed nothing, oldest first;
	// lastFail is, per path, the seq of the newest operation that failed it.
	noneOps  []*mop
	lastFail map[string]int
	// purged are the paths whose kept copies were purged; the steps leave
	// them alone from then on.
	purged map[string]bool
}

func newModel() *model {
	return &model{
		files:  map[string]img{},
		dirs:   map[string]bool{},
		ino:    map[string]int{},
		byID:   map[string]*mturn{},
		writes: map[string][]opWrite{},
		ops:    map[string]*mop{},
		// lastFail is set as operations fail paths.
		lastFail: map[string]int{},
		purged:   map[string]bool{},
	}
}

func (m *model) tick() int { m.seq++; return m.seq }

func (m *model) disk(p string) img {
	if m.dirs[p] {
		return dirImg
	}
	return m.files[p]
}

func (m *model) mkdirAll(dir string) {
	for d := dir; d != "." && d != ""; d = path.Dir(d) {
		m.dirs[d] = true
	}
}

// set gives p the image v. A file or link put where a folder stands
// replaces it and everything under it; a folder replaces a file or link.
// Absent removes a file or link, never a folder (folders go when they are
// left empty, by prune).
//
// A file set so is a file of its own (a new inode): p leaves the hard-link
// group it was a name of, and the other names keep what they hold.
func (m *model) set(p string, v img) {
	delete(m.ino, p)
	switch {
	case v.dir:
		delete(m.files, p)
		m.mkdirAll(p)
	case v.exists:
		m.removeAll(p)
		m.mkdirAll(path.Dir(p))
		m.files[p] = v
		if v.isFile() {
			m.nextIno++
			m.ino[p] = m.nextIno
		}
	default:
		delete(m.files, p)
	}
}

// removeAll removes p and everything under it, as rm -rf does.
func (m *model) removeAll(p string) {
	delete(m.files, p)
	delete(m.dirs, p)
	delete(m.ino, p)
	for f := range m.files {
		if strings.HasPrefix(f, p+"/") {
			delete(m.files, f)
			delete(m.ino, f)
		}
	}
	for d := range m.dirs {
		if strings.HasPrefix(d, p+"/") {
			delete(m.dirs, d)
		}
	}
}

// usable reports whether a step may write p as a file: p is no folder
// and no folder on its way is a file or a link now (a write there would
// fail, or go through the link).
func (m *model) usable(p string) bool {
	if m.dirs[p] {
		return false
	}
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if _, ok := m.files[d]; ok {
			return false
		}
	}
	return true
}

// writeAll gives each of paths its image in want, seq the operation's
// step and op the application it is part of ("" for an undo), skipping
// those in skip: what goes first, then the rest from the
// top down, so a folder is made before what is in it and a file or link
// replaces a folder only once what was in it is gone.
func (m *model) writeAll(paths []string, want map[string]img, seq int, op string, skip []string) {
	ordered := slices.Clone(paths)
	slices.SortStableFunc(ordered, func(a, b string) int {
		ea, eb := want[a].exists, want[b].exists
		switch {
		case ea == eb:
			return strings.Compare(a, b)
		case !ea:
			return -1
		}
		return 1
	})
	for _, p := range ordered {
		if !slices.Contains(skip, p) {
			m.write(p, want[p], seq, op)
		}
	}
}

// missingDirs lists p's ancestor folders that do not exist.
func (m *model) missingDirs(p string) []string {
	var out []string
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if !m.dirs[d] {
			out = append(out, d)
		}
	}
	return out
}

func (m *model) empty(d string) bool {
	for f := range m.files {
		if strings.HasPrefix(f, d+"/") {
			return false
		}
	}
	for e := range m.dirs {
		if strings.HasPrefix(e, d+"/") {
			return false
		}
	}
	return true
}

// prune removes the folders of made that are empty, deepest first.
func (m *model) prune(made []string) []string {
	ds := slices.Clone(made)
	slices.SortFunc(ds, func(a, b string) int {
		if c := strings.Count(b, "/") - strings.Count(a, "/"); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	ds = slices.Compact(ds)
	var removed []string
	for _, d := range ds {
		if m.dirs[d] && m.empty(d) {
			delete(m.dirs, d)
			removed = append(removed, d)
		}
	}
	return removed
}

// passedThrough says t made p and removed it again, with no folder made
// for it: then p is no path of t (see turn.list).
func (t *mturn) passedThrough(p string) bool {
	post, sealed := t.post[p]
	return sealed && !t.pre[p].exists && !post.exists && len(t.madeBy[p]) == 0
}

// shown is t's paths less those it passed through, as the store lists them.
func (t *mturn) shown() []string {
	return slices.DeleteFunc(slices.Clone(t.paths), t.passedThrough)
}

func (m *model) newTurn(id, label string) *mturn {
	t := &mturn{id: id, label: label, seq: m.tick(), pre: map[string]img{}, post: map[string]img{}, sealSeq: map[string]int{}, capSeq: map[string]int{}, madeBy: map[string][]string{}}
	m.turns = append(m.turns, t)
	m.byID[id] = t
	return t
}

func (m *model) capture(t *mturn, p string) {
	if _, ok := t.pre[p]; ok {
		return
	}
	t.paths = append(t.paths, p)
	t.pre[p] = m.disk(p)
	t.capSeq[p] = m.tick()
	if t.pre[p].big() {
		m.bigCaptures++
	}
	for _, d := range m.missingDirs(p) {
		t.madeBy[p] = append(t.madeBy[p], d)
		if !slices.Contains(t.made, d) {
			t.made = append(t.made, d)
		}
	}
}

func (m *model) seal(t *mturn, p string) {
	t.post[p] = m.disk(p)
	t.sealSeq[p] = m.tick()
}

// expected is what the agent last left at p: the newest seal of an active
// turn. ok is false when nothing is expected, including while a newer
// capture of p waits for its seal.
func (m *model) expected(p string) (img, bool) {
	best, found := -1, false
	var v img
	for _, t := range m.turns {
		if s, ok := t.sealSeq[p]; ok && !t.rewound && s > best && !t.passedThrough(p) {
			best, v, found = s, t.post[p], true
		}
	}
	if found && v.purged {
		// What the agent left is not known any more: nothing is
		// expected, as while the path is being written.
		return img{}, false
	}
	for _, t := range m.turns {
		if c, ok := t.capSeq[p]; ok && !t.rewound && c > best {
			if _, sealed := t.sealSeq[p]; !sealed {
				return img{}, false
			}
		}
	}
	return v, found
}

// fresh reports whether nothing put p or captured it afresh after seq:
// no turn still active captured it (and kept it: see passedThrough),
// and no application still in effect wrote it. An undo's write does not
// count, nor one an undo took back: either leaves p as it was before the
// application undone, failed again where it was failed then.
func (m *model) fresh(p string, seq int) bool {
	for _, w := range m.writes[p] {
		if w.seq > seq && m.inEffect(w.op) {
			return false
		}
	}
	for _, t := range m.turns {
		if c, ok := t.capSeq[p]; ok && !t.rewound && c > seq && !t.passedThrough(p) {
			return false
		}
	}
	return true
}

// inEffect reports whether op is the newest application of a rewind
// still in effect.
func (m *model) inEffect(op string) bool {
	if op == "" {
		return false
	}
	for _, r := range m.undo {
		if r.applyOp == op {
			return true
		}
	}
	return false
}

// noneFailed reports whether o, an operation that changed nothing, still
// has p failed: nothing put p since, and, for a retry, the application
// it tried again still has p failed.
func (m *model) noneFailed(o *mop, p string) bool {
	if !slices.Contains(o.fails, p) || !m.fresh(p, o.seq) {
		return false
	}
	if r := o.retryOf; r != nil && o.undoRetry {
		return r.undoOp == o.retryOp && slices.Contains(m.redo, r) && slices.Contains(r.undoFails, p)
	}
	if r := o.retryOf; r != nil {
		return r.applyOp == o.retryOp && slices.Contains(m.undo, r) && (slices.Contains(r.fails, p) || slices.Contains(r.leftFails, p))
	}
	return true
}

// failedPath reports whether an operation in effect, or one that changed
// nothing, failed p and nothing since put it or captured it afresh.
func (m *model) failedPath(p string) bool {
	fresh := func(seq int) bool { return m.fresh(p, seq) }
	for _, o := range m.noneOps {
		if m.noneFailed(o, p) {
			return true
		}
	}
	for _, r := range m.undo {
		if slices.Contains(r.fails, p) && fresh(r.failSeq) || slices.Contains(r.leftFails, p) && fresh(r.leftSeq) {
			return true
		}
	}
	for _, r := range m.redo {
		if slices.Contains(r.undoFails, p) && fresh(r.undoFailSeq) {
			return true
		}
	}
	return false
}

// retryFails are the paths rewinding r's turns again retries: what its
// application failed, and what the rewind's plan failed that a redo left
// as it was. What a retry of a redo failed again is held by that retry:
// rewinding is no retry of it alone (undo or redo again is).
func (r *mrewind) retryFails() []string {
	if len(r.leftFails) > 0 {
		return append(slices.Clone(r.fails), r.leftFails...)
	}
	if r.retryHolds {
		return nil
	}
	return r.fails
}

// undoPaths are the paths an undo of r puts back: those its application
// did not fail.
func (r *mrewind) undoPaths() []string {
	var out []string
	for _, p := range r.live {
		if !slices.Contains(r.fails, p) && !slices.Contains(r.planFails, p) {
			out = append(out, p)
		}
	}
	return out
}

// unrewind brings back turns no application in effect rewinds.
func (m *model) unrewind(turns []*mturn) {
	for _, u := range turns {
		u.rewound = false
	}
	for _, r := range m.undo {
		for _, u := range r.turns {
			u.rewound = true
		}
	}
}

func (m *model) handEdited(p string) bool {
	if m.failedPath(p) {
		return false
	}
	e, ok := m.expected(p)
	return ok && !e.sameBytes(m.disk(p))
}

// status is what Files(turn, true) must say of p, as a set of acceptable
// answers (a change of mode alone may be reported either way).
func (m *model) status(t *mturn, p string) []store.Status {
	d, pre := m.disk(p), t.pre[p]
	switch {
	case pre.purged:
		return []store.Status{store.StatusPurged}
	case pre.big():
		return []store.Status{store.StatusSkipped}
	case m.failedPath(p):
		return []store.Status{store.StatusFailed}
	case m.handEdited(p):
		return []store.Status{store.StatusHandEdited}
	case !pre.exists && d.exists:
		return []store.Status{store.StatusCreated}
	case pre.exists && !d.exists:
		return []store.Status{store.StatusDeleted}
	case !pre.exists && !d.exists:
		return []store.Status{store.StatusUnchanged}
	case !pre.sameBytes(d):
		return []store.Status{store.StatusModified}
	case pre.isFile() && d.isFile() && pre.mode != d.mode:
		return []store.Status{store.StatusModified, store.StatusUnchanged}
	}
	return []store.Status{store.StatusUnchanged}
}

// planRewind is what rewinding t does: the turns it rewinds, each path's
// oldest pre-image among them, and the folders they created.
func (m *model) planRewind(t *mturn) *mrewind {
	r := &mrewind{target: t.id, want: map[string]img{}}
	// A path a turn passed through has its pre-image weighed too, but
	// only one a turn changed for good is planned.
	kept := map[string]bool{}
	for _, u := range m.turns {
		if u.seq < t.seq || u.rewound {
			continue
		}
		r.turns = append(r.turns, u)
		for _, p := range u.paths {
			if !u.passedThrough(p) {
				kept[p] = true
			}
			if _, ok := r.want[p]; !ok {
				r.want[p] = u.pre[p]
				if slices.Contains(r.made, p) {
					// A folder one of these turns made before this
					// capture: before it, nothing was there.
					r.want[p] = img{}
				}
				r.paths = append(r.paths, p)
			}
			r.made = append(r.made, u.madeBy[p]...)
		}
	}
	r.paths = slices.DeleteFunc(r.paths, func(p string) bool { return !kept[p] })
	for p := range r.want {
		if !kept[p] {
			delete(r.want, p)
		}
	}
	slices.Sort(r.paths)
	for _, p := range r.paths {
		if !r.want[p].lost() {
			r.live = append(r.live, p)
		}
	}
	return r
}

// newer lists the active turns begun after seq that captured one of paths.
func (m *model) newer(paths []string, seq int) []string {
	var out []string
	for _, u := range m.turns {
		if u.rewound || u.seq <= seq {
			continue
		}
		for _, p := range u.shown() {
			if slices.Contains(paths, p) {
				out = append(out, u.id)
				break
			}
		}
	}
	return out
}

func (m *model) snapshot(paths []string) map[string]img {
	s := map[string]img{}
	for _, p := range paths {
		s[p] = m.disk(p)
	}
	return s
}

// write is an operation's write of p. A file that holds v already is
// left as it is, a name of the file it was; any other is written as a
// file of its own (a hard link is never written through).
func (m *model) write(p string, v img, seq int, op string) {
	if d := m.disk(p); !(v.isFile() && d.isFile() && d.same(v)) {
		m.set(p, v)
	}
	m.writes[p] = append(m.writes[p], opWrite{seq, v, op})
}

// applyRewind carries out r (a fresh rewind or a redo of it).
// failed are the paths whose write failed (they stay as they are).
func (m *model) applyRewind(r *mrewind, op string, redo bool, failed []string) {
	seq := m.tick()
	old := r.before
	r.before = m.snapshot(r.live)
	if redo {
		// A path the undo failed still holds what the rewind left (or
		// nothing): undoing the redo gives it what the undo was to.
		for _, p := range r.undoFails {
			if d := m.disk(p); d.sameBytes(r.want[p]) || !d.exists {
				r.before[p] = old[p]
			}
		}
	}
	r.created = nil
	failed, r.purgedFails = withPurged(failed, r.live, r.want)
	// A redo's plan fails a path whose wanted bytes were purged since
	// the rewind: it never changes it, so its undo leaves it alone, even
	// once a retry of the redo took its failures over.
	r.planFails = append(r.planFails, r.purgedFails...)
	for _, p := range r.live {
		if slices.Contains(failed, p) || !r.want[p].exists {
			continue
		}
		r.created = append(r.created, m.missingDirs(p)...)
		if r.want[p].dir && !m.dirs[p] {
			r.created = append(r.created, p)
		}
	}
	// A folder the turns made goes once empty, unless its own oldest
	// pre-image is a folder (it was there before them). Those standing
	// as the operation begins are what its undo gives back where they
	// are missing then. Beneath a path the operation puts a file or a
	// link at, the file wins: such a folder goes even when its oldest
	// pre-image is a folder.
	files := map[string]bool{}
	for _, p := range r.live {
		if w := r.want[p]; (w.isFile() || w.isLink()) && !slices.Contains(failed, p) {
			files[p] = true
		}
	}
	made := slices.DeleteFunc(slices.Clone(r.made), func(d string) bool { return r.want[d].dir && !underAny(files, d) })
	r.had = nil
	for _, d := range made {
		if m.dirs[d] && !slices.Contains(r.had, d) {
			r.had = append(r.had, d)
		}
	}
	m.writeAll(r.live, r.want, seq, op, failed)
	r.removed = m.prune(made)
	for _, u := range r.turns {
		u.rewound = true
	}
	r.appliedSeq, r.failSeq, r.applyOp, r.applyHolder, r.retryHolds = seq, seq, op, op, false
	r.fails = slices.Clone(failed)
	// A redo leaves out the steps the rewind planned to fail: they stay
	// failed by the rewind.
	var left []string
	for _, p := range r.paths {
		if !slices.Contains(r.live, p) {
			left = append(left, p)
		}
	}
	r.leftFails = nil
	if redo {
		r.leftFails = left
	} else {
		r.fails, r.leftSeq = append(r.fails, left...), seq
	}
	for _, p := range r.fails {
		m.lastFail[p] = seq
	}
	m.undo = append(m.undo, r)
	kind := store.KindRewind
	if redo {
		kind = store.KindRedo
		if r.retried != nil {
			// What the retry tried again is moot again; what the
			// application it retried failed since (redone, a purged path)
			// stays failed.
			r.heldFails, r.retried.fails = split(r.retried.fails, r.paths)
			r.heldLeft, r.retried.leftFails = split(r.retried.leftFails, r.paths)
		}
		m.redo = m.redo[:len(m.redo)-1]
		r.undoFails = nil
		m.lastUndo, m.lastRedo = nil, r
	} else {
		if r.op == "" {
			r.op = op
		}
		if len(m.redo) > 0 {
			m.redoCleared = true
		}
		for _, x := range m.redo {
			x.undoFails = nil
		}
		m.redo = nil
		m.lastUndo, m.lastRedo = nil, nil
	}
	m.ops[op] = &mop{kind: kind, rw: r, seq: seq, targets: []string{r.op, r.undoOp}}
}

// failedOp records an operation every step of which failed: it changed
// nothing, but the paths it failed are failed. retryOf is the application
// whose failed paths it tried again, if it was a retry.
func (m *model) failedOp(op string, kind store.Kind, target string, turns, paths []string, retryOf *mrewind) {
	o := &mop{kind: kind, seq: m.tick(), none: true, target: target, turns: turns, fails: sortedCopy(paths), retryOf: retryOf}
	if retryOf != nil {
		o.retryOp = retryOf.applyOp
	}
	for _, p := range paths {
		m.lastFail[p] = o.seq
	}
	m.ops[op] = o
	m.noneOps = append(m.noneOps, o)
}

// applyUndo undoes the newest rewind in effect; the writes of failed
// fail.
func (m *model) applyUndo(op string, failed []string) *mrewind {
	r := m.undo[len(m.undo)-1]
	m.undo = m.undo[:len(m.undo)-1]
	m.ops[op] = &mop{kind: store.KindUndo, rw: r, targets: []string{r.op, r.applyOp}}
	seq := m.tick()
	m.ops[op].seq = seq
	failed, r.purgedUndoFails = withPurged(failed, r.undoPaths(), r.before)
	m.writeAll(r.undoPaths(), r.before, seq, "", failed)
	// The folder before the rewind, exactly: folders it created and left
	// empty go, folders it removed come back.
	m.prune(r.created)
	for _, d := range r.had {
		// Not where a file or a link stands now, on its way or in its
		// place: a folder is never made through a link.
		if _, ok := m.files[d]; !ok && m.usable(d) {
			m.mkdirAll(d)
		}
	}
	m.unrewind(r.turns)
	r.undoneSeq, r.undoFailSeq, r.undoOp, r.undoHolder, r.everUndone = seq, seq, op, op, true
	r.fails, r.leftFails = nil, nil
	if r.retried != nil {
		// A retry undone: what it retried is failed again.
		for _, p := range r.heldFails {
			if !slices.Contains(r.retried.fails, p) {
				r.retried.fails = append(r.retried.fails, p)
			}
		}
		for _, p := range r.heldLeft {
			if !slices.Contains(r.retried.leftFails, p) {
				r.retried.leftFails = append(r.retried.leftFails, p)
			}
		}
		r.heldFails, r.heldLeft = nil, nil
	}
	r.undoFails = slices.Clone(failed)
	for _, p := range failed {
		m.lastFail[p] = seq
	}
	m.redo = append(m.redo, r)
	m.lastUndo, m.lastRedo = r, nil
	return r
}

// withPurged adds to failed the paths whose wanted image was purged: an
// operation fails them, and leaves them as they are.
func withPurged(failed, paths []string, want map[string]img) (all, purged []string) {
	all = slices.Clone(failed)
	for _, p := range paths {
		if want[p].purged && !slices.Contains(all, p) {
			all = append(all, p)
			purged = append(purged, p)
		}
	}
	return all, purged
}

// split parts paths into those in set and the others.
func split(paths, set []string) (in, out []string) {
	for _, p := range paths {
		if slices.Contains(set, p) {
			in = append(in, p)
		} else {
			out = append(out, p)
		}
	}
	return in, out
}

// retryable reports whether an undo or redo that failed paths is run
// again: not when it failed each because what it wanted there was
// purged.
func retryable(fails, purged []string) bool {
	for _, p := range fails {
		if !slices.Contains(purged, p) {
			return true
		}
	}
	return false
}

// purge makes every kept image of p purged: in the turns, and in what
// operations keep to undo and redo.
func (m *model) purge(p string) {
	m.purged[p] = true
	for _, t := range m.turns {
		if v, ok := t.pre[p]; ok {
			t.pre[p] = v.purgedCopy()
		}
		if v, ok := t.post[p]; ok {
			t.post[p] = v.purgedCopy()
		}
	}
	seen := map[*mrewind]bool{}
	var rws []*mrewind
	for _, o := range m.ops {
		if o.rw != nil {
			rws = append(rws, o.rw)
		}
		if o.retryOf != nil {
			rws = append(rws, o.retryOf)
		}
	}
	rws = append(append(rws, m.undo...), m.redo...)
	for _, r := range rws {
		if seen[r] {
			continue
		}
		seen[r] = true
		for _, mm := range []map[string]img{r.before, r.want} {
			if v, ok := mm[p]; ok {
				mm[p] = v.purgedCopy()
			}
		}
	}
}

// underAny reports whether d, or a folder above it, is in paths.
func underAny(paths map[string]bool, d string) bool {
	for a := d; a != "." && a != ""; a = path.Dir(a) {
		if paths[a] {
			return true
		}
	}
	return false
}
