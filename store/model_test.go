package store_test

// TestModel drives a store with seeded random sequences of agent turns, hand
// edits, rewinds, undos and redos, and after every step compares the real
// folder (and the store's own account of it) with an in-memory model that
// never calls store code. The model is written from CONTRACT.md's rules:
//
//   - the first capture of a path in a turn wins;
//   - rewinding turn T undoes T and every later active turn, each path
//     getting its oldest pre-image among them; folders those turns created
//     and the rewind leaves empty are removed;
//   - before a rewind, undo or redo changes anything it keeps the current
//     state of every path it touches, so an undo restores exactly the folder
//     before the rewind (changes since the agent included) and a redo
//     re-applies it;
//   - undo reverts the newest rewind not yet undone, redo re-applies the most
//     recently undone one, a new rewind empties the redo stack, and an undo
//     or redo that would overwrite what a newer active turn wrote is refused
//     unless forced;
//   - a path's expected bytes are the post image of the newest active turn
//     that sealed it (operations never change them); a path whose disk
//     bytes differ is hand_edited, unless an active turn captured it after
//     that seal and has not sealed it (it is being written);
//   - a path an operation could not put back (a pre-image over the size
//     limit, a write that failed as on a full disk) is failed, never
//     hand_edited, until a later operation puts it or a newer capture
//     starts it afresh; rewinding a turn whose rewind failed paths retries
//     just those, as a rewind of its own; undo (redo) after an undo (redo)
//     that failed paths retries them; an operation every step of which
//     failed changes nothing (its turns are not rewound, the stacks stay);
//   - Apply applies exactly the plan it is given: after the folder changed
//     under a plan, it changes nothing and says the plan is out of date;
//   - files whose bytes already match are not rewritten (their mtime stays),
//     the executable bit is kept and restored, and a symbolic link is kept
//     and restored as a link, never followed.
//
// Replay a failing sequence with
//
//	go test ./store -run TestModel -model.seed=N [-model.steps=K]
//
// (or CKPT_MODEL_SEED=N CKPT_MODEL_STEPS=K go test ./store -run TestModel).

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

var (
	flagModelSeed  = flag.Uint64("model.seed", 0, "TestModel: run only this seed (or $CKPT_MODEL_SEED)")
	flagModelSteps = flag.Int("model.steps", 0, "TestModel: steps per seed (or $CKPT_MODEL_STEPS)")
)

func TestModel(t *testing.T) {
	seeds := []uint64{1, 2, 3, rand.Uint64()}
	steps := 500
	if testing.Short() {
		seeds = []uint64{1, rand.Uint64()}
		steps = 150
	}
	replay := false
	if v := os.Getenv("CKPT_MODEL_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("CKPT_MODEL_SEED=%q: %v", v, err)
		}
		seeds, replay = []uint64{n}, true
	}
	if *flagModelSeed != 0 {
		seeds, replay = []uint64{*flagModelSeed}, true
	}
	if v := os.Getenv("CKPT_MODEL_STEPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("CKPT_MODEL_STEPS=%q: %v", v, err)
		}
		steps = n
	}
	if *flagModelSteps > 0 {
		steps = *flagModelSteps
	}

	var mu sync.Mutex
	total := map[string]int{}
	t.Run("seeds", func(t *testing.T) {
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
				t.Parallel()
				t.Logf("seed %d, %d steps; replay: go test ./store -run TestModel -model.seed=%d -model.steps=%d",
					seed, steps, seed, steps)
				h := newHarness(t, seed, steps)
				h.run()
				mu.Lock()
				for k, v := range h.cov {
					total[k] += v
				}
				mu.Unlock()
			})
		}
	})
	if t.Failed() {
		return
	}
	keys := slices.Sorted(maps.Keys(total))
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, total[k])
	}
	t.Logf("coverage:%s", b.String())
	if replay || testing.Short() {
		return
	}
	// The sequences must actually reach every rule they claim to check.
	for _, k := range coverageKeys {
		if total[k] == 0 {
			t.Errorf("no step exercised %q over %d seeds of %d steps", k, len(seeds), steps)
		}
	}
}

// coverageKeys are events every full run must reach at least once.
var coverageKeys = []string{
	"turn", "turn-newturn", "turn-capture", "turn-api", "repeat-write", "create", "delete",
	"capture-only", "new-dirs", "exec-bit", "hand-edit", "hand-same-size", "hand-delete",
	"hand-create", "rewind", "rewind-hand-edited", "rewind-keep", "rewind-unchanged-files",
	"rewind-removed-dir", "rewind-multi-turn", "err-rewound", "err-unknown-turn",
	"undo", "undo-refused-newer", "undo-forced", "undo-nothing", "redo", "redo-forced",
	"redo-after-rewind-refused", "redo-nothing", "undo-after-redo", "turn-dot-2", "reopen",
	"mode-only-hand-edit", "edit-before-apply", "agent-symlink", "hand-symlink", "restore-link",
	"hand-same-size-mtime", "rewind-failed-skipped", "capture-skipped", "clock-back",
	"shell-same-turn", "shell-skip-before", "shell-delete", "shell-move", "shell-chmod", "shell-write", "shell-recorded",
	"write-failed", "rewind-retry", "rewind-retry-restored", "undo-retry", "redo-retry", "plan-out-of-date", "all-failed-listed",
}

// ---------------------------------------------------------------------------
// The model. Nothing below this line down to the harness calls store code.

// img is what a path holds in the model: a regular file with bytes and
// permission bits, a symbolic link, or nothing.
type img struct {
	exists bool
	data   string
	mode   fs.FileMode
	link   string // the target, for a symbolic link
}

func fileImg(data string, mode fs.FileMode) img { return img{exists: true, data: data, mode: mode} }

func (a img) isLink() bool { return a.exists && a.link != "" }

// big says a capture records the file skipped: its bytes are over the
// store's size limit and are not kept.
func (a img) big() bool { return a.isFile() && len(a.data) > modelMaxBlob }

// modelMaxBlob is the size limit the model's store is opened with, small
// enough that some files go over it.
const modelMaxBlob = 1024

func (a img) isFile() bool { return a.exists && a.link == "" }

func (a img) sameBytes(b img) bool {
	return a.exists == b.exists && a.data == b.data && a.link == b.link
}

func (a img) same(b img) bool { return a.sameBytes(b) && (a.isLink() || a.mode == b.mode) }

func (a img) String() string {
	switch {
	case !a.exists:
		return "absent"
	case a.isLink():
		return "link → " + a.link
	}
	return fmt.Sprintf("%q %v", abbrev(a.data), a.mode)
}

func abbrev(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%s…(%d bytes, sha %s)", s[:24], len(s), sum(s)[:12])
	}
	return s
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

type mturn struct {
	id, label string
	seq       int
	rewound   bool
	paths     []string       // in order of first capture
	pre       map[string]img // first capture wins
	post      map[string]img // newest seal
	sealSeq   map[string]int
	capSeq    map[string]int
	made      []string // folders missing when the turn first captured a path beneath them
	successor bool     // a capture naming this rewound turn started id.2
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
	created    []string       // folders the newest application created
	appliedSeq int            // newest application
	undoneSeq  int            // newest undo
	applyOp    string         // op id of the newest application
	undoOp     string         // op id of the newest undo
	everUndone bool
	fails      []string // paths the application in effect failed (a pre-image over the limit, a failed write)
	undoFails  []string // paths its newest undo failed to put back
}

type opWrite struct {
	seq int
	img img
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
}

type model struct {
	files  map[string]img
	dirs   map[string]bool
	turns  []*mturn // oldest first
	byID   map[string]*mturn
	seq    int
	writes map[string][]opWrite // what operations wrote, per path
	undo   []*mrewind           // in effect, newest last
	redo   []*mrewind           // undone, most recently undone last
	ops    map[string]*mop
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
}

func newModel() *model {
	return &model{
		files:  map[string]img{},
		dirs:   map[string]bool{},
		byID:   map[string]*mturn{},
		writes: map[string][]opWrite{},
		ops:    map[string]*mop{},
		// lastFail is set as operations fail paths.
		lastFail: map[string]int{},
	}
}

func (m *model) tick() int { m.seq++; return m.seq }

func (m *model) disk(p string) img { return m.files[p] }

func (m *model) mkdirAll(dir string) {
	for d := dir; d != "." && d != ""; d = path.Dir(d) {
		m.dirs[d] = true
	}
}

func (m *model) set(p string, v img) {
	if v.exists {
		m.mkdirAll(path.Dir(p))
		m.files[p] = v
		return
	}
	delete(m.files, p)
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

func (m *model) newTurn(id, label string) *mturn {
	t := &mturn{id: id, label: label, seq: m.tick(), pre: map[string]img{}, post: map[string]img{}, sealSeq: map[string]int{}, capSeq: map[string]int{}}
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
		if s, ok := t.sealSeq[p]; ok && !t.rewound && s > best {
			best, v, found = s, t.post[p], true
		}
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

// fresh reports whether nothing put p or captured it afresh after seq.
func (m *model) fresh(p string, seq int) bool {
	for _, w := range m.writes[p] {
		if w.seq > seq {
			return false
		}
	}
	for _, t := range m.turns {
		if c, ok := t.capSeq[p]; ok && !t.rewound && c > seq {
			return false
		}
	}
	return true
}

// noneFailed reports whether o, an operation that changed nothing, still
// has p failed: nothing put p since, and, for a retry, the application
// it tried again still has p failed.
func (m *model) noneFailed(o *mop, p string) bool {
	if !slices.Contains(o.fails, p) || !m.fresh(p, o.seq) {
		return false
	}
	if r := o.retryOf; r != nil {
		return r.applyOp == o.retryOp && slices.Contains(m.undo, r) && slices.Contains(r.fails, p)
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
		if slices.Contains(r.fails, p) && fresh(r.appliedSeq) {
			return true
		}
	}
	for _, r := range m.redo {
		if slices.Contains(r.undoFails, p) && fresh(r.undoneSeq) {
			return true
		}
	}
	return false
}

// undoPaths are the paths an undo of r puts back: those its application
// did not fail.
func (r *mrewind) undoPaths() []string {
	var out []string
	for _, p := range r.live {
		if !slices.Contains(r.fails, p) {
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
	case pre.isFile() && pre.mode != d.mode:
		return []store.Status{store.StatusModified, store.StatusUnchanged}
	}
	return []store.Status{store.StatusUnchanged}
}

// planRewind is what rewinding t does: the turns it rewinds, each path's
// oldest pre-image among them, and the folders they created.
func (m *model) planRewind(t *mturn) *mrewind {
	r := &mrewind{target: t.id, want: map[string]img{}}
	for _, u := range m.turns {
		if u.seq < t.seq || u.rewound {
			continue
		}
		r.turns = append(r.turns, u)
		for _, p := range u.paths {
			if _, ok := r.want[p]; !ok {
				r.want[p] = u.pre[p]
				r.paths = append(r.paths, p)
			}
		}
		r.made = append(r.made, u.made...)
	}
	slices.Sort(r.paths)
	for _, p := range r.paths {
		if !r.want[p].big() {
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
		for _, p := range u.paths {
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

func (m *model) write(p string, v img, seq int) {
	m.set(p, v)
	m.writes[p] = append(m.writes[p], opWrite{seq, v})
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
	for _, p := range r.live {
		if slices.Contains(failed, p) {
			continue
		}
		if r.want[p].exists {
			r.created = append(r.created, m.missingDirs(p)...)
		}
		m.write(p, r.want[p], seq)
	}
	r.removed = m.prune(r.made)
	for _, u := range r.turns {
		u.rewound = true
	}
	r.appliedSeq, r.applyOp = seq, op
	r.fails = slices.Clone(failed)
	if !redo {
		// A redo leaves out the steps the rewind planned to fail.
		for _, p := range r.paths {
			if !slices.Contains(r.live, p) {
				r.fails = append(r.fails, p)
			}
		}
	}
	for _, p := range r.fails {
		m.lastFail[p] = seq
	}
	m.undo = append(m.undo, r)
	kind := store.KindRewind
	if redo {
		kind = store.KindRedo
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
	for _, p := range r.undoPaths() {
		if !slices.Contains(failed, p) {
			m.write(p, r.before[p], seq)
		}
	}
	// The folder before the rewind, exactly: folders it created and left
	// empty go, folders it removed come back.
	m.prune(r.created)
	for _, d := range r.removed {
		m.mkdirAll(d)
	}
	m.unrewind(r.turns)
	r.undoneSeq, r.undoOp, r.everUndone = seq, op, true
	r.fails = nil
	r.undoFails = slices.Clone(failed)
	for _, p := range failed {
		m.lastFail[p] = seq
	}
	m.redo = append(m.redo, r)
	m.lastUndo, m.lastRedo = r, nil
	return r
}

// ---------------------------------------------------------------------------
// The harness: random steps against the store and the model side by side.

// pool is the set of paths the sequences touch. The first group exists at
// the start; folders new*/ and lib/x/ do not.
var pool = []string{
	"a.txt", "b.go", "run.sh", "README", "notes.md", ".env",
	"src/main.go", "src/util.go", "src/build.sh",
	"lib/keep.txt", "lib/x/y.txt", "lib/x/z/w.txt",
	"new1/a.txt", "new1/deep/b.txt", "new1/deep/c.sh",
	"new2/p/q/r.txt", "new2/p/s.txt", "new3/only.txt",
	// Names that are not UTF-8 are kept as bytes, never as U+FFFD.
	"bad\xffname.txt", "new\xfe/f\xfd.txt",
}

var initial = map[string]img{
	"a.txt":        fileImg("alpha\n", 0o644),
	"b.go":         fileImg("package b\n\nfunc B() {}\n", 0o644),
	"run.sh":       fileImg("#!/bin/sh\necho run\n", 0o755),
	".env":         fileImg("SECRET=1\n", 0o600),
	"src/main.go":  fileImg("package main\n\nfunc main() {}\n", 0o644),
	"src/build.sh": fileImg("#!/bin/sh\ngo build\n", 0o755),
	"lib/keep.txt": fileImg("", 0o644),
}

type harness struct {
	// clockOff is how far the store's clock is behind the wall clock: it
	// steps back now and then (a VM resumed), and nothing may change.
	clockOff time.Duration
	t        *testing.T
	seed     uint64
	steps    int
	rng      *rand.Rand
	root     string
	s        *store.Store
	m        *model
	step     int
	hist     []string
	cov      map[string]int
	nextC    int
	touched  map[string]bool // turns whose files to check after this step
	base     shellBase       // the model's shell baseline (model_shell_test.go)
	moved    bool            // the step changed the folder or the store's standing
	notes    []string
}

func newHarness(t *testing.T, seed uint64, steps int) *harness {
	h := &harness{
		t: t, seed: seed, steps: steps,
		rng:  rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		root: t.TempDir(),
		m:    newModel(),
		cov:  map[string]int{},
	}
	for _, p := range slices.Sorted(maps.Keys(initial)) {
		v := initial[p]
		h.diskWrite(p, v)
		h.m.set(p, v)
	}
	h.open(true)
	t.Cleanup(func() {
		if h.s != nil {
			h.s.Close()
		}
	})
	return h
}

func (h *harness) open(create bool) {
	s, err := store.Open(h.root, store.Options{Create: create, MaxBlob: modelMaxBlob, Notify: func(msg string) {
		h.notes = append(h.notes, msg)
	}})
	if err != nil {
		h.fatalf("Open(create=%v): %v", create, err)
	}
	// Every batch of more than one blob goes into a pack.
	store.SetLooseMax(s, 1)
	store.SetClock(s, func() time.Time { return time.Now().Add(h.clockOff) })
	h.s = s
}

func (h *harness) logf(format string, args ...any) {
	h.hist = append(h.hist, fmt.Sprintf("step %d: ", h.step)+fmt.Sprintf(format, args...))
}

func (h *harness) fatalf(format string, args ...any) {
	h.t.Helper()
	tail := h.hist
	if len(tail) > 40 {
		tail = tail[len(tail)-40:]
	}
	h.t.Fatalf("seed %d, step %d: %s\n\nlast steps:\n  %s\n\nreplay: go test ./store -run TestModel -model.seed=%d -model.steps=%d",
		h.seed, h.step, fmt.Sprintf(format, args...), strings.Join(tail, "\n  "), h.seed, h.step)
}

func (h *harness) abs(p string) string { return filepath.Join(h.root, filepath.FromSlash(p)) }

func (h *harness) diskWrite(p string, v img) {
	if err := os.MkdirAll(filepath.Dir(h.abs(p)), 0o755); err != nil {
		h.fatalf("mkdir for %s: %v", p, err)
	}
	// Writing through a link would change its target: replace it, as an
	// editor saving the file would.
	if h.m.disk(p).isLink() || v.isLink() {
		h.diskRemove(p)
	}
	if v.isLink() {
		if err := os.Symlink(v.link, h.abs(p)); err != nil {
			h.fatalf("symlink %s: %v", p, err)
		}
		return
	}
	if err := os.WriteFile(h.abs(p), []byte(v.data), v.mode); err != nil {
		h.fatalf("write %s: %v", p, err)
	}
	if err := os.Chmod(h.abs(p), v.mode); err != nil {
		h.fatalf("chmod %s: %v", p, err)
	}
}

func (h *harness) diskRemove(p string) {
	if err := os.Remove(h.abs(p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		h.fatalf("remove %s: %v", p, err)
	}
}

func (h *harness) run() {
	for h.step = 1; h.step <= h.steps; h.step++ {
		h.touched, h.moved = map[string]bool{}, false
		if h.rng.IntN(8) == 0 {
			d := time.Duration(1+h.rng.IntN(7200)) * time.Second
			h.clockOff -= d
			h.logf("the clock steps back %v", d)
			h.cov["clock-back"]++
		}
		switch n := h.rng.IntN(100); {
		case n < 27:
			h.agentTurn()
		case n < 34:
			h.shellStep()
		case n < 49:
			h.handEdits()
		case n < 65:
			h.rewind()
		case n < 79:
			h.undo()
		case n < 91:
			h.redo()
		case n < 95:
			h.captureRewound()
		case n < 97:
			h.logf("reopen the store")
			if err := h.s.Close(); err != nil {
				h.fatalf("Close: %v", err)
			}
			h.s = nil
			h.open(false)
			h.cov["reopen"]++
			h.moved = true
		default:
			id := fmt.Sprintf("nosuch%d", h.step)
			h.logf("rewind unknown turn %s", id)
			h.expectErr(store.ErrUnknownTurn, "PlanRewind("+id+")", func() (*store.Plan, error) { return h.s.PlanRewind(id) })
			h.cov["err-unknown-turn"]++
		}
		h.check()
	}
	if fs, err := h.s.Verify(); err != nil || len(fs) > 0 {
		h.fatalf("Verify at the end: %v %v", fs, err)
	}
	h.checkStorePerms()
	h.cov["capture-skipped"] += h.m.bigCaptures
}

// checkStorePerms checks what CONTRACT.md asks of the store's own folder: folders
// 0700, files 0600 (it holds copies of secrets), and a .gitignore of "*".
func (h *harness) checkStorePerms() {
	dir := filepath.Join(h.root, ".osfoundry")
	b, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil || strings.TrimSpace(string(b)) != "*" {
		h.fatalf(".osfoundry/.gitignore holds %q (%v), want *", b, err)
	}
	err = filepath.WalkDir(filepath.Join(dir, "checkpoints"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			rel, _ := filepath.Rel(h.root, p)
			return fmt.Errorf("%s has mode %v, want %v", rel, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		h.fatalf("store folder: %v", err)
	}
}

// ---------------------------------------------------------------------------
// Steps.

func (h *harness) content(p string) string {
	cur := h.m.disk(p)
	if h.rng.IntN(20) == 0 {
		// Over the store's size limit: captured as skipped.
		return strings.Repeat(fmt.Sprintf("a long line of %s, %x\n", p, h.rng.Uint32()), 40+h.rng.IntN(40))
	}
	switch h.rng.IntN(8) {
	case 0:
		return []string{"", "same\n", "package x\n"}[h.rng.IntN(3)]
	case 1, 2:
		if cur.isFile() && len(cur.data) > 0 {
			return mutateSameSize(h.rng, cur.data)
		}
	}
	var b strings.Builder
	for range h.rng.IntN(12) {
		fmt.Fprintf(&b, "line %d of %s: %x\n", h.rng.IntN(1000), p, h.rng.Uint32())
	}
	return b.String()
}

// mutateSameSize changes a few bytes of s, keeping its length.
func mutateSameSize(rng *rand.Rand, s string) string {
	b := []byte(s)
	for range 1 + rng.IntN(3) {
		i := rng.IntN(len(b))
		b[i] = 'a' + byte((int(b[i])+1+rng.IntN(25))%26)
	}
	out := string(b)
	if out == s {
		b[0] ^= 1
		out = string(b)
	}
	return out
}

// linkImg is a symbolic link to a path inside the root, there or not: a
// link is kept and restored as a link, never followed.
func (h *harness) linkImg() img {
	targets := []string{"a.txt", "src/main.go", "missing.txt", "new1", "notes.md"}
	return img{exists: true, link: targets[h.rng.IntN(len(targets))]}
}

func (h *harness) parentExists(p string) bool {
	d := path.Dir(p)
	return d == "." || h.m.dirs[d]
}

func (h *harness) newMode(p string) fs.FileMode {
	if strings.HasSuffix(p, ".sh") || h.rng.IntN(7) == 0 {
		return 0o755
	}
	return 0o644
}

// agentWriteImg is what the agent's own write (Capture → write → Seal)
// leaves: existing files keep their mode, now and then flipping the
// executable bit.
func (h *harness) agentWriteImg(p string) img {
	cur := h.m.disk(p)
	mode := h.newMode(p)
	if cur.isFile() {
		mode = cur.mode
		if h.rng.IntN(10) == 0 {
			mode ^= 0o111
		}
	}
	return fileImg(h.content(p), mode)
}

func (h *harness) agentTurn() { h.agentTurnAs("", "") }

// agentTurnAs runs one agent turn. With id empty it picks a way to start a
// fresh turn; otherwise it captures under id and expects the store to answer
// with wantID.
func (h *harness) agentTurnAs(id, wantID string) {
	label := fmt.Sprintf("turn at step %d", h.step)
	style := h.rng.IntN(4) // 0 NewTurn, 1 fresh id, 2 Write/Remove, 3 mixed
	if id != "" {
		label = h.m.byID[id].label
		style = 1 + h.rng.IntN(3)
	}
	meta := store.TurnMeta{Label: label}
	var mt *mturn
	switch {
	case id != "":
	case style == 0:
		got, err := h.s.NewTurn(meta)
		if err != nil {
			h.fatalf("NewTurn: %v", err)
		}
		if got == "" || h.m.byID[got] != nil {
			h.fatalf("NewTurn returned %q, not a fresh id", got)
		}
		id, wantID = got, got
		mt = h.m.newTurn(id, label)
		h.cov["turn-newturn"]++
	default:
		h.nextC++
		id = fmt.Sprintf("c%d", h.nextC)
		wantID = id
	}
	h.cov["turn"]++
	switch style {
	case 1:
		h.cov["turn-capture"]++
	case 2:
		h.cov["turn-api"]++
	}
	var desc []string
	// started checks the id a capture answered with and starts the model's
	// turn at the first record.
	started := func(got string, call string) {
		if got != wantID {
			h.fatalf("%s answered turn %q, want %q", call, got, wantID)
		}
		if mt == nil {
			mt = h.m.newTurn(wantID, label)
		}
		h.touched[wantID] = true
	}
	written := map[string]bool{}
	for round := range 1 + h.rng.IntN(3) {
		var paths []string
		for range 1 + h.rng.IntN(4) {
			p := pool[h.rng.IntN(len(pool))]
			if round > 0 && len(written) > 0 && h.rng.IntN(2) == 0 {
				p = slices.Sorted(maps.Keys(written))[h.rng.IntN(len(written))]
			}
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
		useAPI := style == 2 || (style == 3 && h.rng.IntN(2) == 0)
		if useAPI {
			for _, p := range paths {
				cur := h.m.disk(p)
				if h.rng.IntN(4) == 0 && h.parentExists(p) {
					got, err := h.s.Remove(id, meta, []string{p})
					// Like rm, removing a missing file is an error, but
					// the path is still captured and sealed.
					if cur.exists && err != nil || !cur.exists && !errors.Is(err, fs.ErrNotExist) {
						h.fatalf("Remove(%s, %s) of %s: %v", id, p, cur, err)
					}
					started(got, "Remove")
					h.m.capture(mt, p)
					h.m.set(p, img{})
					h.m.seal(mt, p)
					desc = append(desc, "rm "+p)
					if cur.exists {
						h.cov["delete"]++
					}
				} else {
					v := fileImg(h.content(p), h.newMode(p))
					if cur.isFile() {
						v.mode = cur.mode
					} else {
						v.mode = apiNewMode
					}
					if len(h.m.missingDirs(p)) > 0 {
						h.cov["new-dirs"]++
					}
					got, err := h.s.Write(id, meta, p, []byte(v.data))
					if err != nil {
						h.fatalf("Write(%s, %s): %v", id, p, err)
					}
					started(got, "Write")
					h.m.capture(mt, p)
					h.m.set(p, v)
					h.m.seal(mt, p)
					desc = append(desc, fmt.Sprintf("write %s=%s", p, v))
					if !cur.exists {
						h.cov["create"]++
					}
				}
				if written[p] {
					h.cov["repeat-write"]++
				}
				written[p] = true
			}
			continue
		}
		got, err := h.s.Capture(id, meta, paths)
		if err != nil {
			h.fatalf("Capture(%s, %v): %v", id, paths, err)
		}
		started(got, "Capture")
		// The store saw every path of the batch before the agent wrote any.
		for _, p := range paths {
			if len(h.m.missingDirs(p)) > 0 {
				h.cov["new-dirs"]++
			}
			h.m.capture(mt, p)
		}
		var acted []string
		for _, p := range paths {
			cur := h.m.disk(p)
			switch n := h.rng.IntN(10); {
			case n == 0 && h.parentExists(p):
				// Captured, then the agent's write never came: no seal.
				desc = append(desc, "capture-only "+p)
				h.cov["capture-only"]++
				continue
			case n < 3 && cur.exists:
				h.diskRemove(p)
				h.m.set(p, img{})
				desc = append(desc, "rm "+p)
				h.cov["delete"]++
			case n == 3 && h.rng.IntN(3) == 0:
				v := h.linkImg()
				h.diskWrite(p, v)
				h.m.set(p, v)
				desc = append(desc, fmt.Sprintf("link %s=%s", p, v))
				h.cov["agent-symlink"]++
			default:
				v := h.agentWriteImg(p)
				if !cur.exists {
					h.cov["create"]++
				}
				if v.mode&0o111 != 0 {
					h.cov["exec-bit"]++
				}
				h.diskWrite(p, v)
				h.m.set(p, v)
				desc = append(desc, fmt.Sprintf("write %s=%s", p, v))
			}
			if written[p] {
				h.cov["repeat-write"]++
			}
			written[p] = true
			acted = append(acted, p)
		}
		if len(acted) > 0 {
			if err := h.s.Seal(id, acted); err != nil {
				h.fatalf("Seal(%s, %v): %v", id, acted, err)
			}
			for _, p := range acted {
				h.m.seal(mt, p)
			}
		}
	}
	h.logf("agent turn %s (style %d): %s", wantID, style, strings.Join(desc, "; "))
}

// apiNewMode is the mode Store.Write gives a file it creates.
const apiNewMode fs.FileMode = 0o644

// captureRewound captures under the id of a rewound turn T, which must start
// a new turn T.2 with T's label.
func (h *harness) captureRewound() {
	var cands []*mturn
	for _, t := range h.m.turns {
		if t.rewound && !t.successor && !strings.Contains(t.id, ".") {
			cands = append(cands, t)
		}
	}
	if len(cands) == 0 {
		h.agentTurn()
		return
	}
	t := cands[h.rng.IntN(len(cands))]
	t.successor = true
	h.cov["turn-dot-2"]++
	h.agentTurnAs(t.id, t.id+".2")
}

func (h *harness) handEdits() {
	var desc []string
	for range 1 + h.rng.IntN(3) {
		all := slices.Sorted(maps.Keys(h.m.files))
		var files []string // regular files: edits and chmod never go through a link
		for _, p := range all {
			if h.m.disk(p).isFile() {
				files = append(files, p)
			}
		}
		var absent []string
		for _, p := range pool {
			if !h.m.disk(p).exists && h.parentExists(p) {
				absent = append(absent, p)
			}
		}
		n := h.rng.IntN(10)
		switch {
		case n < 5 && len(files) > 0:
			p := files[h.rng.IntN(len(files))]
			v := h.m.disk(p)
			sameSize := len(v.data) > 0 && h.rng.IntN(2) == 0
			if sameSize {
				v.data = mutateSameSize(h.rng, v.data)
				h.cov["hand-same-size"]++
			} else {
				v.data += fmt.Sprintf("hand edit at step %d\n", h.step)
			}
			fi, err := os.Lstat(h.abs(p))
			if err != nil {
				h.fatalf("stat %s: %v", p, err)
			}
			h.diskWrite(p, v)
			h.m.set(p, v)
			desc = append(desc, fmt.Sprintf("edit %s=%s", p, v))
			if sameSize && h.rng.IntN(2) == 0 {
				// Same size and the old mtime, as a tool that keeps
				// times would leave it: only the ctime tells.
				if err := os.Chtimes(h.abs(p), time.Time{}, fi.ModTime()); err != nil {
					h.fatalf("chtimes %s: %v", p, err)
				}
				desc = append(desc, "keeping its mtime")
				h.cov["hand-same-size-mtime"]++
			}
		case n < 7 && len(all) > 0:
			p := all[h.rng.IntN(len(all))]
			h.diskRemove(p)
			h.m.set(p, img{})
			desc = append(desc, "rm "+p)
			h.cov["hand-delete"]++
		case n < 9 && len(absent) > 0:
			p := absent[h.rng.IntN(len(absent))]
			v := fileImg(fmt.Sprintf("made by hand at step %d\n", h.step), 0o644)
			if h.rng.IntN(4) == 0 {
				v = h.linkImg()
				h.cov["hand-symlink"]++
			}
			h.diskWrite(p, v)
			h.m.set(p, v)
			desc = append(desc, fmt.Sprintf("create %s=%s", p, v))
			h.cov["hand-create"]++
		case len(files) > 0:
			p := files[h.rng.IntN(len(files))]
			v := h.m.disk(p)
			v.mode ^= 0o111
			if err := os.Chmod(h.abs(p), v.mode); err != nil {
				h.fatalf("chmod %s: %v", p, err)
			}
			h.m.set(p, v)
			desc = append(desc, fmt.Sprintf("chmod %s %v", p, v.mode))
			h.cov["mode-only-hand-edit"]++
		}
	}
	h.cov["hand-edit"]++
	h.moved = true
	h.logf("hand edits: %s", strings.Join(desc, "; "))
}

// expectErr runs plan (and Apply, if the plan is made) and wants err.
func (h *harness) expectErr(want error, what string, plan func() (*store.Plan, error)) {
	h.t.Helper()
	p, err := plan()
	if err == nil {
		var res *store.Result
		res, err = h.s.Apply(p, nil)
		if err == nil {
			h.fatalf("%s: applied (%+v), want %v", what, res, want)
		}
	}
	if !errors.Is(err, want) {
		h.fatalf("%s: error %v, want %v", what, err, want)
	}
}

func (h *harness) rewind() {
	if len(h.m.turns) == 0 {
		h.agentTurn()
		return
	}
	t := h.m.turns[h.rng.IntN(len(h.m.turns))]
	if t.rewound {
		for i := len(h.m.undo) - 1; i >= 0; i-- {
			if r := h.m.undo[i]; slices.Contains(r.turns, t) && len(r.fails) > 0 {
				h.retryRewind(t, r)
				return
			}
		}
		h.logf("rewind %s (already rewound)", t.id)
		h.expectErr(store.ErrRewound, "PlanRewind("+t.id+")", func() (*store.Plan, error) { return h.s.PlanRewind(t.id) })
		h.cov["err-rewound"]++
		return
	}
	r := h.m.planRewind(t)
	h.logf("rewind %s: turns %v, paths %v", t.id, turnIDs(r.turns), r.paths)
	replan := func() *store.Plan {
		p, err := h.s.PlanRewind(t.id)
		if err != nil {
			h.fatalf("PlanRewind(%s): %v", t.id, err)
		}
		h.checkPlan(p, store.KindRewind, turnIDs(r.turns), r.paths, r.want)
		return p
	}
	p := replan()
	h.editBeforeApply()
	if len(r.turns) > 1 {
		h.cov["rewind-multi-turn"]++
	}
	// A rewind whose every path fails changes nothing and stands for
	// nothing.
	res := h.applyAndCheck(p, replan, r.paths, r.want, true, func(op string, failed []string, none bool) {
		if none {
			h.m.failedOp(op, store.KindRewind, t.id, turnIDs(r.turns), r.paths, nil)
			h.cov["rewind-all-failed"]++
			return
		}
		h.m.applyRewind(r, op, false, failed)
	})
	if len(r.removed) > 0 {
		h.cov["rewind-removed-dir"]++
	}
	h.logf("  → %s restored %v deleted %v removed folders %v", res.Op, res.Restored, res.Deleted, r.removed)
	h.cov["rewind"]++
}

func (h *harness) undo() {
	if r := h.m.lastUndo; r != nil && len(r.undoFails) > 0 {
		h.retryUndoRedo(store.KindUndo, r)
		return
	}
	if len(h.m.undo) == 0 {
		h.logf("undo (nothing to undo)")
		h.expectErr(store.ErrNothingToUndo, "PlanUndo(false)", func() (*store.Plan, error) { return h.s.PlanUndo(false) })
		h.cov["undo-nothing"]++
		return
	}
	r := h.m.undo[len(h.m.undo)-1]
	force := h.rng.IntN(10) == 0
	if newer := h.m.newer(r.undoPaths(), r.appliedSeq); len(newer) > 0 {
		h.logf("undo %s refused: newer turns %v wrote its paths", r.op, newer)
		h.expectErr(store.ErrNewerTurn, "PlanUndo(false)", func() (*store.Plan, error) { return h.s.PlanUndo(false) })
		h.cov["undo-refused-newer"]++
		if h.rng.IntN(3) == 0 {
			return
		}
		force = true
		h.cov["undo-forced"]++
	}
	if r.applyOp != r.op {
		h.cov["undo-after-redo"]++
	}
	paths := r.undoPaths()
	h.logf("undo %s (force %v): turns %v back, paths %v", r.op, force, turnIDs(r.turns), paths)
	replan := func() *store.Plan {
		p, err := h.s.PlanUndo(force)
		if err != nil {
			h.fatalf("PlanUndo(%v): %v", force, err)
		}
		h.checkPlan(p, store.KindUndo, turnIDs(r.turns), paths, r.before)
		return p
	}
	p := replan()
	h.editBeforeApply()
	res := h.applyAndCheck(p, replan, paths, r.before, true, func(op string, failed []string, none bool) {
		if none {
			h.m.failedOp(op, store.KindUndo, r.op, turnIDs(r.turns), paths, nil)
			return
		}
		h.m.applyUndo(op, failed)
	})
	h.logf("  → %s restored %v deleted %v", res.Op, res.Restored, res.Deleted)
	h.cov["undo"]++
}

func (h *harness) redo() {
	if r := h.m.lastRedo; r != nil && len(r.fails) > 0 {
		h.retryUndoRedo(store.KindRedo, r)
		return
	}
	cleared := h.m.redoCleared
	h.m.redoCleared = false
	if len(h.m.redo) == 0 {
		h.logf("redo (nothing to redo; a rewind emptied the stack: %v)", cleared)
		h.expectErr(store.ErrNothingToRedo, "PlanRedo(false)", func() (*store.Plan, error) { return h.s.PlanRedo(false) })
		if cleared {
			h.cov["redo-after-rewind-refused"]++
		} else {
			h.cov["redo-nothing"]++
		}
		return
	}
	r := h.m.redo[len(h.m.redo)-1]
	force := h.rng.IntN(10) == 0
	if newer := h.m.newer(r.live, r.undoneSeq); len(newer) > 0 {
		h.logf("redo %s refused: newer turns %v wrote its paths", r.op, newer)
		h.expectErr(store.ErrNewerTurn, "PlanRedo(false)", func() (*store.Plan, error) { return h.s.PlanRedo(false) })
		h.cov["redo-refused-newer"]++
		if h.rng.IntN(3) == 0 {
			return
		}
		force = true
		h.cov["redo-forced"]++
	}
	h.logf("redo %s (force %v): turns %v, paths %v", r.op, force, turnIDs(r.turns), r.live)
	replan := func() *store.Plan {
		p, err := h.s.PlanRedo(force)
		if err != nil {
			h.fatalf("PlanRedo(%v): %v", force, err)
		}
		h.checkPlan(p, store.KindRedo, turnIDs(r.turns), r.live, r.want)
		return p
	}
	p := replan()
	h.editBeforeApply()
	res := h.applyAndCheck(p, replan, r.live, r.want, true, func(op string, failed []string, none bool) {
		if none {
			h.m.failedOp(op, store.KindRedo, r.op, turnIDs(r.turns), r.live, nil)
			return
		}
		h.m.applyRewind(r, op, true, failed)
	})
	h.logf("  → %s restored %v deleted %v removed folders %v", res.Op, res.Restored, res.Deleted, r.removed)
	h.cov["redo"]++
}

// retryRewind rewinds t again where r, the application in effect that
// rewound it, failed paths: the plan retries just those, as a rewind of
// its own (undone on its own). A pre-image over the size limit fails
// again; a write that failed succeeds now.
func (h *harness) retryRewind(t *mturn, r *mrewind) {
	h.logf("rewind %s (already rewound by %s, which failed %v): retry", t.id, r.applyOp, r.fails)
	y := &mrewind{target: t.id, turns: r.turns, want: r.want, made: r.made, paths: sortedCopy(r.fails)}
	for _, p := range y.paths {
		if !r.want[p].big() {
			y.live = append(y.live, p)
		}
	}
	replan := func() *store.Plan {
		p, err := h.s.PlanRewind(t.id)
		if err != nil {
			h.fatalf("PlanRewind(%s), a retry of %s: %v", t.id, r.applyOp, err)
		}
		if p.Retry != r.applyOp {
			h.fatalf("PlanRewind(%s): retry %q, want %q", t.id, p.Retry, r.applyOp)
		}
		h.checkPlan(p, store.KindRewind, turnIDs(r.turns), y.paths, r.want)
		return p
	}
	p := replan()
	res := h.applyAndCheck(p, replan, y.paths, r.want, false, func(op string, failed []string, none bool) {
		if none {
			h.m.failedOp(op, store.KindRewind, t.id, turnIDs(r.turns), y.paths, r)
			return
		}
		// The failures are the retry's now.
		r.fails = nil
		h.m.applyRewind(y, op, false, failed)
		h.cov["rewind-retry-restored"]++
	})
	h.logf("  → %s restored %v deleted %v failed %v", res.Op, res.Restored, res.Deleted, res.Failed)
	h.cov["rewind-retry"]++
}

// retryUndoRedo runs undo (redo) again after an undo (redo) of r that
// failed paths: the plan retries just those and finishes it, leaving the
// stacks as they are.
func (h *harness) retryUndoRedo(kind store.Kind, r *mrewind) {
	failed, want, holder := r.undoFails, r.before, r.undoOp
	plan := func() (*store.Plan, error) { return h.s.PlanUndo(false) }
	if kind == store.KindRedo {
		failed, want, holder = r.fails, r.want, r.applyOp
		plan = func() (*store.Plan, error) { return h.s.PlanRedo(false) }
	}
	paths := sortedCopy(failed)
	h.logf("%s again: %s failed %v: retry", kind, holder, paths)
	replan := func() *store.Plan {
		p, err := plan()
		if err != nil {
			h.fatalf("Plan%s, a retry of %s: %v", kind, holder, err)
		}
		if p.Retry != holder {
			h.fatalf("Plan%s: retry %q, want %q", kind, p.Retry, holder)
		}
		h.checkPlan(p, kind, turnIDs(r.turns), paths, want)
		return p
	}
	p := replan()
	res := h.applyAndCheck(p, replan, paths, want, false, func(op string, _ []string, _ bool) {
		seq := h.m.tick()
		for _, q := range paths {
			h.m.write(q, want[q], seq)
		}
		if kind == store.KindUndo {
			r.undoFails = nil
		} else {
			r.fails = nil
		}
		h.m.ops[op] = &mop{kind: kind, rw: r, seq: seq, targets: []string{r.op}}
	})
	h.logf("  → %s restored %v deleted %v", res.Op, res.Restored, res.Deleted)
	h.cov[string(kind)+"-retry"]++
}

// editBeforeApply now and then changes the folder between a plan and its
// Apply, which then applies nothing unless the plan still holds.
func (h *harness) editBeforeApply() {
	if h.rng.IntN(8) == 0 {
		h.handEdits()
		h.cov["edit-before-apply"]++
	}
}

func turnIDs(ts []*mturn) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.id)
	}
	return out
}

// predictAction is what a step must do to turn now into want; a change of
// mode alone may be done either way. A pre-image over the size limit
// (fromPre) cannot be restored; an operation keeps what it overwrites at
// any size.
func predictAction(now, want img, fromPre bool) []store.Action {
	switch {
	case fromPre && want.big():
		return []store.Action{store.ActFail}
	case !want.exists && now.exists:
		return []store.Action{store.ActDelete}
	case !want.exists:
		return []store.Action{store.ActKeep}
	case !now.sameBytes(want):
		return []store.Action{store.ActRestore}
	case want.isFile() && now.mode != want.mode:
		return []store.Action{store.ActRestore, store.ActKeep}
	}
	return []store.Action{store.ActKeep}
}

func (h *harness) checkPlan(p *store.Plan, kind store.Kind, turns, paths []string, want map[string]img) {
	h.t.Helper()
	if p.Kind != kind {
		h.fatalf("plan kind %q, want %q", p.Kind, kind)
	}
	if got, w := sortedCopy(p.Turns), sortedCopy(turns); !slices.Equal(got, w) {
		h.fatalf("%s plan turns %v, want %v", kind, got, w)
	}
	var got []string
	for _, st := range p.Steps {
		got = append(got, st.Path)
	}
	if g := sortedCopy(got); !slices.Equal(g, paths) {
		h.fatalf("%s plan paths %v, want %v", kind, g, paths)
	}
	for _, st := range p.Steps {
		now, w := h.m.disk(st.Path), want[st.Path]
		if err := imageMatches(st.Now, now); err != nil {
			h.fatalf("%s plan step %s: Now %+v: %v", kind, st.Path, st.Now, err)
		}
		match := imageMatches
		if kind == store.KindRewind {
			match = preMatches
		}
		if err := match(st.Want, w); err != nil {
			h.fatalf("%s plan step %s: Want %+v: %v", kind, st.Path, st.Want, err)
		}
		if acts := predictAction(now, w, kind == store.KindRewind); !slices.Contains(acts, st.Do) {
			h.fatalf("%s plan step %s: do %q (%s), want %v (now %s, want %s)", kind, st.Path, st.Do, st.Reason, acts, now, w)
		}
		if he := h.m.handEdited(st.Path); st.HandEdited != he {
			e, ok := h.m.expected(st.Path)
			h.fatalf("%s plan step %s: hand_edited %v, want %v (disk %s, expected %s (%v))", kind, st.Path, st.HandEdited, he, now, e, ok)
		}
	}
}

// applyAndCheck applies p after giving every file an old mtime, updates the
// model through apply(opID), and checks the result and that files whose
// state the operation did not change kept their mtime.
//
// With faults, now and then the write of one path fails (as on a full
// disk): apply learns which, and whether every path failed (none).
func (h *harness) applyAndCheck(p *store.Plan, replan func() *store.Plan, paths []string, want map[string]img, faults bool, apply func(op string, failed []string, none bool)) *store.Result {
	h.t.Helper()
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC).Add(time.Duration(h.step) * time.Second)
	for f, v := range h.m.files {
		if !v.isFile() {
			continue // Chtimes would follow the link
		}
		if err := os.Chtimes(h.abs(f), old, old); err != nil {
			h.fatalf("chtimes %s: %v", f, err)
		}
	}
	before := maps.Clone(h.m.files)
	var handEdited, restored, deleted, failed []string
	keeps := 0
	for _, q := range paths {
		if h.m.handEdited(q) {
			handEdited = append(handEdited, q)
		}
		switch acts := predictAction(h.m.disk(q), want[q], p.Kind == store.KindRewind); {
		case len(acts) > 1:
			// either way
		case acts[0] == store.ActRestore:
			restored = append(restored, q)
			if want[q].isLink() {
				h.cov["restore-link"]++
			}
		case acts[0] == store.ActDelete:
			deleted = append(deleted, q)
		case acts[0] == store.ActFail:
			failed = append(failed, q)
		default:
			keeps++
		}
	}
	var faulty []string
	if faults && h.rng.IntN(5) == 0 && len(paths)-len(failed) >= 2 && len(restored)+len(deleted) > 0 {
		q := append(slices.Clone(restored), deleted...)[h.rng.IntN(len(restored)+len(deleted))]
		faulty = []string{q}
		restored = slices.DeleteFunc(restored, func(x string) bool { return x == q })
		deleted = slices.DeleteFunc(deleted, func(x string) bool { return x == q })
		failed = append(failed, q)
		store.SetRestoreFault(h.s, func(p string) error {
			if p == q {
				return syscall.ENOSPC
			}
			return nil
		})
		defer store.SetRestoreFault(h.s, nil)
		h.logf("  the write of %s will fail", q)
		h.cov["write-failed"]++
	}
	none := len(paths) > 0 && len(failed) == len(paths)
	last := -1
	progress := func(done, total int) {
		if done < last || done > total || total > len(paths) {
			h.t.Errorf("seed %d step %d: progress(%d, %d) after %d, %d paths", h.seed, h.step, done, total, last, len(paths))
		}
		last = done
	}
	res, err := h.s.Apply(p, progress)
	if errors.Is(err, store.ErrPlanChanged) {
		// The folder moved under the plan: nothing was applied, and the
		// plan made now is applied instead.
		h.logf("  plan %s out of date: %v", p.ID, err)
		h.checkDisk()
		h.cov["plan-out-of-date"]++
		last = -1
		q := replan()
		if q.ID == p.ID {
			h.fatalf("Apply said plan %s is out of date, and the plan made again has that id", p.ID)
		}
		res, err = h.s.Apply(q, progress)
	}
	if err != nil {
		h.fatalf("Apply(%s %s): %v", p.Kind, p.Target, err)
	}
	if !res.Applied || !strings.HasPrefix(res.Op, "op-") || h.m.ops[res.Op] != nil {
		h.fatalf("Apply result %+v: want applied with a new op-N id", res)
	}
	var gotFailed []string
	for _, f := range res.Failed {
		if f.Reason == "" {
			h.fatalf("Apply failed %s without a reason", f.Path)
		}
		gotFailed = append(gotFailed, f.Path)
	}
	if g := sortedCopy(gotFailed); !slices.Equal(g, sortedCopy(failed)) {
		h.fatalf("Apply failed %+v, want %v (skipped pre-images, failed writes)", res.Failed, failed)
	}
	if len(failed) > 0 {
		h.cov["rewind-failed-skipped"]++
	}
	if got := sortedCopy(res.HandEdited); !slices.Equal(got, handEdited) {
		h.fatalf("Apply hand_edited %v, want %v", got, handEdited)
	}
	if len(handEdited) > 0 && p.Kind == store.KindRewind {
		h.cov["rewind-hand-edited"]++
	}
	if keeps > 0 && p.Kind == store.KindRewind {
		h.cov["rewind-keep"]++
	}
	for _, c := range []struct {
		name      string
		got, want []string
	}{{"restored", res.Restored, restored}, {"deleted", res.Deleted, deleted}} {
		got := sortedCopy(c.got)
		for _, q := range c.want {
			if !slices.Contains(got, q) {
				h.fatalf("Apply %s %v lacks %s (%s → %s)", c.name, got, q, h.m.disk(q), want[q])
			}
		}
		for _, q := range got {
			if !slices.Contains(paths, q) {
				h.fatalf("Apply %s %v names %s, not in the plan", c.name, got, q)
			}
			if acts := predictAction(h.m.disk(q), want[q], p.Kind == store.KindRewind); len(acts) == 1 && !slices.Contains(c.want, q) {
				h.fatalf("Apply %s %s, which needed %v (%s → %s)", c.name, q, acts, h.m.disk(q), want[q])
			}
		}
	}
	apply(res.Op, faulty, none)
	h.moved = true
	h.checkDisk()
	// Files the operation left as they were must not have been rewritten.
	unchanged := 0
	for f, v := range h.m.files {
		if b, ok := before[f]; !ok || !b.same(v) || !v.isFile() {
			continue
		}
		fi, err := os.Lstat(h.abs(f))
		if err != nil {
			h.fatalf("stat %s: %v", f, err)
		}
		if !fi.ModTime().Equal(old) {
			h.fatalf("%s %s: %s was rewritten though its bytes already matched (mtime %v, want %v)",
				p.Kind, res.Op, f, fi.ModTime(), old)
		}
		if slices.Contains(paths, f) {
			unchanged++
		}
	}
	if unchanged > 0 {
		h.cov["rewind-unchanged-files"]++
	}
	return res
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	if out == nil {
		out = []string{}
	}
	return out
}

// preMatches checks a pre-image: a file over the size limit is recorded
// skipped, with its hash if the store took it.
func preMatches(si store.Image, v img) error {
	if !v.big() {
		return imageMatches(si, v)
	}
	if si.Kind != store.ImageSkipped || si.Reason == "" {
		return fmt.Errorf("kind %q reason %q, want skipped with a reason (%d bytes)", si.Kind, si.Reason, len(v.data))
	}
	if si.SHA256 != "" && si.SHA256 != sum(v.data) {
		return fmt.Errorf("sha256 %s, want that of %s", si.SHA256, v)
	}
	return nil
}

// imageMatches checks a store image against the model's.
func imageMatches(si store.Image, v img) error {
	if !v.exists {
		if si.Kind != store.ImageAbsent {
			return fmt.Errorf("kind %q, want absent", si.Kind)
		}
		return nil
	}
	if v.isLink() {
		if si.Kind != store.ImageLink || si.Link != v.link {
			return fmt.Errorf("kind %q link %q, want %s", si.Kind, si.Link, v)
		}
		return nil
	}
	if si.Kind != store.ImageContent {
		return fmt.Errorf("kind %q, want content %s", si.Kind, v)
	}
	if si.SHA256 != sum(v.data) {
		return fmt.Errorf("sha256 %s, want that of %s", si.SHA256, v)
	}
	if si.Size != int64(len(v.data)) {
		return fmt.Errorf("size %d, want %d", si.Size, len(v.data))
	}
	if si.Mode != 0 && fs.FileMode(si.Mode).Perm() != v.mode {
		return fmt.Errorf("mode %v, want %v", fs.FileMode(si.Mode).Perm(), v.mode)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Checks after every step.

func (h *harness) check() {
	h.t.Helper()
	h.checkDisk()
	if len(h.notes) > 0 {
		h.fatalf("Open reported an interrupted operation: %q", h.notes)
	}
	// Each of the store's own views reads the whole store: check them where
	// the step may have moved them, and everything now and then.
	full := h.step%250 == 0 || h.step == h.steps
	if full || h.moved || h.step%8 == 0 {
		h.checkLog()
	}
	if h.moved && len(h.m.turns) > 0 {
		h.touched[h.m.turns[h.rng.IntN(len(h.m.turns))].id] = true
	}
	for _, t := range h.m.turns {
		if full || h.touched[t.id] {
			h.checkFiles(t, full)
		}
	}
	if full {
		if fs, err := h.s.Verify(); err != nil || len(fs) > 0 {
			h.fatalf("Verify: %v %v", fs, err)
		}
		es, err := h.s.Log(false)
		if err != nil {
			h.fatalf("Log(false): %v", err)
		}
		for _, e := range es {
			if e.HandEdited != -1 {
				h.fatalf("Log(false) entry %s: hand_edited %d, want -1", e.ID, e.HandEdited)
			}
		}
	}
}

// checkDisk compares the folder (minus .osfoundry) with the model.
func (h *harness) checkDisk() {
	h.t.Helper()
	files := map[string]img{}
	dirs := map[string]bool{}
	err := filepath.WalkDir(h.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(h.root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case rel == ".osfoundry":
			return filepath.SkipDir
		case d.IsDir():
			dirs[rel] = true
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			files[rel] = img{exists: true, link: target}
			return err
		case !d.Type().IsRegular():
			return fmt.Errorf("%s: unexpected %v", rel, d.Type())
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		files[rel] = fileImg(string(b), fi.Mode().Perm())
		return nil
	})
	if err != nil {
		h.fatalf("walk: %v", err)
	}
	var diffs []string
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if w, ok := h.m.files[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: on disk %s, model: absent", p, files[p]))
		} else if !w.same(files[p]) {
			diffs = append(diffs, fmt.Sprintf("%s: on disk %s, model %s", p, files[p], w))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(h.m.files)) {
		if _, ok := files[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: absent on disk, model %s", p, h.m.files[p]))
		}
	}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		if !h.m.dirs[d] {
			diffs = append(diffs, fmt.Sprintf("folder %s/ on disk, not in the model", d))
		}
	}
	for _, d := range slices.Sorted(maps.Keys(h.m.dirs)) {
		if !dirs[d] {
			diffs = append(diffs, fmt.Sprintf("folder %s/ in the model, not on disk", d))
		}
	}
	if len(diffs) > 0 {
		h.fatalf("folder differs from the model:\n  %s", strings.Join(diffs, "\n  "))
	}
}

func (h *harness) checkLog() {
	h.t.Helper()
	es, err := h.s.Log(true)
	if err != nil {
		h.fatalf("Log(true): %v", err)
	}
	// The log is newest first: turns by their first record, operations in
	// the order they were applied.
	type ev struct {
		id  string
		seq int
	}
	var want []ev
	for _, t := range h.m.turns {
		want = append(want, ev{t.id, t.seq})
	}
	for id, o := range h.m.ops {
		want = append(want, ev{id, o.seq})
	}
	slices.SortFunc(want, func(a, b ev) int { return b.seq - a.seq })
	var gotIDs, wantIDs []string
	for _, e := range es {
		gotIDs = append(gotIDs, e.ID)
	}
	for _, e := range want {
		wantIDs = append(wantIDs, e.id)
	}
	if !slices.Equal(gotIDs, wantIDs) {
		h.fatalf("Log ids %v, want %v", gotIDs, wantIDs)
	}
	for _, e := range es {
		if t := h.m.byID[e.ID]; t != nil {
			state := store.StateActive
			if t.rewound {
				state = store.StateRewound
			}
			he := 0
			for _, p := range t.paths {
				if h.m.handEdited(p) {
					he++
				}
			}
			if e.Kind != store.KindAgent || e.State != state || e.Files != len(t.paths) || e.HandEdited != he || e.Label != t.label {
				h.fatalf("Log entry %s: kind %q state %q files %d hand_edited %d label %q; want agent %q %d %d %q",
					e.ID, e.Kind, e.State, e.Files, e.HandEdited, e.Label, state, len(t.paths), he, t.label)
			}
			continue
		}
		o := h.m.ops[e.ID]
		if e.Kind != o.kind {
			h.fatalf("Log entry %s: kind %q, want %q", e.ID, e.Kind, o.kind)
		}
		if o.none {
			if e.State != store.StateFailed || e.Target != o.target || !slices.Equal(sortedCopy(e.Turns), sortedCopy(o.turns)) {
				h.fatalf("Log entry %s: state %q target %q turns %v; want failed %q %v", e.ID, e.State, e.Target, e.Turns, o.target, o.turns)
			}
			// Its failures are listed like those of an operation that
			// changed something: each still failed, with the reason, and
			// every one no newer operation failed again.
			var got []string
			for _, f := range e.Failed {
				if f.Reason == "" || !h.m.noneFailed(o, f.Path) {
					h.fatalf("Log entry %s lists %s failed (%q), which is not failed by it", e.ID, f.Path, f.Reason)
				}
				got = append(got, f.Path)
			}
			for _, p := range o.fails {
				if h.m.noneFailed(o, p) && h.m.lastFail[p] == o.seq && !slices.Contains(got, p) {
					h.fatalf("Log entry %s: failed %v, lacks %s", e.ID, got, p)
				}
			}
			if len(got) > 0 {
				h.cov["all-failed-listed"]++
			}
			continue
		}
		if got, w := sortedCopy(e.Turns), sortedCopy(turnIDs(o.rw.turns)); !slices.Equal(got, w) {
			h.fatalf("Log entry %s (%s): turns %v, want %v", e.ID, e.Kind, got, w)
		}
		if e.HandEdited < 0 {
			h.fatalf("Log(true) entry %s: hand_edited %d", e.ID, e.HandEdited)
		}
		switch o.kind {
		case store.KindRewind:
			if e.Target != o.rw.target {
				h.fatalf("Log entry %s: rewind target %q, want %q", e.ID, e.Target, o.rw.target)
			}
			inEffect := slices.Contains(h.m.undo, o.rw)
			switch {
			case !o.rw.everUndone && e.State != store.StateActive,
				!inEffect && e.State != store.StateUndone:
				h.fatalf("Log entry %s: rewind state %q (in effect %v, ever undone %v)", e.ID, e.State, inEffect, o.rw.everUndone)
			}
		case store.KindUndo, store.KindRedo:
			if !slices.Contains(o.targets, e.Target) {
				h.fatalf("Log entry %s (%s): target %q, want the rewind %s or its newest redo/undo", e.ID, e.Kind, e.Target, o.rw.op)
			}
		}
	}
}

func (h *harness) checkFiles(t *mturn, readBlobs bool) {
	h.t.Helper()
	fs, err := h.s.Files(t.id, true)
	if err != nil {
		h.fatalf("Files(%s): %v", t.id, err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Path)
	}
	if g, w := sortedCopy(got), sortedCopy(t.paths); !slices.Equal(g, w) {
		h.fatalf("Files(%s) paths %v, want %v", t.id, g, w)
	}
	for _, f := range fs {
		pre := t.pre[f.Path]
		if err := preMatches(f.Pre, pre); err != nil {
			h.fatalf("Files(%s) %s: pre %+v: %v", t.id, f.Path, f.Pre, err)
		}
		if post, ok := t.post[f.Path]; !ok {
			if f.Post != nil {
				h.fatalf("Files(%s) %s: post %+v, want none (never sealed)", t.id, f.Path, *f.Post)
			}
		} else if f.Post == nil {
			h.fatalf("Files(%s) %s: no post-image, want %s", t.id, f.Path, post)
		} else if err := imageMatches(*f.Post, post); err != nil && !(post.big() && preMatches(*f.Post, post) == nil) {
			h.fatalf("Files(%s) %s: post %+v: %v", t.id, f.Path, *f.Post, err)
		}
		// A skipped path's status needs no look at the disk.
		if err := imageMatches(f.Disk, h.m.disk(f.Path)); err != nil && !(pre.big() && f.Disk.Kind == "") {
			h.fatalf("Files(%s) %s: disk %+v: %v", t.id, f.Path, f.Disk, err)
		}
		if want := h.m.status(t, f.Path); !slices.Contains(want, f.Status) {
			e, ok := h.m.expected(f.Path)
			h.fatalf("Files(%s) %s: status %q, want %v (pre %s, disk %s, expected %s (%v))",
				t.id, f.Path, f.Status, want, pre, h.m.disk(f.Path), e, ok)
		}
		if readBlobs && pre.isFile() && !pre.big() {
			b, err := h.s.ReadImage(f.Pre)
			if err != nil || string(b) != pre.data {
				h.fatalf("ReadImage(%s pre of %s) = %q, %v; want %s", t.id, f.Path, abbrev(string(b)), err, pre)
			}
		}
	}
}
