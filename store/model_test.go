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
//     hand_edited, until a later operation still in effect puts it or a
//     newer capture starts it afresh (an undo's write does not count: it
//     puts the path back as it was); rewinding a turn whose rewind failed
//     paths retries just those, as a rewind of its own, and undoing that
//     retry makes them failed again; undo (redo) after an undo (redo)
//     that failed paths retries them; an operation every step of which
//     failed changes nothing (its turns are not rewound, the stacks stay);
//   - Apply applies exactly the plan it is given: after the folder changed
//     under a plan, it changes nothing and says the plan is out of date;
//   - files whose bytes already match are not rewritten (their mtime stays),
//     the executable bit is kept and restored, and a symbolic link is kept
//     and restored as a link, never followed;
//   - a path keeps its kind: a command that turns a file or a link into a
//     folder, or a folder into a file or a link, is recorded with both
//     kinds, and a rewind, undo or redo puts the kind back; a folder in
//     the way goes only if the operation's turns made it and it is left
//     empty, a file or link standing where a path's folder was fails that
//     path unless the plan puts the folder back, and nothing is written
//     or made through a link (model_shell_test.go, folderStays);
//   - the names of a hard-linked file are one file: a write in place or a
//     chmod through one changes all, a capture or seal of one takes the
//     others the baseline knows, and an operation gives each name its
//     bytes back, a name it writes as a file of its own
//     (model_links_test.go).
//
// Replay a failing sequence with
//
//	go test ./store -run TestModel -model.seed=N [-model.steps=K]
//
// (or CKPT_MODEL_SEED=N CKPT_MODEL_STEPS=K go test ./store -run TestModel);
// CKPT_MODEL_FULL=1 prints every step taken, not the last 40, and every
// step of a plan whose action the model did not predict.

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

var (
	flagModelSeed    = flag.Uint64("model.seed", 0, "TestModel: run only this seed (or $CKPT_MODEL_SEED)")
	flagModelSteps   = flag.Int("model.steps", 0, "TestModel: steps per seed (or $CKPT_MODEL_STEPS)")
	flagModelExplore = flag.Int("model.explore", 0, "TestModel: also run this many random seeds (or $CKPT_MODEL_EXPLORE)")
)

// TestModel runs fixed seeds, so that `go test ./...` gives the same answer
// on every run; -model.explore N adds N random seeds to look for new
// sequences, and a failure prints how to replay it.
func TestModel(t *testing.T) {
	// Fixed seeds whose sequences together reach every coverageKeys event.
	seeds := []uint64{1, 2, 3, 6}
	steps := 500
	if testing.Short() {
		seeds = []uint64{1, 2}
		steps = 150
	}
	explore := *flagModelExplore
	if v := os.Getenv("CKPT_MODEL_EXPLORE"); v != "" && explore == 0 {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("CKPT_MODEL_EXPLORE=%q: %v", v, err)
		}
		explore = n
	}
	for range explore {
		seeds = append(seeds, rand.Uint64())
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
	"hand-same-size-mtime", "rewind-failed-skipped", "capture-skipped", "clock-back", "purge", "purge-rewind", "purge-undo",
	"shell-same-turn", "shell-skip-before", "shell-delete", "shell-move", "shell-chmod", "shell-write", "shell-recorded",
	"shell-to-folder", "shell-folder-to-file", "shell-folder-to-link", "shell-to-link", "shell-link-to-file",
	"kind-rewind", "kind-undo", "kind-redo", "shell-sparse", "sparse-rewind", "sparse-undo",
	"mode-only-rewind", "mode-only-undo", "shell-ln", "shell-write-linked", "agent-write-linked",
	"hardlink-capture", "hardlink-seal", "hardlink-groups", "hardlink-rewind", "hardlink-undo",
	"write-failed", "rewind-retry", "rewind-retry-restored", "undo-retry", "redo-retry", "plan-out-of-date", "all-failed-listed",
	"rewind-retry-after-redo",
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
	pool     []string // the paths steps may touch: pool, less those purged
	// gone are the folders the operation being planned removes once
	// they are empty (its turns made them; an undo, those its rewind made).
	gone map[string]bool
	// blocked are the paths the plan just applied failed for what stands
	// in their way.
	blocked []string
	holes   bool // the file system keeps holes: check a sparse file comes back with them
}

func newHarness(t *testing.T, seed uint64, steps int) *harness {
	h := &harness{
		t: t, seed: seed, steps: steps,
		rng:  rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		root: t.TempDir(),
		m:    newModel(),
		cov:  map[string]int{},
		pool: slices.Clone(pool),
	}
	h.holes = keepsHoles(h.root)
	for _, p := range slices.Sorted(maps.Keys(initial)) {
		v := initial[p]
		h.put(p, v)
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
	if len(tail) > 40 && os.Getenv("CKPT_MODEL_FULL") == "" {
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
		case n < 24:
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
		case n < 94:
			h.captureRewound()
		case n < 95:
			if h.rng.IntN(3) == 0 {
				h.retain()
			} else {
				h.purge()
			}
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
	h.checkLinks()
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
			shown := t.shown()
			for _, p := range shown {
				if h.m.handEdited(p) {
					he++
				}
			}
			if e.Kind != store.KindAgent || e.State != state || e.Files != len(shown) || e.HandEdited != he || e.Label != t.label {
				h.fatalf("Log entry %s: kind %q state %q files %d hand_edited %d label %q; want agent %q %d %d %q",
					e.ID, e.Kind, e.State, e.Files, e.HandEdited, e.Label, state, len(shown), he, t.label)
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
	if g, w := sortedCopy(got), sortedCopy(t.shown()); !slices.Equal(g, w) {
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
		if err := imageMatches(f.Disk, h.m.disk(f.Path)); err != nil && !(pre.lost() && f.Disk.Kind == "") {
			h.fatalf("Files(%s) %s: disk %+v: %v", t.id, f.Path, f.Disk, err)
		}
		if want := h.m.status(t, f.Path); !slices.Contains(want, f.Status) {
			e, ok := h.m.expected(f.Path)
			h.fatalf("Files(%s) %s: status %q, want %v (pre %s, disk %s, expected %s (%v))",
				t.id, f.Path, f.Status, want, pre, h.m.disk(f.Path), e, ok)
		}
		if readBlobs && pre.isFile() && !pre.lost() {
			b, err := h.s.ReadImage(f.Pre)
			if err != nil || string(b) != pre.data {
				h.fatalf("ReadImage(%s pre of %s) = %q, %v; want %s", t.id, f.Path, abbrev(string(b)), err, pre)
			}
		}
	}
}
