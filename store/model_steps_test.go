package store_test

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// The steps TestModel's harness takes at random: agent turns, hand edits,
// rewinds, undos, redos and their retries, each done to the store and to
// the model side by side, and each plan and result checked against the
// model's.

func (h *harness) content(p string) string {
	cur := h.m.disk(p)
	if h.rng.IntN(20) == 0 {
		// Over the store's size limit: captured as skipped.
		return strings.Repeat(fmt.Sprintf("a long line of %s, %x\n", p, h.rng.Uint32()), 500+h.rng.IntN(400))
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
		if got == "" || h.m.byID[string(got)] != nil {
			h.fatalf("NewTurn returned %q, not a fresh id", got)
		}
		id, wantID = string(got), string(got)
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
			p := h.pick()
			if round > 0 && len(written) > 0 && h.rng.IntN(2) == 0 {
				p = slices.Sorted(maps.Keys(written))[h.rng.IntN(len(written))]
			}
			if !slices.Contains(paths, p) && h.m.usable(p) {
				paths = append(paths, p)
			}
		}
		if len(paths) == 0 {
			continue
		}
		useAPI := style == 2 || (style == 3 && h.rng.IntN(2) == 0)
		if useAPI {
			for _, p := range paths {
				cur := h.m.disk(p)
				if h.rng.IntN(4) == 0 && h.parentExists(p) {
					got, err := h.s.Remove(store.TurnID(id), meta, []string{p})
					// Like rm, removing a missing file is an error, but
					// the path is still captured and sealed.
					if cur.exists && err != nil || !cur.exists && !errors.Is(err, fs.ErrNotExist) {
						h.fatalf("Remove(%s, %s) of %s: %v", id, p, cur, err)
					}
					started(string(got), "Remove")
					h.captureLinked(mt, []string{p})
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
					got, err := h.s.Write(store.TurnID(id), meta, p, []byte(v.data))
					if err != nil {
						h.fatalf("Write(%s, %s): %v", id, p, err)
					}
					started(string(got), "Write")
					h.captureLinked(mt, []string{p})
					h.m.set(p, v) // a new file renamed over p
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
		got, err := h.s.Capture(store.TurnID(id), meta, paths)
		if err != nil {
			h.fatalf("Capture(%s, %v): %v", id, paths, err)
		}
		started(string(got), "Capture")
		// The store saw every path of the batch before the agent wrote any.
		for _, p := range paths {
			if len(h.m.missingDirs(p)) > 0 {
				h.cov["new-dirs"]++
			}
		}
		h.captureLinked(mt, paths)
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
				h.put(p, v)
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
				if h.inGroup(p) {
					h.cov["agent-write-linked"]++
				}
				h.put(p, v)
				desc = append(desc, fmt.Sprintf("write %s=%s", p, v))
			}
			if written[p] {
				h.cov["repeat-write"]++
			}
			written[p] = true
			acted = append(acted, p)
		}
		if len(acted) > 0 {
			if err := h.s.Seal(store.TurnID(id), acted); err != nil {
				h.fatalf("Seal(%s, %v): %v", id, acted, err)
			}
			h.sealLinked(mt, acted)
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
		for _, p := range h.pool {
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
			h.put(p, v)
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
			h.put(p, v)
			desc = append(desc, fmt.Sprintf("create %s=%s", p, v))
			h.cov["hand-create"]++
		case len(files) > 0:
			p := files[h.rng.IntN(len(files))]
			v := h.m.disk(p)
			v.mode ^= 0o111
			h.chmod(p, v.mode)
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
			if r := h.m.undo[i]; slices.Contains(r.turns, t) && len(r.retryFails()) > 0 {
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
		h.gone = set(r.made)
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
		// A step the plan fails (something in the way) is left out of
		// its redo, as one whose pre-image was not kept.
		r.live = slices.DeleteFunc(r.live, func(q string) bool { return slices.Contains(h.blocked, q) })
		r.planFails = slices.Clone(h.blocked)
		h.m.applyRewind(r, op, false, slices.DeleteFunc(failed, func(q string) bool { return slices.Contains(h.blocked, q) }))
	})
	if len(r.removed) > 0 {
		h.cov["rewind-removed-dir"]++
	}
	h.logf("  → %s restored %v deleted %v removed folders %v", res.Op, res.Restored, res.Deleted, r.removed)
	h.cov["rewind"]++
}

func (h *harness) undo() {
	if r := h.m.lastUndo; r != nil && retryable(r.undoFails, r.purgedUndoFails) {
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
		h.gone = set(r.created)
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
	if r := h.m.lastRedo; r != nil && retryable(r.fails, r.purgedFails) {
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
		h.gone = set(r.made)
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
		r.planFails = slices.Clone(h.blocked)
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
	h.logf("rewind %s (already rewound by %s, which failed %v): retry", t.id, r.applyOp, r.retryFails())
	y := &mrewind{target: t.id, turns: r.turns, want: r.want, made: r.made, paths: sortedCopy(r.retryFails())}
	if len(r.leftFails) > 0 {
		h.cov["rewind-retry-after-redo"]++ // what the rewind's plan failed, left so by its redo
	}
	for _, p := range y.paths {
		if !r.want[p].lost() {
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
		h.gone = set(r.made)
		h.checkPlan(p, store.KindRewind, turnIDs(r.turns), y.paths, r.want)
		return p
	}
	p := replan()
	res := h.applyAndCheck(p, replan, y.paths, r.want, false, func(op string, failed []string, none bool) {
		if none {
			h.m.failedOp(op, store.KindRewind, t.id, turnIDs(r.turns), y.paths, r)
			return
		}
		// The failures are the retry's now; a step its plan fails is
		// left out of its redo.
		y.retried, y.heldFails, r.fails = r, r.fails, nil
		y.heldLeft, r.leftFails = r.leftFails, nil
		y.live = slices.DeleteFunc(y.live, func(q string) bool { return slices.Contains(h.blocked, q) })
		y.planFails = slices.Clone(h.blocked)
		h.m.applyRewind(y, op, false, slices.DeleteFunc(failed, func(q string) bool { return slices.Contains(h.blocked, q) }))
		h.cov["rewind-retry-restored"]++
	})
	h.logf("  → %s restored %v deleted %v failed %v", res.Op, res.Restored, res.Deleted, res.Failed)
	h.cov["rewind-retry"]++
}

// retryUndoRedo runs undo (redo) again after an undo (redo) of r that
// failed paths: the plan retries just those and finishes it, leaving the
// stacks as they are.
func (h *harness) retryUndoRedo(kind store.Kind, r *mrewind) {
	failed, want, holder := r.undoFails, r.before, r.undoHolder
	plan := func() (*store.Plan, error) { return h.s.PlanUndo(false) }
	if kind == store.KindRedo {
		failed, want, holder = r.fails, r.want, r.applyHolder
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
		h.gone = nil
		h.checkPlan(p, kind, turnIDs(r.turns), paths, want)
		return p
	}
	p := replan()
	res := h.applyAndCheck(p, replan, paths, want, false, func(op string, failed []string, none bool) {
		if none {
			// Each failed again (something stands in the way): it
			// changed nothing, and the next retry is of what it retried.
			h.m.failedOp(op, kind, r.op, turnIDs(r.turns), paths, r)
			if kind == store.KindUndo {
				o := h.m.ops[op]
				o.undoRetry, o.retryOp = true, r.undoOp
			}
			return
		}
		seq := h.m.tick()
		// Failed again, left as they are: the purged (for good) and those
		// something stands in the way of (retried again).
		var still, purged []string
		for _, q := range paths {
			if want[q].purged || slices.Contains(failed, q) {
				still = append(still, q)
				h.m.lastFail[q] = seq
			}
			if want[q].purged {
				purged = append(purged, q)
			}
		}
		app := r.applyOp // a redo's retry is part of the redo; an undo's undoes
		if kind == store.KindUndo {
			app = ""
		}
		h.m.writeAll(paths, want, seq, app, still)
		if kind == store.KindUndo {
			r.undoFails, r.purgedUndoFails, r.undoFailSeq = still, purged, seq
			if len(still) > len(purged) {
				r.undoHolder = op
			}
		} else {
			r.fails, r.purgedFails, r.failSeq = still, purged, seq
			r.retryHolds = len(still) > 0
			if len(still) > len(purged) {
				r.applyHolder = op
			}
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
//
// A folder standing where a file, a link or nothing is wanted is never
// removed with what is in it (stays): only a folder the operation's turns
// made (gone), once what is in it goes with the operation.
func predictAction(now, want img, fromPre, stays bool) []store.Action {
	switch {
	case want.purged:
		return []store.Action{store.ActFail}
	case fromPre && want.big():
		return []store.Action{store.ActFail}
	case stays:
		return []store.Action{store.ActFail}
	case !want.exists && now.dir:
		// A folder the turns made: it goes once it is left empty.
		return []store.Action{store.ActKeep}
	case !want.exists && now.exists:
		return []store.Action{store.ActDelete}
	case !want.exists:
		return []store.Action{store.ActKeep}
	case !now.sameBytes(want):
		return []store.Action{store.ActRestore}
	case want.isFile() && now.isFile() && now.mode != want.mode:
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
		if w.purged {
			if !strings.Contains(st.Reason, store.PurgedReason) {
				h.fatalf("%s plan step %s: reason %q, want it said purged", kind, st.Path, st.Reason)
			}
			h.cov["purge-"+string(kind)]++
		}
		if acts := predictAction(now, w, kind == store.KindRewind, h.folderStays(st.Path, paths, want)); !slices.Contains(acts, st.Do) {
			if os.Getenv("CKPT_MODEL_FULL") != "" {
				for _, s := range p.Steps {
					h.t.Logf("plan step %q: now %+v want %+v do %q reason %q model now %s want %s", s.Path, s.Now, s.Want, s.Do, s.Reason, h.m.disk(s.Path), want[s.Path])
				}
			}
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
	var handEdited, restored, deleted, failed, blocked []string
	keeps := 0
	for _, q := range paths {
		if h.m.handEdited(q) {
			handEdited = append(handEdited, q)
		}
		if now, w := h.m.disk(q), want[q]; now.exists && w.exists && (now.dir != w.dir || now.isLink() != w.isLink()) {
			h.cov["kind-"+string(p.Kind)]++
		} else if now.isFile() && w.isFile() && now.sameBytes(w) && now.mode != w.mode {
			h.cov["mode-only-"+string(p.Kind)]++
		}
		if h.inGroup(q) {
			h.cov["hardlink-"+string(p.Kind)]++
		}
		stays := h.folderStays(q, paths, want)
		if stays && predictAction(h.m.disk(q), want[q], p.Kind == store.KindRewind, false)[0] != store.ActFail {
			blocked = append(blocked, q)
		}
		switch acts := predictAction(h.m.disk(q), want[q], p.Kind == store.KindRewind, stays); {
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
	// A write fails alone: not one of a path whose folder is in the plan
	// too, or that holds another path of the plan (those would fail with
	// it, or not, as the order of the steps has it).
	var faultable []string
	for _, q := range append(slices.Clone(restored), deleted...) {
		if !slices.ContainsFunc(paths, func(o string) bool { return strings.HasPrefix(o, q+"/") || strings.HasPrefix(q, o+"/") }) {
			faultable = append(faultable, q)
		}
	}
	if faults && h.rng.IntN(5) == 0 && len(paths)-len(failed) >= 2 && len(faultable) > 0 {
		q := faultable[h.rng.IntN(len(faultable))]
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
			if acts := predictAction(h.m.disk(q), want[q], p.Kind == store.KindRewind, h.folderStays(q, paths, want)); len(acts) == 1 && !slices.Contains(c.want, q) {
				h.fatalf("Apply %s %s, which needed %v (%s → %s)", c.name, q, acts, h.m.disk(q), want[q])
			}
		}
	}
	h.blocked = blocked
	apply(res.Op, append(faulty, blocked...), none)
	h.moved = true
	h.checkDisk()
	// A sparse file is put back with its holes.
	for _, q := range restored {
		if v := want[q]; v.isFile() && hasHole(v.data) && h.holes {
			if !h.holed(q) {
				h.fatalf("%s %s: %s was put back dense, without its holes", p.Kind, res.Op, q)
			}
			h.cov["sparse-"+string(p.Kind)]++
		}
	}
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
	if v.purged {
		return imageMatches(si, v)
	}
	if !v.big() {
		return imageMatches(si, v)
	}
	if si.Kind != store.ImageSkipped || si.Reason == "" {
		return fmt.Errorf("kind %q reason %q, want skipped with a reason (%d bytes)", si.Kind, si.Reason, len(v.data))
	}
	if !si.SHA256.IsZero() && si.SHA256 != sum(v.data) {
		return fmt.Errorf("sha256 %s, want that of %s", si.SHA256, v)
	}
	return nil
}

// imageMatches checks a store image against the model's.
func imageMatches(si store.Image, v img) error {
	if v.purged {
		if !si.Purged() || !si.SHA256.IsZero() {
			return fmt.Errorf("kind %q reason %q sha256 %s, want purged, with no hash", si.Kind, si.Reason, si.SHA256)
		}
		return nil
	}
	if !v.exists {
		if si.Kind != store.ImageAbsent {
			return fmt.Errorf("kind %q, want absent", si.Kind)
		}
		return nil
	}
	if v.dir {
		if si.Kind != store.ImageDir {
			return fmt.Errorf("kind %q, want a folder", si.Kind)
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

// folderStays reports whether a folder stands at q where want (the plan's
// images of paths) has a file, a link or nothing, and the operation will
// not remove it: it is no folder the operation's turns made (h.gone), or
// something stays in it that the operation does not take away (a folder
// the plan wants as a folder is no such thing: what is in it decides).
//
// A path wanted as a file, a link or a folder is not put back either
// when a file or a link stands where one of its folders was, unless the
// plan puts that folder right (wanting it a folder, or nothing).
func (h *harness) folderStays(q string, paths []string, want map[string]img) bool {
	// A step that only gives a mode back writes the path too.
	if want[q].exists && !want[q].purged && !h.m.disk(q).same(want[q]) {
		missing := false // a folder above is missing: the rest are made
		for i := strings.IndexByte(q, '/'); i >= 0; i = next(q, i) {
			d := q[:i]
			if w, ok := want[d]; ok && slices.Contains(paths, d) {
				if w.dir || !w.exists {
					continue
				}
				return true // a file is put where the folder was
			}
			if missing || h.m.dirs[d] {
				continue
			}
			if _, ok := h.m.files[d]; ok {
				return true
			}
			missing = true
		}
	}
	if !h.m.dirs[q] || want[q].dir {
		return false
	}
	if !h.gone[q] {
		return true
	}
	for f := range h.m.files {
		if strings.HasPrefix(f, q+"/") && (!slices.Contains(paths, f) || want[f].exists) {
			return true
		}
	}
	// A folder the plan wants as a folder is its own, like one it removes
	// once left empty: what is in it decides.
	for d := range h.m.dirs {
		if strings.HasPrefix(d, q+"/") && !h.gone[d] && !(slices.Contains(paths, d) && want[d].dir) {
			return true
		}
	}
	return false
}

func set(ss []string) map[string]bool {
	out := map[string]bool{}
	for _, x := range ss {
		out[x] = true
	}
	return out
}

// next is the index of the slash after the one at i in q, or -1.
func next(q string, i int) int {
	j := strings.IndexByte(q[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}
