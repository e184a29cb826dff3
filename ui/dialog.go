package ui

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/ckpt-dev/ckpt/diffview"
	"github.com/ckpt-dev/ckpt/keymap"
	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

// dialog is the preview of a rewind, undo or redo — its plan as a list of
// files with the diff of the one under the cursor — then its progress and
// result. It owns its state, its keys (HandleKey, Bindings), its messages
// (Update) and its drawing (View); the root model opens it, routes keys
// and messages to it while it is open, and acts on what it reports back
// (a dialogAction).
//
// Every message meant for a dialog names it (id) and the request it
// answers (req, seq), so an answer that comes late never lands in another
// dialog or shows an older plan.
type dialog struct {
	env    dialogEnv
	id     int
	kind   store.Kind
	target string // the turn to rewind to (rewind only)
	label  string
	retry  bool // the target is already rewound: the plan retries what failed
	force  bool
	// gitIndex: the rewind puts git's index back too (the key i).
	gitIndex bool
	// focusDiff: tab moved the focus into the diff, where the cursor is
	// d.diff.cur and space keeps the hunk under it (hunks).
	focusDiff bool
	hunks     hunkKeeps

	seq     int  // the dialog's own request counter
	req     int  // the plan request the dialog waits for; 0 when none
	again   bool // something changed while req was out: plan once more
	stale   bool // a plan made again failed: the error replaced a plan
	loading bool // no plan on screen yet
	plan    *store.Plan
	base    *store.Plan // the plan keeping nothing: every file the rewind touches
	keep    map[string]bool
	shown   []string // the kept paths of the plan on screen
	shownH  string   // and its kept hunks (hunkKeeps.key)
	rows    []planRow
	changed bool // the plan on screen replaced one made before a change

	err      error
	canForce bool
	// overwrites: the plan on screen overwrites these paths, which newer
	// turns wrote (an undo or redo planned with force, after the store
	// refused it without).
	overwrites []string

	applying bool
	ch       <-chan tea.Msg
	done     int
	total    int
	result   *store.Result

	cur  list
	diff previewDiff
	// since: the diff shows the file's changes since the agent (the
	// agent's bytes → disk now) instead of what the operation does.
	since bool

	// The screen: its width, the rows of the main area, and whether the
	// whole screen is tall enough to wrap the header.
	w, h int
	tall bool
}

// dialogEnv is what a dialog shares with the root model.
type dialogEnv struct {
	st      Store
	cache   *diffCache
	sty     *styles
	maxDiff int64
	// entry finds an entry of the log on screen (nil if none): what an
	// undo or redo acts on, to name it.
	entry func(id string) *store.Entry
}

// dialogAction is what a dialog asks of the root model after a key or a
// message: the root owns the status line and the reloads.
type dialogAction struct {
	close    bool   // the dialog is done: drop it
	status   string // a status line to show ("" leaves it)
	op       string // the operation the status is about
	errText  string // an error to show ("" leaves it)
	clearErr bool   // the error on screen no longer holds
	refresh  bool   // the store changed: reload the log
	badges   bool   // and the badges
	retry    bool   // open a new preview retrying what this rewind could not restore
}

// planRow is one file of the preview.
type planRow struct {
	step store.Step // from the plan applied; for a kept file, from base
	kept bool
}

// previewDiff is the diff of the file under the preview's cursor.
type previewDiff struct {
	seq       int
	path      string
	since     bool
	d         *diffview.Diff
	note      string
	err       error
	top, left int
	cur       int // the cursor's row, with the focus in the diff
	// text: both sides are text the diff shows by lines; nowSum and
	// wantSum are their hashes, which kept hunks name.
	text            bool
	nowSum, wantSum string
}

// Messages of the dialog.
type (
	planLoadedMsg struct {
		dlg, req   int
		plan, base *store.Plan
		err        error
		// forced: the undo or redo would overwrite a newer turn's work,
		// so this is the plan that does (shown, never applied unseen),
		// and overwrites lists those paths.
		forced     bool
		overwrites []string
	}
	previewDiffMsg struct {
		dlg, seq        int
		d               *diffview.Diff
		note            string
		err             error
		text            bool
		nowSum, wantSum string
	}
	applyStartedMsg struct {
		dlg int
		ch  <-chan tea.Msg
	}
	progressMsg struct{ dlg, done, total int }
	appliedMsg  struct {
		dlg  int
		plan *store.Plan
		res  *store.Result
		err  error
	}
)

// newDialog makes the preview of an operation; Open asks for its plan.
func newDialog(env dialogEnv, id int, kind store.Kind, target, label string, retry bool) *dialog {
	return &dialog{env: env, id: id, kind: kind, target: target, label: label, retry: retry,
		loading: true, keep: map[string]bool{}, hunks: hunkKeeps{}}
}

// Open asks for the first plan.
func (d *dialog) Open() tea.Cmd { return d.requestPlan() }

// SetSize takes the screen's width, the rows of the main area and the
// screen's height.
func (d *dialog) SetSize(w, mainH, screenH int) {
	d.w, d.h, d.tall = w, mainH, screenH >= 24
	d.cur.clip(len(d.rows), d.planListHeight())
	d.clipDiff()
}

// Replan makes the open preview's plan again after the store or the disk
// changed, so what y applies is always what is on screen.
func (d *dialog) Replan() tea.Cmd {
	if !d.previewing() || d.loading || (d.err != nil && d.plan == nil && !d.stale) {
		return nil
	}
	return d.requestPlan()
}

// Bindings is k with only the keys the dialog can act on now enabled.
func (d *dialog) Bindings(k keymap.KeyMap) keymap.KeyMap {
	preview := d.previewing() && d.plan != nil
	var row *planRow
	if preview {
		row = d.row()
	}
	rewind := d.kind == store.KindRewind || d.kind == store.KindRevert
	k.Confirm.SetEnabled(d.ready() && d.toApply() > 0)
	k.Force.SetEnabled(d.canForce && !d.applying)
	k.Keep.SetEnabled(preview && rewind && row != nil && !d.focusDiff)
	k.KeepAll.SetEnabled(preview && rewind && len(d.rows) > 0 && !d.focusDiff)
	k.DiffFocus.SetEnabled(preview && (d.focusDiff || d.canKeepHunks()))
	k.KeepHunk.SetEnabled(preview && d.focusDiff && d.canKeepHunks() && d.cursorHunk() >= 0)
	// r retries what failed, and in a revert's preview switches to the
	// rewind of the same turn; R switches a rewind's preview to the revert
	// of the selected turn alone.
	k.Rewind.SetEnabled(d.result != nil && len(d.result.Failed) > 0 && rewind || preview && d.kind == store.KindRevert && d.target != "")
	if d.result != nil {
		k.Rewind.SetHelp("r", "retry what failed") // not a rewind: the same operation, on what it left
	}
	k.Revert.SetEnabled(preview && d.kind == store.KindRewind && d.target != "" && !d.retry)
	var diff *diffview.Diff
	if preview {
		diff = d.diff.d
	}
	k.NextHunk.SetEnabled(diff != nil && len(diff.Hunks(diffview.Unified)) > 0)
	k.PrevHunk.SetEnabled(k.NextHunk.Enabled())
	k.Left.SetEnabled(diff != nil)
	k.Right.SetEnabled(diff != nil)
	k.DiffMode.SetEnabled(preview && row != nil && row.step.HandEdited)
	k.GitIndex.SetEnabled(preview && rewind && d.plan.Git != nil && (d.plan.Git.IndexChanged || d.gitIndex))
	k.Back.SetEnabled(true)
	k.Help.SetEnabled(!d.applying) // ? shows the keys over the dialog
	for _, b := range []*key.Binding{&k.Open, &k.Undo, &k.Redo, &k.SideBySide, &k.Zoom, &k.Search,
		&k.Editor, &k.Filter, &k.NextPane, &k.PrevPane, &k.Follow, &k.Dismiss, &k.Errors, &k.CutTurn} {
		b.SetEnabled(false) // the panes' keys
	}
	return k
}

// ShortHelp is the dialog's one-line help.
func (d *dialog) ShortHelp(k keymap.KeyMap) []key.Binding { return k.PreviewHelp() }

// HandleKey acts on a key, with k the dialog's Bindings and all the
// bindings unfiltered.
func (d *dialog) HandleKey(msg tea.KeyPressMsg, k, all keymap.KeyMap) (tea.Cmd, dialogAction) {
	switch {
	case d.applying:
		if key.Matches(msg, all.Back) {
			return nil, dialogAction{status: "an operation cannot be stopped halfway; it is finishing"}
		}
		return nil, dialogAction{}
	case key.Matches(msg, k.Confirm):
		d.applying = true
		d.total = len(d.plan.Steps)
		return applyPlan(d.env.st, d.id, d.plan), dialogAction{}
	case d.previewing() && d.plan != nil && key.Matches(msg, all.Confirm):
		switch {
		case d.req != 0:
			return nil, dialogAction{status: "the plan is being made again after a change — look at it, then press y"}
		case d.toApply() == 0:
			return nil, dialogAction{status: "every file is kept: nothing to " + d.verb()}
		}
		return nil, dialogAction{}
	case d.previewing() && key.Matches(msg, k.Rewind, k.Revert):
		// The same turn, the other way: back in time, or taken out alone.
		d.kind = store.KindRevert
		if key.Matches(msg, k.Rewind) {
			d.kind = store.KindRewind
		}
		d.plan, d.base, d.rows, d.keep, d.err, d.loading = nil, nil, nil, map[string]bool{}, nil, true
		d.gitIndex = false // asked of the other plan, not this one
		d.hunks, d.focusDiff = hunkKeeps{}, false
		d.cur, d.diff = list{}, previewDiff{}
		return d.requestPlan(), dialogAction{}
	case key.Matches(msg, k.Rewind): // retry what failed
		return nil, dialogAction{retry: true}
	case key.Matches(msg, k.DiffFocus):
		d.focusDiff = !d.focusDiff
		if d.focusDiff {
			d.diff.cur = d.diff.top
			if hs := d.diff.d.Hunks(diffview.Unified); d.cursorHunk() < 0 && len(hs) > 0 {
				d.diff.cur = hs[0]
			}
			d.moveDiffCursor(0, 0)
		}
		return nil, dialogAction{}
	case d.focusDiff && key.Matches(msg, all.Back):
		d.focusDiff = false
		return nil, dialogAction{}
	case key.Matches(msg, k.KeepHunk):
		if !d.toggleHunk() {
			return nil, dialogAction{}
		}
		return tea.Batch(d.requestPlan(), d.loadDiff(true)), dialogAction{}
	case key.Matches(msg, k.Keep):
		r := d.row()
		r.kept = !r.kept
		d.keep[r.step.Path] = r.kept
		if !r.kept {
			delete(d.keep, r.step.Path)
		} else {
			delete(d.hunks, r.step.Path) // kept whole
		}
		d.cur.move(1, len(d.rows))
		d.cur.clip(len(d.rows), d.planListHeight())
		return tea.Batch(d.requestPlan(), d.loadDiff(false)), dialogAction{}
	case key.Matches(msg, k.KeepAll):
		all := len(d.keptPaths()) == len(d.rows)
		for i := range d.rows {
			d.rows[i].kept = !all
			if all {
				delete(d.keep, d.rows[i].step.Path)
			} else {
				d.keep[d.rows[i].step.Path] = true
			}
		}
		d.hunks = hunkKeeps{}
		return d.requestPlan(), dialogAction{}
	case key.Matches(msg, k.DiffMode):
		d.since = !d.since
		return d.loadDiff(false), dialogAction{}
	case key.Matches(msg, k.GitIndex):
		d.gitIndex = !d.gitIndex
		return d.requestPlan(), dialogAction{}
	case key.Matches(msg, k.Force):
		d.loading, d.err, d.canForce, d.force = true, nil, false, true
		return d.requestPlan(), dialogAction{}
	case key.Matches(msg, all.Back, all.Quit), d.result != nil && key.Matches(msg, all.Confirm):
		return nil, dialogAction{close: true} // q closes the dialog, never the program
	}
	return d.moveKey(msg, k), dialogAction{}
}

// moveKey moves the cursor over the files, or scrolls the diff.
func (d *dialog) moveKey(msg tea.KeyPressMsg, k keymap.KeyMap) tea.Cmd {
	if d.focusDiff {
		d.moveInDiff(msg, k)
		return nil
	}
	switch {
	case key.Matches(msg, k.Up):
		d.cur.move(-1, len(d.rows))
	case key.Matches(msg, k.Down):
		d.cur.move(1, len(d.rows))
	case key.Matches(msg, k.Top):
		d.cur.move(-1<<30, len(d.rows))
	case key.Matches(msg, k.Bottom):
		d.cur.move(1<<30, len(d.rows))
	case key.Matches(msg, k.PageUp):
		d.Scroll(-(d.previewDiffHeight() - 1))
		return nil
	case key.Matches(msg, k.PageDown):
		d.Scroll(d.previewDiffHeight() - 1)
		return nil
	case key.Matches(msg, k.Left):
		d.diff.left = max(d.diff.left-sideStep, 0)
		return nil
	case key.Matches(msg, k.Right):
		if d.diff.d != nil {
			d.diff.left = min(d.diff.left+sideStep, max(d.diff.d.Longest()-sideStep, 0))
		}
		return nil
	case key.Matches(msg, k.NextHunk), key.Matches(msg, k.PrevHunk):
		if d.diff.d != nil {
			dir := 1
			if key.Matches(msg, k.PrevHunk) {
				dir = -1
			}
			d.diff.top = nextStop(d.diff.d.Hunks(diffview.Unified), d.diff.top, dir)
			d.clipDiff()
		}
		return nil
	default:
		return nil
	}
	d.cur.clip(len(d.rows), d.planListHeight())
	return d.loadDiff(false)
}

// Scroll moves the diff by delta rows (the mouse wheel, page keys).
func (d *dialog) Scroll(delta int) {
	d.diff.top += delta
	d.clipDiff()
}

// Update takes one of the dialog's messages; ok is false when msg is not
// one (the root handles it).
func (d *dialog) Update(msg tea.Msg) (cmd tea.Cmd, act dialogAction, ok bool) {
	switch msg := msg.(type) {
	case planLoadedMsg:
		cmd, act = d.planLoaded(msg)
	case previewDiffMsg:
		d.diffLoaded(msg)
	case applyStartedMsg:
		if msg.dlg == d.id {
			d.ch = msg.ch
		}
		cmd = waitApply(msg.dlg, msg.ch)
	case progressMsg:
		if msg.dlg == d.id {
			if d.applying {
				d.done, d.total = msg.done, msg.total
			}
			cmd = waitApply(msg.dlg, d.ch)
		}
	case appliedMsg:
		cmd, act = d.applied(msg)
	default:
		return nil, dialogAction{}, false
	}
	return cmd, act, true
}

// overwrites lists the paths of p that agent turns still in effect wrote
// after the operation p undoes or redoes, each with its turn.
func overwrites(st Store, p *store.Plan) []string {
	entries, err := st.Log(false)
	if err != nil {
		return nil
	}
	var at time.Time
	for _, e := range entries {
		if e.ID == p.Target {
			at = e.At
		}
	}
	inPlan := map[string]bool{}
	for _, s := range p.Steps {
		inPlan[s.Path] = s.Do != store.ActLeave
	}
	var out []string
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Kind != store.KindAgent || e.State != store.StateActive || !e.At.After(at) {
			continue
		}
		files, err := st.Files(e.ID, false)
		if err != nil {
			continue
		}
		for _, f := range files {
			if inPlan[f.Path] {
				out = append(out, fmt.Sprintf("%s (turn %s)", present.Escape(f.Path), present.Escape(e.ID)))
			}
		}
	}
	return out
}

// planReq is one request for a plan: a copy, so the command shares
// nothing with the model.
type planReq struct {
	dlg, req int
	kind     store.Kind
	target   string
	keep     []string
	force    bool
	gitIndex bool
	hunks    []store.HunkKeep
}

// planOp makes the plan, and when files are kept, the plan keeping
// nothing as well, so the preview can list every file.
func planOp(st Store, r planReq) tea.Cmd {
	return func() tea.Msg {
		plan := func(keep []string, hunks []store.HunkKeep) (*store.Plan, error) {
			switch r.kind {
			case store.KindUndo:
				return st.PlanUndo(r.force)
			case store.KindRedo:
				return st.PlanRedo(r.force)
			case store.KindRevert:
				return st.PlanRevert(r.target, store.RevertOptions{Keep: keep, GitIndex: r.gitIndex, KeepHunks: hunks})
			}
			return st.PlanRewind(r.target, store.RewindOptions{Keep: keep, GitIndex: r.gitIndex, KeepHunks: hunks})
		}
		msg := planLoadedMsg{dlg: r.dlg, req: r.req}
		msg.plan, msg.err = plan(r.keep, r.hunks)
		if errors.Is(msg.err, store.ErrNewerTurn) && !r.force {
			// Preview what forcing would do, listing the newer work it
			// overwrites; y applies it only once seen.
			r.force, msg.forced = true, true
			msg.plan, msg.err = plan(r.keep, r.hunks)
			if msg.err == nil {
				msg.overwrites = overwrites(st, msg.plan)
			}
		}
		if msg.err == nil && len(r.keep)+len(r.hunks) > 0 {
			msg.base, msg.err = plan(nil, nil)
		} else {
			msg.base = msg.plan
		}
		return msg
	}
}

func (d *dialog) verb() string {
	switch d.kind {
	case store.KindUndo:
		return "undo"
	case store.KindRedo:
		return "redo"
	case store.KindRevert:
		return "revert"
	}
	if d.retry {
		return "retry"
	}
	return "rewind"
}

// ready says whether y would apply the plan on screen: there is one, and
// no newer one is being made.
func (d *dialog) ready() bool {
	return d.plan != nil && d.req == 0 && !d.applying && d.result == nil && d.err == nil
}

// previewing is the dialog's state before anything is applied.
func (d *dialog) previewing() bool {
	return !d.applying && d.result == nil
}

// toApply counts the files the plan changes (kept ones left out).
func (d *dialog) toApply() int {
	if d.plan == nil {
		return 0
	}
	n := 0
	for _, r := range d.rows {
		if !r.kept {
			n++
		}
	}
	return n
}

func (d *dialog) keptPaths() []string {
	var out []string
	for p, k := range d.keep {
		if k {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// setPlan takes a new plan (and the plan keeping nothing), keeping the
// cursor on the same path.
func (d *dialog) setPlan(plan, base *store.Plan) {
	var at string
	if r := d.row(); r != nil {
		at = r.step.Path
	}
	asked := strings.Join(d.keptPaths(), "\x00") != strings.Join(d.shown, "\x00") || d.hunks.key() != d.shownH
	if d.plan != nil && !asked && fingerprint(d.plan) != fingerprint(plan) {
		d.changed = true // not the user's doing: say so
	}
	d.plan, d.base = plan, base
	if base == nil {
		d.base = plan
	}
	inPlan := map[string]store.Step{}
	for _, s := range plan.Steps {
		inPlan[s.Path] = s
	}
	d.rows = d.rows[:0]
	for _, s := range d.base.Steps {
		if ps, ok := inPlan[s.Path]; ok {
			kept := ps.Do == store.ActLeave
			if kept {
				d.keep[s.Path] = true
			}
			d.rows = append(d.rows, planRow{step: ps, kept: kept})
			delete(inPlan, s.Path)
		} else if d.keep[s.Path] {
			d.rows = append(d.rows, planRow{step: s, kept: true})
		}
	}
	for _, s := range plan.Steps { // made after the base: a path new to it
		if _, ok := inPlan[s.Path]; ok {
			d.rows = append(d.rows, planRow{step: s, kept: s.Do == store.ActLeave})
		}
	}
	d.retry = plan.Retry != ""
	for p := range d.keep {
		found := false
		for _, r := range d.rows {
			found = found || r.step.Path == p
		}
		if !found {
			delete(d.keep, p) // no longer in the plan
		}
	}
	d.cur.cur = 0
	for i, r := range d.rows {
		if r.step.Path == at {
			d.cur.cur = i
		}
	}
}

func (d *dialog) row() *planRow {
	if d.cur.cur < 0 || d.cur.cur >= len(d.rows) {
		return nil
	}
	return &d.rows[d.cur.cur]
}

// fingerprint is what a plan would do, to tell whether a plan made again
// differs from the one on screen.
func fingerprint(p *store.Plan) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%v|%v|%+v\n", p.Kind, p.Target, p.Force, p.Turns, p.Warnings)
	for _, s := range p.Steps {
		fmt.Fprintf(&b, "%q %s %q %v %s/%s/%s %s/%s/%s\n", s.Path, s.Do, s.Reason, s.HandEdited,
			s.Now.Kind, s.Now.SHA256, s.Now.Link, s.Want.Kind, s.Want.SHA256, s.Want.Link)
	}
	return b.String()
}

// requestPlan asks for the dialog's plan again (its keeps, the store and
// the disk may have changed). Until the answer comes, y applies nothing.
func (d *dialog) requestPlan() tea.Cmd {
	if d.req != 0 {
		d.again = true // one more when this one lands
		return nil
	}
	d.seq++
	d.req = d.seq
	return planOp(d.env.st, planReq{dlg: d.id, req: d.req, kind: d.kind, target: d.target, keep: d.keptPaths(), force: d.force, gitIndex: d.gitIndex, hunks: d.hunks.list()})
}

func (d *dialog) planLoaded(msg planLoadedMsg) (tea.Cmd, dialogAction) {
	if d.id != msg.dlg || d.req != msg.req || !d.previewing() {
		return nil, dialogAction{} // another dialog's answer, or an older one
	}
	d.req = 0
	if d.again {
		d.again = false
		return d.requestPlan(), dialogAction{} // the answer is already old
	}
	if msg.err != nil && errors.Is(msg.err, store.ErrHunksChanged) && len(d.hunks) > 0 {
		// A file changed under its kept hunks: they no longer name its
		// lines. Plan without them, and say so.
		d.hunks = hunkKeeps{}
		return d.requestPlan(), dialogAction{status: "a file changed since its hunks were kept: the hunks are no longer kept — keep them again"}
	}
	if msg.err != nil {
		if s := planError(msg.err); s != "" && d.loading {
			return nil, dialogAction{close: true, status: s}
		}
		if d.plan != nil && strings.Join(d.keptPaths(), "\x00") != strings.Join(d.shown, "\x00") {
			// Keeping a file failed: back to the plan on screen.
			d.keep = map[string]bool{}
			for _, p := range d.shown {
				d.keep[p] = true
			}
			for i := range d.rows {
				d.rows[i].kept = d.keep[d.rows[i].step.Path]
			}
			return d.loadDiff(true), dialogAction{status: "cannot keep that file: " + msg.err.Error()}
		}
		d.loading = false
		d.err = msg.err
		d.stale = d.plan != nil
		d.plan, d.base, d.rows = nil, nil, nil
		d.canForce = errors.Is(msg.err, store.ErrNewerTurn) && !d.force
		return nil, dialogAction{}
	}
	d.loading, d.err, d.stale = false, nil, false
	if msg.forced {
		d.force, d.overwrites = true, msg.overwrites
	}
	d.setPlan(msg.plan, msg.base)
	d.shown, d.shownH = d.keptPaths(), d.hunks.key()
	d.cur.clip(len(d.rows), d.planListHeight())
	return d.loadDiff(true), dialogAction{}
}

// loadDiff asks for the diff of the file under the cursor, unless it is
// already on screen (or force).
func (d *dialog) loadDiff(force bool) tea.Cmd {
	r := d.row()
	if r == nil {
		d.diff = previewDiff{}
		return nil
	}
	since := d.since && r.step.HandEdited
	if !force && d.diff.path == r.step.Path && d.diff.since == since {
		return nil
	}
	if d.diff.path != r.step.Path || d.diff.since != since {
		d.diff = previewDiff{path: r.step.Path, since: since}
	}
	d.seq++
	d.diff.seq = d.seq
	step := r.step
	if (r.kept || r.step.KeptHunks > 0) && d.base != nil {
		for _, s := range d.base.Steps {
			if s.Path == step.Path {
				step = s // what the rewind would have done
			}
		}
	}
	var turns []string
	if d.plan != nil {
		turns = d.plan.Turns
	}
	var kept []store.Hunk
	if k, ok := d.hunks[step.Path]; ok && !r.kept {
		kept = append(kept, k.Hunks...)
	}
	return loadStepDiff(d.env.st, d.env.cache, stepDiffReq{dlg: d.id, seq: d.seq, step: step, since: since, turns: turns, max: d.env.maxDiff, hunks: kept})
}

func (d *dialog) diffLoaded(msg previewDiffMsg) {
	if d.id != msg.dlg || d.diff.seq != msg.seq {
		return
	}
	d.diff.d, d.diff.note, d.diff.err = msg.d, msg.note, msg.err
	d.diff.text, d.diff.nowSum, d.diff.wantSum = msg.text, msg.nowSum, msg.wantSum
	if d.focusDiff && !d.canKeepHunks() {
		d.focusDiff = false // nothing left to keep in this diff
	}
	if d.focusDiff {
		d.moveDiffCursor(0, 0)
	}
	d.clipDiff()
}

// applied takes the result of an apply (of this dialog's plan, or of an
// earlier dialog's that ended while this one was open).
func (d *dialog) applied(msg appliedMsg) (tea.Cmd, dialogAction) {
	mine := d.id == msg.dlg
	if mine {
		d.applying = false
	}
	if msg.err != nil && errors.Is(msg.err, store.ErrPlanChanged) && mine {
		// Nothing was applied: show what would be done now.
		d.changed = true
		return d.requestPlan(), dialogAction{refresh: true,
			status: "the plan changed before it was applied; nothing was changed — here is the new plan"}
	}
	return appliedAction(msg, d, mine)
}

// appliedAction is what the root does after an apply: the status or the
// error, a reload, and whether the dialog (when mine) closes.
func appliedAction(msg appliedMsg, d *dialog, mine bool) (tea.Cmd, dialogAction) {
	if msg.err != nil {
		verb := "apply"
		if msg.plan != nil {
			verb = string(msg.plan.Kind)
		}
		if mine {
			d.err = msg.err
		}
		return nil, dialogAction{errText: verb + ": " + msg.err.Error(), refresh: true, badges: true}
	}
	act := dialogAction{clearErr: true, refresh: true, badges: true, status: resultStatus(msg.plan, msg.res, mine && d.retry), op: msg.res.Op}
	if mine {
		if len(msg.res.Failed) > 0 {
			d.result = msg.res // keep the dialog open to say what failed
		} else {
			act.close = true
		}
	}
	return nil, act
}

// diffReq of the preview: the file under the cursor, disk now → what the
// operation writes (or, with since, the agent's bytes → disk now).
type stepDiffReq struct {
	dlg, seq int
	step     store.Step
	since    bool
	turns    []string
	max      int64
	hunks    []store.Hunk // kept as they are now
}

func loadStepDiff(st Store, cache *diffCache, r stepDiffReq) tea.Cmd {
	return func() tea.Msg {
		msg := previewDiffMsg{dlg: r.dlg, seq: r.seq}
		var old, new side
		if r.since {
			var post *store.Image
			for _, t := range r.turns {
				files, err := st.Files(t, false)
				if err != nil {
					continue
				}
				for _, f := range files {
					if f.Path == r.step.Path && f.Post != nil {
						post = f.Post // later turns win
					}
				}
			}
			old, new = readPost(st, post), readDisk(st, r.step.Path)
		} else {
			if r.step.Do == store.ActFail && r.step.Marked.Kind == store.ImageContent {
				// A revert's conflict: the file is left as it is; the diff
				// shows where, with the markers --conflicts markers writes.
				old, new = readDisk(st, r.step.Path), readKept(st, r.step.Marked, "merged")
				msg.d, msg.note, msg.err = diffSides(cache, old, new, r.max)
				return msg
			}
			if r.step.Do == store.ActFail {
				msg.note = "cannot be restored: " + orUnknown(r.step.Reason)
				return msg
			}
			old = readDisk(st, r.step.Path)
			if r.step.Want.Kind == "" {
				msg.note = "what this file becomes was not recorded"
				return msg
			}
			new = readKept(st, r.step.Want, "earlier")
		}
		msg.d, msg.note, msg.err = diffSides(cache, old, new, r.max)
		if msg.d != nil && !r.since && r.step.Do == store.ActRestore && !msg.d.Binary && !msg.d.TooLarge &&
			r.step.Want.Kind == store.ImageContent && old.id != "absent" && old.id != "" && !strings.HasPrefix(old.id, "link:") {
			msg.text, msg.nowSum, msg.wantSum = true, sumHex(old.data), sumHex(new.data)
			if len(r.hunks) > 0 {
				msg.d = msg.d.Keep(keptIndexes(msg.d, r.hunks))
			}
		}
		return msg
	}
}

// applyPlan runs the plan in a goroutine that reports progress on a
// channel; waitApply reads it one message at a time.
func applyPlan(st Store, dlg int, p *store.Plan) tea.Cmd {
	return func() tea.Msg {
		ch := make(chan tea.Msg, 8)
		go func() {
			defer close(ch)
			res, err := st.Apply(p, func(done, total int) {
				select {
				case ch <- progressMsg{dlg, done, total}:
				default: // the screen is behind: skip a step, not the work
				}
			})
			ch <- appliedMsg{dlg: dlg, plan: p, res: res, err: err}
		}()
		return applyStartedMsg{dlg: dlg, ch: ch}
	}
}

func waitApply(dlg int, ch <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return appliedMsg{dlg: dlg, err: fmt.Errorf("apply: ended without a result")}
		}
		return msg
	}
}

// resultStatus is the status line after an operation, from the plan that
// was shown and applied.
// Its count of files is the operation's, as its row in the log shows it:
// every path the plan took (kept and already right ones too).
func resultStatus(p *store.Plan, r *store.Result, retry bool) string {
	files := len(p.Steps)
	var s string
	switch {
	case p.Kind == store.KindUndo:
		s = present.OpSummary(p.Kind, p.Target, len(p.Turns), files) + " — ctrl+r to redo"
	case p.Kind == store.KindRedo:
		s = present.OpSummary(p.Kind, p.Target, len(p.Turns), files) + " — u to undo"
	case retry:
		s = fmt.Sprintf("retried %s — u to undo", present.Count(files, "file"))
	default:
		s = present.OpSummary(p.Kind, p.Target, len(p.Turns), files) + " — u to undo"
	}
	if len(r.Kept) > 0 {
		s += fmt.Sprintf(" · %d kept as %s", len(r.Kept), map[bool]string{true: "it was", false: "they were"}[len(r.Kept) == 1])
	}
	if len(r.Failed) > 0 {
		s += fmt.Sprintf(" · %d could not be restored", len(r.Failed))
	}
	return s
}

// planError turns a planning error into a status line, or "" when the
// dialog should show it.
func planError(err error) string {
	switch {
	case errors.Is(err, store.ErrNothingToUndo):
		return "nothing to undo"
	case errors.Is(err, store.ErrNothingToRedo):
		return "nothing to redo"
	case errors.Is(err, store.ErrRewound):
		return "that turn is already rewound — u undoes the rewind"
	}
	return ""
}

// The drawing.

func (d *dialog) title() string {
	switch d.kind {
	case store.KindUndo, store.KindRedo:
		if d.plan == nil || d.plan.Target == "" {
			return map[store.Kind]string{store.KindUndo: "Undo the latest rewind or revert", store.KindRedo: "Redo"}[d.kind]
		}
		t := present.OpTitle(d.kind, d.plan.Target)
		if what := d.undone(); what != "" {
			t += ", " + what
		}
		return t
	}
	t := present.OpTitle(store.KindRewind, d.target)
	if d.kind == store.KindRevert {
		t = present.OpTitle(store.KindRevert, d.target)
	}
	switch {
	case d.retry && d.kind == store.KindRevert:
		t = "Retry the revert of turn " + present.Escape(d.target)
	case d.retry:
		t = "Retry the rewind to before turn " + present.Escape(d.target)
	}
	if d.label != "" {
		t += " — " + present.Escape(d.label)
	}
	return t
}

// undone names the operation an undo or redo acts on, "the rewind to
// before turn 3", "the revert of turn 3" or "the retry of op-1", so the
// title says which (as ckpt undo's plan does); "" when the log on screen
// does not hold it.
func (d *dialog) undone() string {
	e := d.undoneEntry()
	if e == nil {
		return ""
	}
	return present.UndoneName(string(e.Kind), e.Target, e.Retry, len(e.Turns))
}

// undoneEntry is the log entry of the operation an undo or redo acts on, or
// nil.
func (d *dialog) undoneEntry() *store.Entry {
	if d.plan == nil || d.plan.Target == "" || d.env.entry == nil {
		return nil
	}
	return d.env.entry(d.plan.Target)
}

// styledLine is a line of text with its style.
type styledLine struct {
	text  string
	style lipgloss.Style
}

// head is the text above the files: what the plan does, in a few lines,
// each with a style.
func (d *dialog) head() []styledLine {
	sty := d.env.sty
	var out []styledLine
	add := func(style lipgloss.Style, format string, args ...any) {
		out = append(out, styledLine{text: fmt.Sprintf(format, args...), style: style})
	}
	switch {
	case d.loading:
		add(sty.dim, "planning…")
		return out
	case d.err != nil:
		add(sty.fail, "%s", present.Escape(d.err.Error()))
		if d.canForce {
			add(sty.plain, "A newer turn wrote some of these paths; %s would overwrite its work.", d.verb())
			add(sty.plain, "Press f to %s anyway, esc to cancel.", d.verb())
		}
		return out
	case d.result != nil:
		r := d.result
		add(sty.good, "%s done: %d restored, %d deleted%s.", d.verb(), len(r.Restored), len(r.Deleted), keptNote(len(d.keptPaths())))
		if len(r.Failed) > 0 {
			add(sty.fail, "%s could not be put back:", present.Count(len(r.Failed), "file"))
			for _, f := range r.Failed {
				add(sty.fail, "  %s — %s", present.Escape(f.Path), present.Escape(f.Reason))
			}
			switch d.kind {
			case store.KindRewind:
				add(sty.plain, "Fix the cause, then press r to retry just %s.", them(len(r.Failed)))
			case store.KindRevert:
				add(sty.plain, "A file in conflict is left as it is: edit it, then press r to revert just %s again (or use ckpt revert --conflicts markers).", them(len(r.Failed)))
			}
		}
		return out
	}
	return append(out, d.planHead()...)
}

// planHead is the header of a plan on screen: what it undoes, the counts,
// and what to look out for.
func (d *dialog) planHead() []styledLine {
	sty := d.env.sty
	var out []styledLine
	add := func(style lipgloss.Style, format string, args ...any) {
		out = append(out, styledLine{text: fmt.Sprintf(format, args...), style: style})
	}
	p := d.plan
	ids := make([]string, len(p.Turns))
	for i, t := range p.Turns {
		ids[i] = present.Escape(t)
	}
	var restore, del, same, fail, conflict, hand, kept int
	for _, r := range d.rows {
		switch {
		case r.kept:
			kept++
			continue
		case r.step.Do == store.ActRestore:
			restore++
		case r.step.Do == store.ActDelete:
			del++
		case r.step.Do == store.ActKeep:
			same++
		case r.step.Do == store.ActFail && r.step.Conflicts != nil:
			conflict++ // a revert's: left as it is, not a failure to restore
		case r.step.Do == store.ActFail:
			fail++
		}
		if r.step.HandEdited {
			hand++
		}
	}
	var counts []string
	for _, c := range []struct {
		n    int
		what string
	}{{restore, "to restore"}, {del, "to delete"}, {same, "already right"}, {conflict, "in conflict, left as it is"},
		{fail, "cannot be restored"}, {kept, "kept as it is now"}} {
		if c.n > 0 {
			what := c.what
			if c.n != 1 {
				what = strings.Replace(what, "it is", "they are", 1)
			}
			counts = append(counts, fmt.Sprintf("%d %s", c.n, what))
		}
	}
	what := "Undoes"
	reverts := d.kind == store.KindRevert
	if e := d.undoneEntry(); e != nil && e.Kind == store.KindRevert {
		reverts = true
	}
	switch {
	case d.kind == store.KindUndo && reverts:
		what = "Puts back the changes of"
	case d.kind == store.KindUndo:
		what = "Brings back"
	case d.kind == store.KindRedo && reverts:
		what = "Takes out again, keeping every later change,"
	case d.kind == store.KindRedo:
		what = "Undoes again"
	case reverts:
		what = "Takes out, keeping every later change,"
	}
	if e := d.undoneEntry(); e != nil && e.Retry != "" && !d.retry {
		// An undo or redo of a retry acts on the paths it tried again,
		// not on its turns: the operation it retried stays in effect.
		r := present.Escape(e.Retry)
		if d.kind == store.KindRedo {
			add(sty.plain, "Retries again %s %s could not put back: %s", present.Count(len(d.rows), "file"), r, strings.Join(counts, ", "))
		} else {
			add(sty.plain, "Puts the %s it retried back as %s left them (%s stays in effect): %s", present.Count(len(d.rows), "file"), r, r, strings.Join(counts, ", "))
		}
	} else if d.retry {
		failed := "could not restore"
		if d.kind == store.KindRevert {
			failed = "could not take out" // a conflict left as it is, most often
		}
		add(sty.plain, "Retries %s %s %s: %s", present.Count(len(d.rows), "file"),
			present.Escape(d.plan.Retry), failed, strings.Join(counts, ", "))
	} else {
		add(sty.plain, "%s %s: %s · %s: %s", what, present.Count(len(ids), "turn"), strings.Join(ids, ", "),
			present.Count(len(d.rows), "file"), strings.Join(counts, ", "))
	}
	if d.force && d.kind != store.KindRewind {
		add(sty.warn, "Newer turns wrote some of these files after %s; this %s overwrites their work:",
			present.Escape(p.Target), d.verb())
		for _, o := range d.overwrites {
			add(sty.warn, "  %s", o)
		}
	}
	out = append(out, d.gitHead()...)
	if d.changed {
		add(sty.warn, "The plan changed while it was open (a new turn, or a file changed): this is the new plan.")
	}
	if d.req != 0 {
		add(sty.dim, "checking the plan again…")
	}
	if hand > 0 {
		// What takes this operation back: undo for a rewind or a redo,
		// redo for an undo.
		back := "undo"
		if d.kind == store.KindUndo {
			back = "redo"
		}
		add(sty.warn, "%s changed since the agent wrote %s (marked !): kept first, so %s brings %s back.",
			present.Count(hand, "file"), them(hand), back, them(hand))
	}
	for _, w := range p.Warnings {
		add(sty.warn, "⚠ %s", present.Escape(present.Warning(string(w.Kind), w.Turn, w.Path, w.From, w.To)))
	}
	return out
}

// gitHead says what the plan's turns did to git, the commands that would
// put HEAD back (ckpt moves no refs), and what the plan does to git's
// index.
func (d *dialog) gitHead() []styledLine {
	sty := d.env.sty
	p := d.plan
	var out []styledLine
	add := func(style lipgloss.Style, format string, args ...any) {
		out = append(out, styledLine{text: fmt.Sprintf(format, args...), style: style})
	}
	if p.Kind == store.KindRevert {
		return d.revertGitHead()
	}
	if g := p.Git; g != nil {
		pg := present.Git(*g)
		add(sty.warn, "%s: %s.", pg.Lead(), pg.Words())
		if cmds := pg.Commands(); len(cmds) > 0 {
			add(sty.plain, "ckpt moves no refs (commits stay in the reflog); to put HEAD back yourself: %s", strings.Join(cmds, " · "))
		}
		if g.IndexChanged && p.Index == nil && !d.gitIndex {
			add(sty.plain, "git's index is left as it is: i puts it back as before turn %s.", present.Escape(p.Target))
		}
	}
	if p.Index != nil {
		if d.kind == store.KindRewind {
			add(sty.good, "git's index: put back as before turn %s, under git's index.lock (i leaves it).", present.Escape(p.Target))
		} else {
			add(sty.good, "git's index: given back as it was before %s.", present.Escape(p.Target))
		}
	}
	return out
}

// revertGitHead is gitHead for a revert: what its turns did to git while
// they ran, and what putting git's index back drops (what was staged
// after them).
func (d *dialog) revertGitHead() []styledLine {
	sty := d.env.sty
	p := d.plan
	var out []styledLine
	add := func(style lipgloss.Style, format string, args ...any) {
		out = append(out, styledLine{text: fmt.Sprintf(format, args...), style: style})
	}
	what := present.RevertWhat(p.Target, p.Session, len(p.Turns))
	if g := p.Git; g != nil {
		pg := present.Git(*g)
		add(sty.warn, "git during %s: %s.", what, pg.Words())
		if cmds := pg.Commands(); len(cmds) > 0 && !p.HeadSince {
			add(sty.plain, "ckpt moves no refs (commits stay in the reflog); to put HEAD back yourself: %s", strings.Join(cmds, " · "))
		} else if len(cmds) > 0 {
			add(sty.plain, "ckpt moves no refs, and HEAD moved after it too: no command puts back only its part.")
		}
	}
	drops := ""
	if len(p.IndexDrops) > 0 {
		names := make([]string, len(p.IndexDrops))
		for i, n := range p.IndexDrops {
			names[i] = present.Escape(n)
		}
		drops = "what was staged after it: " + strings.Join(names, ", ")
	}
	switch {
	case p.Index != nil && drops != "":
		add(sty.warn, "git's index: put back as before %s, under git's index.lock (i leaves it); this drops %s.", what, drops)
	case p.Index != nil:
		add(sty.good, "git's index: put back as before %s, under git's index.lock (i leaves it).", what)
	case p.Git != nil && p.Git.IndexChanged && !d.gitIndex && drops != "":
		add(sty.plain, "git's index is left as it is: i puts it back as before %s, dropping %s.", what, drops)
	case p.Git != nil && p.Git.IndexChanged && !d.gitIndex:
		add(sty.plain, "git's index is left as it is: i puts it back as before %s.", what)
	}
	return out
}

func keptNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d kept as %s", n, map[bool]string{true: "it was", false: "they were"}[n == 1])
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// text is a file of the preview: a mark, what happens to it, a note and
// the style of its path.
func (r planRow) text(sty *styles) (mark, action, note string, style lipgloss.Style) {
	mark = " "
	if r.step.HandEdited {
		mark = "!"
	}
	switch {
	case r.kept && r.step.HandEdited:
		return "!", "keep   ", "left as it is now, changed since the agent", sty.kept
	case r.kept:
		return "k", "keep   ", "left as it is now", sty.kept
	case r.step.Do == store.ActKeep && r.step.KeptHunks > 0:
		return "k", "keep   ", "every hunk kept as it is now", sty.kept
	case r.step.Do == store.ActRestore && r.step.Conflicts != nil:
		return "C", "markers", "conflict written with markers", sty.warn
	case r.step.Do == store.ActRestore && r.step.KeptHunks > 0:
		return mark, "restore", present.Count(r.step.KeptHunks, "hunk") + " kept as now", sty.plain
	case r.step.Do == store.ActRestore && r.step.Merged:
		return mark, "merge  ", "later changes kept", sty.plain
	case r.step.Do == store.ActRestore:
		return mark, "restore", "", sty.plain
	case r.step.Do == store.ActDelete:
		return mark, "delete ", "", sty.plain
	case r.step.Do == store.ActKeep:
		return mark, "same   ", "already as it was", sty.dim
	case r.step.Do == store.ActFail && r.step.Conflicts != nil:
		return "C", "conflict", orUnknown(r.step.Reason) + " — left as it is", sty.fail
	case r.step.Do == store.ActFail:
		return "X", "cannot ", orUnknown(r.step.Reason), sty.fail
	}
	return mark, fmt.Sprintf("%-7s", present.Escape(string(r.step.Do))), "", sty.plain
}

// The preview's layout: a header, the files and the diff (side by side
// from sideAt columns, else the files above the diff), a footer.
const sideAt = 100

func (d *dialog) side() bool { return d.w >= sideAt }

// headLines is the header: the title and what the plan does.
func (d *dialog) headLines() []string {
	w := d.w
	out := []string{d.env.sty.titleFocus.Render(present.Fit(" "+d.title(), w))}
	for _, l := range d.head() {
		text := strings.TrimLeft(l.text, " ")
		indent := len(l.text) - len(text)
		wrapped := []string{text}
		if d.tall { // on a short screen the files need the rows
			wrapped = wrapLines(text, max(w-indent-3, 1), 0)
		}
		for i, wl := range wrapped {
			lead := " " + strings.Repeat(" ", indent)
			if i > 0 {
				lead += "  "
			}
			out = append(out, l.style.Render(present.Fit(lead+wl, w)))
		}
	}
	return out
}

// bodyHeight is the height left for the files and the diff.
func (d *dialog) bodyHeight() int {
	return max(d.h-len(d.headLines())-1, 2)
}

// planListHeight is the rows of files on screen (without their title).
func (d *dialog) planListHeight() int {
	bh := d.bodyHeight()
	if d.side() {
		return max(bh-1, 1)
	}
	return max(min(len(d.rows), bh/3), 1)
}

// previewDiffHeight is the rows of the preview's diff, with its title.
func (d *dialog) previewDiffHeight() int {
	bh := d.bodyHeight()
	if d.side() {
		return bh
	}
	return max(bh-d.planListHeight()-1, 1)
}

// clipDiff keeps the diff's scroll in range.
func (d *dialog) clipDiff() {
	n := 0
	if d.diff.d != nil {
		n = d.diff.d.Len(diffview.Unified)
	}
	d.diff.top = clamp(d.diff.top, 0, max(n-d.diffRows(), 0))
}

// View draws the dialog in h rows of width w.
func (d *dialog) View(w, h int) string {
	d.w = w
	out := d.headLines()
	if d.plan != nil && d.result == nil && d.err == nil {
		bh := max(h-len(out)-1, 1)
		if d.side() {
			lw := d.listWidth()
			left := d.planListView(lw, bh)
			right := d.previewDiffView(w-lw-1, bh)
			sep := d.env.sty.sep.Render("│")
			for i := 0; i < bh; i++ {
				out = append(out, left[i]+sep+right[i])
			}
		} else {
			lh := d.planListHeight() + 1
			out = append(out, d.planListView(w, lh)...)
			out = append(out, d.previewDiffView(w, bh-lh)...)
		}
	}
	for len(out) < h-1 {
		out = append(out, strings.Repeat(" ", w))
	}
	out = append(out[:min(len(out), h-1)], d.foot())
	return strings.Join(out[:h], "\n")
}

// foot says what the keys do now.
func (d *dialog) foot() string {
	var foot string
	switch {
	case d.applying:
		return progressBar(d.done, d.total, d.w)
	case d.loading:
		foot = "planning… · q/esc cancel"
	case d.result != nil && len(d.result.Failed) > 0 && (d.kind == store.KindRewind || d.kind == store.KindRevert):
		foot = "r retry what failed · q/esc close"
	case d.result != nil:
		foot = "q/esc close"
	case d.err != nil && d.canForce:
		foot = "f " + d.verb() + " anyway · q/esc cancel"
	case d.err != nil:
		foot = "q/esc close"
	case d.req != 0:
		foot = "checking the plan again… · q/esc cancel"
	case d.focusDiff:
		foot = "space keeps the hunk as it is now · j/k n/N move · tab back to the files · y/enter " + d.verb()
	default:
		foot = "y/enter " + d.verb() + " · q/esc cancel"
		if d.toApply() == 0 {
			foot = "every file is kept: nothing to " + d.verb() + " · q/esc cancel"
		}
	}
	return d.env.sty.dim.Render(present.Fit(" "+foot, d.w))
}

// planListView draws the preview's files in h rows (title included).
func (d *dialog) planListView(w, h int) []string {
	sty := d.env.sty
	out := []string{sty.paneTitle(fmt.Sprintf("Files (%d)", len(d.rows)), w, !d.focusDiff)}
	top := d.cur.top // kept in range by Update; recomputed here only to draw
	if d.cur.cur >= top+h-1 {
		top = d.cur.cur - (h - 1) + 1
	}
	top = clamp(min(top, d.cur.cur), 0, max(len(d.rows)-(h-1), 0))
	end := min(top+h-1, len(d.rows))
	for i := top; i < end; i++ {
		r := d.rows[i]
		mark, action, note, style := r.text(sty)
		cur := " "
		if i == d.cur.cur {
			cur = "›"
		}
		var right []seg
		if note != "" {
			right = append(right, seg{text: present.Escape(note), style: sty.dim, optional: true})
		}
		left := cur + mark + " " + action + " "
		out = append(out, sty.row(w, left, seg{text: present.Escape(r.step.Path), style: style, cutLeft: true},
			right, i == d.cur.cur, true))
	}
	for len(out) < h {
		out = append(out, strings.Repeat(" ", w))
	}
	return out[:h]
}

// previewDiffView draws the diff of the file under the preview's cursor.
func (d *dialog) previewDiffView(w, h int) []string {
	sty := d.env.sty
	r := d.row()
	if h <= 0 {
		return nil
	}
	var out []string
	pd := d.diff
	what := part{text: "disk now → after the " + d.verb(), short: "after the " + d.verb(), weight: 2, keep: true}
	switch {
	case pd.since:
		what = part{text: "changes since the agent (the agent's bytes → disk now)", short: "since the agent", weight: 2, keep: true}
	case r != nil && r.conflict():
		what = part{text: "disk now → with conflict markers", short: "with markers", weight: 2, keep: true}
	}
	t := []part{what}
	if r != nil {
		t = append([]part{{text: present.Escape(r.step.Path)}}, t...)
	}
	if pd.d != nil && (pd.d.Added+pd.d.Deleted) > 0 {
		t = append(t, part{text: fmt.Sprintf("+%d -%d", pd.d.Added, pd.d.Deleted), weight: 1})
	}
	if pd.left > 0 {
		t = append(t, part{text: fmt.Sprintf("→ %d", pd.left), weight: 1})
	}
	if r != nil && !r.kept {
		if k, ok := d.hunks[r.step.Path]; ok {
			t = append(t, part{text: present.Count(len(k.Hunks), "hunk") + " kept as now", weight: 3})
		}
	}
	out = append(out, sty.paneTitle(fitParts(t, max(w-1, 0)), w, d.focusDiff))
	out = append(out, d.diffNotes(w)...)
	switch {
	case r == nil:
		out = append(out, sty.dim.Render(present.Fit(" no files", w)))
	case pd.err != nil:
		out = append(out, sty.errText.Render(present.Fit(" "+present.Escape(pd.err.Error()), w)))
	case pd.note != "":
		out = append(out, sty.dim.Render(present.Fit(" "+present.Escape(pd.note), w)))
	case pd.d == nil:
		out = append(out, sty.dim.Render(present.Fit(" computing the diff…", w)))
	case d.focusDiff:
		// A column for the cursor: the hunk under it is the one space keeps.
		n := pd.d.Len(diffview.Unified)
		for i := pd.top; i < n && len(out) < h; i++ {
			mark := " "
			if i == pd.cur {
				mark = "›"
			}
			out = append(out, sty.plain.Render(mark)+pd.d.LineView(i, w-1, diffview.Unified, sty.diff, diffview.View{Left: pd.left}))
		}
	default:
		n := pd.d.Len(diffview.Unified)
		for i := pd.top; i < n && len(out) < h; i++ {
			out = append(out, pd.d.LineView(i, w, diffview.Unified, sty.diff, diffview.View{Left: pd.left}))
		}
	}
	for len(out) < h {
		out = append(out, strings.Repeat(" ", w))
	}
	return out[:h]
}

// conflict is whether the row is a file in conflict whose merge with
// markers the preview's diff shows.
func (r *planRow) conflict() bool {
	return r.step.Do == store.ActFail && r.step.Marked.Kind == store.ImageContent
}

// diffNotes are the lines under the preview diff's title, w wide: that a
// kept file is left as it is, or why a file in conflict is (the files
// pane may have had no room for the reason).
func (d *dialog) diffNotes(w int) []string {
	r, sty := d.row(), d.env.sty
	switch {
	case r == nil || d.diff.since:
		return nil
	case r.kept:
		return []string{sty.kept.Render(present.Fit(" kept: left as it is now. Below, what the "+d.verb()+" would have done:", w))}
	case r.conflict():
		note := orUnknown(r.step.Reason) + " — y leaves it as it is; below, the markers `ckpt revert --conflicts markers` would write"
		var out []string
		for _, l := range wrapLines(present.Escape(note), max(w-1, 1), 2) {
			out = append(out, sty.fail.Render(present.Fit(" "+l, w)))
		}
		return out
	}
	return nil
}

// diffPaneWidth is the width of the preview's diff.
func (d *dialog) diffPaneWidth() int {
	if d.side() {
		return d.w - d.listWidth() - 1
	}
	return d.w
}

// listWidth is the width of the preview's files beside its diff.
func (d *dialog) listWidth() int { return clamp(d.w*2/5, 30, 60) }

// moveInDiff moves the cursor in the diff, with the focus there.
func (d *dialog) moveInDiff(msg tea.KeyPressMsg, k keymap.KeyMap) {
	page := max(d.diffRows()-1, 1)
	switch {
	case key.Matches(msg, k.Up):
		d.moveDiffCursor(-1, 0)
	case key.Matches(msg, k.Down):
		d.moveDiffCursor(1, 0)
	case key.Matches(msg, k.PageUp):
		d.moveDiffCursor(-page, 0)
	case key.Matches(msg, k.PageDown):
		d.moveDiffCursor(page, 0)
	case key.Matches(msg, k.Top):
		d.moveDiffCursor(-1<<30, 0)
	case key.Matches(msg, k.Bottom):
		d.moveDiffCursor(1<<30, 0)
	case key.Matches(msg, k.NextHunk):
		d.moveDiffCursor(0, 1)
	case key.Matches(msg, k.PrevHunk):
		d.moveDiffCursor(0, -1)
	case key.Matches(msg, k.Left):
		d.diff.left = max(d.diff.left-sideStep, 0)
	case key.Matches(msg, k.Right):
		if d.diff.d != nil {
			d.diff.left = min(d.diff.left+sideStep, max(d.diff.d.Longest()-sideStep, 0))
		}
	}
}
