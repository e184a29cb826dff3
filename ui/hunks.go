package ui

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/ckpt-dev/ckpt/diffview"
	"github.com/ckpt-dev/ckpt/store"
)

// Keeping hunks in a preview. tab moves the focus into the preview's
// diff, where j/k move a cursor over its rows and n/N to the next or
// previous hunk; space keeps the hunk under the cursor as it is now (the
// rest of the file is rewound or reverted) or takes it back. The kept
// hunks go into the plan, whose id covers them, and the diff shows them
// kept: the lines as they are now, under a header that says so.

// hunkKeeps are the preview's kept hunks, by path.
type hunkKeeps map[string]store.HunkKeep

// list is the keeps for a plan request, by path: a copy, so the command
// shares nothing with the model.
func (h hunkKeeps) list() []store.HunkKeep {
	var out []store.HunkKeep
	for _, k := range h {
		k.Hunks = append([]store.Hunk(nil), k.Hunks...)
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// key says which hunks are kept, to tell a plan the user asked for from
// one made again after a change.
func (h hunkKeeps) key() string { return fmt.Sprint(h.list()) }

// hunkOf is a diff's change as the store names it.
func hunkOf(c diffview.Change) store.Hunk {
	return store.Hunk{Now: store.LineSpan{Start: c.OldStart, Len: c.OldLen}, Want: store.LineSpan{Start: c.NewStart, Len: c.NewLen}}
}

// keptIndexes are the hunks of d that keep lists.
func keptIndexes(d *diffview.Diff, keep []store.Hunk) []int {
	var out []int
	for i, c := range d.Changes() {
		for _, h := range keep {
			if h == hunkOf(c) {
				out = append(out, i)
			}
		}
	}
	return out
}

func sumHex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// cursorHunk is the index of the hunk whose rows hold the diff's cursor,
// or -1.
func (d *dialog) cursorHunk() int {
	pd := d.diff
	if pd.d == nil {
		return -1
	}
	h := -1
	for i, at := range pd.d.Hunks(diffview.Unified) {
		if at <= pd.cur {
			h = i
		}
	}
	return h
}

// canKeepHunks says whether the file under the cursor has hunks a space
// in the diff can keep: a text file the operation writes, not kept whole.
func (d *dialog) canKeepHunks() bool {
	r := d.row()
	if r == nil || r.kept || d.diff.d == nil || !d.diff.text || d.diff.path != r.step.Path {
		return false
	}
	if d.kind != store.KindRewind && d.kind != store.KindRevert {
		return false
	}
	return len(d.diff.d.Hunks(diffview.Unified)) > 0
}

// toggleHunk keeps the hunk under the cursor as it is now, or takes it
// back, and says whether anything changed.
func (d *dialog) toggleHunk() bool {
	h := d.cursorHunk()
	if h < 0 || !d.canKeepHunks() {
		return false
	}
	path := d.diff.path
	hk := hunkOf(d.diff.d.Changes()[h])
	k, ok := d.hunks[path]
	if !ok || k.Now != d.diff.nowSum || k.Want != d.diff.wantSum {
		k = store.HunkKeep{Path: path, Now: d.diff.nowSum, Want: d.diff.wantSum}
	}
	var out []store.Hunk
	found := false
	for _, x := range k.Hunks {
		if x == hk {
			found = true
			continue
		}
		out = append(out, x)
	}
	if !found {
		out = append(out, hk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Want.Start < out[j].Want.Start })
	k.Hunks = out
	if len(out) == 0 {
		delete(d.hunks, path)
	} else {
		d.hunks[path] = k
	}
	return true
}

// moveDiffCursor moves the diff's cursor by delta rows, or to the next
// (dir 1) or previous (-1) hunk with delta 0, and keeps it on screen.
func (d *dialog) moveDiffCursor(delta, dir int) {
	if d.diff.d == nil {
		return
	}
	n := d.diff.d.Len(diffview.Unified)
	if dir != 0 {
		d.diff.cur = nextStop(d.diff.d.Hunks(diffview.Unified), d.diff.cur, dir)
	} else {
		d.diff.cur += delta
	}
	d.diff.cur = clamp(d.diff.cur, 0, max(n-1, 0))
	rows := d.diffRows()
	if d.diff.cur < d.diff.top {
		d.diff.top = d.diff.cur
	}
	if d.diff.cur >= d.diff.top+rows {
		d.diff.top = d.diff.cur - rows + 1
	}
	d.clipDiff()
}

// diffRows is how many rows of the diff are on screen.
func (d *dialog) diffRows() int {
	return max(d.previewDiffHeight()-1-len(d.diffNotes(d.diffPaneWidth())), 1)
}
