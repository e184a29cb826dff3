package ui

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ckpt-dev/ckpt/diffview"
	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

// dialog is the preview of a rewind, undo or redo — its plan as a list of
// files with the diff of the one under the cursor — then its progress and
// result. Every message meant for a dialog names it (id) and the request
// it answers (req, seq), so an answer that comes late never lands in
// another dialog or shows an older plan.
type dialog struct {
	id     int
	kind   store.Kind
	target string // the turn to rewind to (rewind only)
	label  string
	retry  bool // the target is already rewound: the plan retries what failed
	force  bool

	req     int  // the plan request the dialog waits for; 0 when none
	again   bool // something changed while req was out: plan once more
	stale   bool // a plan made again failed: the error replaced a plan
	loading bool // no plan on screen yet
	plan    *store.Plan
	base    *store.Plan // the plan keeping nothing: every file the rewind touches
	keep    map[string]bool
	shown   []string // the kept paths of the plan on screen
	rows    []planRow
	changed bool // the plan on screen replaced one made before a change

	err      error
	canForce bool

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
}

// Messages of the dialog.
type (
	planLoadedMsg struct {
		dlg, req   int
		plan, base *store.Plan
		err        error
	}
	previewDiffMsg struct {
		dlg, seq int
		d        *diffview.Diff
		note     string
		err      error
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

// planReq is one request for a plan: a copy, so the command shares
// nothing with the model.
type planReq struct {
	dlg, req int
	kind     store.Kind
	target   string
	keep     []string
	force    bool
}

// planOp makes the plan, and when files are kept, the plan keeping
// nothing as well, so the preview can list every file.
func planOp(st Store, r planReq) tea.Cmd {
	return func() tea.Msg {
		plan := func(keep []string) (*store.Plan, error) {
			switch r.kind {
			case store.KindUndo:
				return st.PlanUndo(r.force)
			case store.KindRedo:
				return st.PlanRedo(r.force)
			}
			return st.PlanRewind(r.target, keep)
		}
		msg := planLoadedMsg{dlg: r.dlg, req: r.req}
		msg.plan, msg.err = plan(r.keep)
		if msg.err == nil && len(r.keep) > 0 {
			msg.base, msg.err = plan(nil)
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
	asked := strings.Join(d.keptPaths(), "\x00") != strings.Join(d.shown, "\x00")
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
	fmt.Fprintf(&b, "%s|%s|%v|%v|%q\n", p.Kind, p.Target, p.Force, p.Turns, p.Warnings)
	for _, s := range p.Steps {
		fmt.Fprintf(&b, "%q %s %q %v %s/%s/%s %s/%s/%s\n", s.Path, s.Do, s.Reason, s.HandEdited,
			s.Now.Kind, s.Now.SHA256, s.Now.Link, s.Want.Kind, s.Want.SHA256, s.Want.Link)
	}
	return b.String()
}

func (d *dialog) title() string {
	switch d.kind {
	case store.KindUndo:
		if d.plan != nil && d.plan.Target != "" {
			return present.OpTitle(d.kind, d.plan.Target)
		}
		return "Undo the latest rewind"
	case store.KindRedo:
		if d.plan != nil && d.plan.Target != "" {
			return present.OpTitle(d.kind, d.plan.Target)
		}
		return "Redo"
	}
	t := present.OpTitle(store.KindRewind, d.target)
	if d.retry {
		t = "Retry the rewind to before turn " + present.Escape(d.target)
	}
	if d.label != "" {
		t += " — " + present.Escape(d.label)
	}
	return t
}

// head is the text above the files: what the plan does, in a few lines,
// each with a style.
func (d *dialog) head() []styledLine {
	var out []styledLine
	add := func(style int, format string, args ...any) {
		out = append(out, styledLine{text: fmt.Sprintf(format, args...), style: style})
	}
	switch {
	case d.loading:
		add(styleDim, "planning…")
		return out
	case d.err != nil:
		add(styleFail, "%s", present.Escape(d.err.Error()))
		if d.canForce {
			add(stylePlain, "A newer turn wrote some of these paths; %s would overwrite its work.", d.verb())
			add(stylePlain, "Press f to %s anyway, esc to cancel.", d.verb())
		}
		return out
	case d.result != nil:
		r := d.result
		add(styleGood, "%s done: %d restored, %d deleted%s.", d.verb(), len(r.Restored), len(r.Deleted), keptNote(len(d.keptPaths())))
		if len(r.Failed) > 0 {
			add(styleFail, "%s could not be put back:", present.Count(len(r.Failed), "file"))
			for _, f := range r.Failed {
				add(styleFail, "  %s — %s", present.Escape(f.Path), present.Escape(f.Reason))
			}
			if d.kind == store.KindRewind {
				add(stylePlain, "Fix the cause, then press r to retry just %s.", them(len(r.Failed)))
			}
		}
		return out
	}
	p := d.plan
	ids := make([]string, len(p.Turns))
	for i, t := range p.Turns {
		ids[i] = present.Escape(t)
	}
	var restore, del, same, fail, hand, kept int
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
	}{{restore, "to restore"}, {del, "to delete"}, {same, "already right"}, {fail, "cannot be restored"}, {kept, "kept as it is now"}} {
		if c.n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	what := "Undoes"
	if d.kind == store.KindUndo {
		what = "Brings back"
	}
	if d.retry {
		add(stylePlain, "Retries %s %s could not restore: %s", present.Count(len(d.rows), "file"),
			present.Escape(d.plan.Retry), strings.Join(counts, ", "))
	} else {
		add(stylePlain, "%s %s: %s · %s: %s", what, present.Count(len(ids), "turn"), strings.Join(ids, ", "),
			present.Count(len(d.rows), "file"), strings.Join(counts, ", "))
	}
	if d.changed {
		add(styleWarn, "The plan changed while it was open (a new turn, or a file changed): this is the new plan.")
	}
	if d.req != 0 {
		add(styleDim, "checking the plan again…")
	}
	if hand > 0 {
		add(styleWarn, "%s changed since the agent wrote %s (marked !): kept first, so undo brings %s back.",
			present.Count(hand, "file"), them(hand), them(hand))
	}
	for _, w := range p.Warnings {
		add(styleWarn, "⚠ %s", present.Escape(w))
	}
	return out
}

func keptNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d kept as %s", n, map[bool]string{true: "it was", false: "they were"}[n == 1])
}

// rowText is a file of the preview: a mark, what happens to it, its path.
func (r planRow) text() (mark, action, note string, style int) {
	mark = " "
	if r.step.HandEdited {
		mark = "!"
	}
	switch {
	case r.kept:
		return "k", "keep   ", "left as it is now", styleKept
	case r.step.Do == store.ActRestore:
		return mark, "restore", "", stylePlain
	case r.step.Do == store.ActDelete:
		return mark, "delete ", "", stylePlain
	case r.step.Do == store.ActKeep:
		return mark, "same   ", "already as it was", styleDim
	case r.step.Do == store.ActFail:
		return "X", "cannot ", orUnknown(r.step.Reason), styleFail
	}
	return mark, fmt.Sprintf("%-7s", present.Escape(string(r.step.Do))), "", stylePlain
}

// styledLine is a line of text with one of the dialog's styles.
type styledLine struct {
	text  string
	style int
}

// Line styles of the dialog.
const (
	stylePlain = iota
	styleDim
	styleWarn
	styleFail
	styleGood
	styleTitle
	styleKept
)

// diffReq of the preview: the file under the cursor, disk now → what the
// operation writes (or, with since, the agent's bytes → disk now).
type stepDiffReq struct {
	dlg, seq int
	step     store.Step
	since    bool
	turns    []string
	max      int64
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
		return msg
	}
}

// prepareRows is how many rows of a new diff get their changed words
// worked out in the command, before the diff reaches the screen.
const prepareRows = 500

// diffSides diffs two read sides, through the cache.
func diffSides(cache *diffCache, old, new side, max int64) (*diffview.Diff, string, error) {
	for _, s := range []side{old, new} {
		if s.err != nil {
			return nil, "", s.err
		}
		if s.note != "" {
			return nil, s.note, nil
		}
	}
	key := fmt.Sprintf("%s|%s|%d", old.id, new.id, max)
	if d := cache.get(key); d != nil {
		return d, "", nil
	}
	d := diffview.Compute(old.data, new.data, diffview.Options{MaxBytes: max})
	d.Prepare(prepareRows)
	cache.put(key, d)
	return d, "", nil
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// resultStatus is the status line after an operation, from the plan that
// was shown and applied.
func resultStatus(p *store.Plan, r *store.Result, retry bool) string {
	files := len(r.Restored) + len(r.Deleted)
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

// openDialog opens the preview of an operation and asks for its plan.
func (m *Model) openDialog(kind store.Kind, target, label string, retry bool) tea.Cmd {
	m.seq++
	m.dlg = &dialog{id: m.seq, kind: kind, target: target, label: label, retry: retry, loading: true, keep: map[string]bool{}}
	return m.requestPlan()
}

// requestPlan asks for the dialog's plan again (its keeps, the store and
// the disk may have changed). Until the answer comes, y applies nothing.
func (m *Model) requestPlan() tea.Cmd {
	d := m.dlg
	if d.req != 0 {
		d.again = true // one more when this one lands
		return nil
	}
	m.seq++
	d.req = m.seq
	return planOp(m.st, planReq{dlg: d.id, req: d.req, kind: d.kind, target: d.target, keep: d.keptPaths(), force: d.force})
}

// replan makes the open preview's plan again after the store or the disk
// changed, so what y applies is always what is on screen.
func (m *Model) replan() tea.Cmd {
	d := m.dlg
	if d == nil || !d.previewing() || d.loading || (d.err != nil && d.plan == nil && !d.stale) {
		return nil
	}
	return m.requestPlan()
}

func (m *Model) planLoaded(msg planLoadedMsg) tea.Cmd {
	d := m.dlg
	if d == nil || d.id != msg.dlg || d.req != msg.req || !d.previewing() {
		return nil // another dialog's answer, or an older one
	}
	d.req = 0
	if d.again {
		d.again = false
		return m.requestPlan() // the answer is already old
	}
	if msg.err != nil {
		if s := planError(msg.err); s != "" && d.loading {
			m.dlg = nil
			m.status = s
			return nil
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
			m.status = "cannot keep that file: " + msg.err.Error()
			return m.loadPreviewDiff(true)
		}
		d.loading = false
		d.err = msg.err
		d.stale = d.plan != nil
		d.plan, d.base, d.rows = nil, nil, nil
		d.canForce = errors.Is(msg.err, store.ErrNewerTurn) && !d.force
		return nil
	}
	d.loading, d.err, d.stale = false, nil, false
	d.setPlan(msg.plan, msg.base)
	d.shown = d.keptPaths()
	d.cur.clip(len(d.rows), m.planListHeight())
	return m.loadPreviewDiff(true)
}

// loadPreviewDiff asks for the diff of the file under the cursor, unless
// it is already on screen (or force).
func (m *Model) loadPreviewDiff(force bool) tea.Cmd {
	d := m.dlg
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
	m.seq++
	d.diff.seq = m.seq
	step := r.step
	if r.kept && d.base != nil {
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
	return loadStepDiff(m.st, m.cache, stepDiffReq{dlg: d.id, seq: m.seq, step: step, since: since, turns: turns, max: m.opt.MaxDiffBytes})
}

func (m *Model) previewDiffLoaded(msg previewDiffMsg) {
	d := m.dlg
	if d == nil || d.id != msg.dlg || d.diff.seq != msg.seq {
		return
	}
	d.diff.d, d.diff.note, d.diff.err = msg.d, msg.note, msg.err
	m.clipPreviewDiff()
}

func (m *Model) applied(msg appliedMsg) tea.Cmd {
	d := m.dlg
	if d != nil && d.id != msg.dlg {
		d = nil // not this dialog's operation
	}
	if d != nil {
		d.applying = false
	}
	if msg.err != nil && errors.Is(msg.err, store.ErrPlanChanged) && d != nil {
		// Nothing was applied: show what would be done now.
		d.changed = true
		m.status = "the plan changed before it was applied; nothing was changed — here is the new plan"
		return tea.Batch(m.requestPlan(), m.refresh(true))
	}
	if msg.err != nil {
		verb := "apply"
		if msg.plan != nil {
			verb = string(msg.plan.Kind)
		}
		m.errText = verb + ": " + msg.err.Error()
		if d != nil {
			d.err = msg.err
		}
		return tea.Batch(m.refresh(true), m.badges())
	}
	m.errText = ""
	retry := d != nil && d.retry
	m.status = resultStatus(msg.plan, msg.res, retry)
	if d != nil {
		if len(msg.res.Failed) > 0 {
			d.result = msg.res // keep the dialog open to say what failed
		} else {
			m.dlg = nil
		}
	}
	return tea.Batch(m.refresh(true), m.badges())
}

// The preview's layout: a header, the files and the diff (side by side
// from sideAt columns, else the files above the diff), a footer.
const sideAt = 100

func (m *Model) previewSide() bool { return m.width >= sideAt }

// previewHead is the header: the title and what the plan does.
func (m *Model) previewHead() []string {
	w := m.width
	d := m.dlg
	out := []string{m.sty.titleFocus.Render(present.Fit(" "+d.title(), w))}
	for _, l := range d.head() {
		text := strings.TrimLeft(l.text, " ")
		indent := len(l.text) - len(text)
		wrapped := []string{text}
		if m.height >= 24 { // on a short screen the files need the rows
			wrapped = strings.Split(ansi.Wrap(text, max(w-indent-3, 1), ""), "\n")
		}
		for i, wl := range wrapped {
			lead := " " + strings.Repeat(" ", indent)
			if i > 0 {
				lead += "  "
			}
			out = append(out, m.lineStyle(l.style).Render(present.Fit(lead+wl, w)))
		}
	}
	return out
}

// previewBody is the height left for the files and the diff.
func (m *Model) previewBody() int {
	return max(m.mainHeight()-len(m.previewHead())-1, 2)
}

// planListHeight is the rows of files on screen (without their title).
func (m *Model) planListHeight() int {
	if m.dlg == nil {
		return 1
	}
	bh := m.previewBody()
	if m.previewSide() {
		return max(bh-1, 1)
	}
	return max(min(len(m.dlg.rows), bh/3), 1)
}

// previewDiffHeight is the rows of the preview's diff, with its title.
func (m *Model) previewDiffHeight() int {
	bh := m.previewBody()
	if m.previewSide() {
		return bh
	}
	return max(bh-m.planListHeight()-1, 1)
}

func (m *Model) dialogView(h int) []string {
	d := m.dlg
	w := m.width
	out := m.previewHead()
	if d.plan != nil && d.result == nil && d.err == nil {
		bh := max(h-len(out)-1, 1)
		if m.previewSide() {
			lw := clamp(w*2/5, 30, 60)
			left := m.planListView(lw, bh)
			right := m.previewDiffView(w-lw-1, bh)
			sep := m.sty.sep.Render("│")
			for i := 0; i < bh; i++ {
				out = append(out, left[i]+sep+right[i])
			}
		} else {
			lh := m.planListHeight() + 1
			out = append(out, m.planListView(w, lh)...)
			out = append(out, m.previewDiffView(w, bh-lh)...)
		}
	}
	for len(out) < h-1 {
		out = append(out, strings.Repeat(" ", w))
	}
	out = append(out[:min(len(out), h-1)], m.dialogFoot())
	return out[:h]
}

// dialogFoot says what the keys do now.
func (m *Model) dialogFoot() string {
	d := m.dlg
	var foot string
	switch {
	case d.applying:
		return progressBar(d.done, d.total, m.width)
	case d.loading:
		foot = "planning… · esc cancel"
	case d.result != nil && len(d.result.Failed) > 0 && d.kind == store.KindRewind:
		foot = "r retry what failed · esc close"
	case d.result != nil:
		foot = "esc close"
	case d.err != nil && d.canForce:
		foot = "f " + d.verb() + " anyway · esc cancel"
	case d.err != nil:
		foot = "esc close"
	case d.req != 0:
		foot = "checking the plan again… · esc cancel"
	default:
		foot = "y/enter " + d.verb() + " · esc cancel"
		if d.toApply() == 0 {
			foot = "every file is kept: nothing to " + d.verb() + " · esc cancel"
		}
	}
	return m.sty.dim.Render(present.Fit(" "+foot, m.width))
}

// planListView draws the preview's files in h rows (title included).
func (m *Model) planListView(w, h int) []string {
	d := m.dlg
	out := []string{m.title(fmt.Sprintf("Files (%d)", len(d.rows)), w, true)}
	top := d.cur.top // kept in range by Update; recomputed here only to draw
	if d.cur.cur >= top+h-1 {
		top = d.cur.cur - (h - 1) + 1
	}
	top = clamp(min(top, d.cur.cur), 0, max(len(d.rows)-(h-1), 0))
	end := min(top+h-1, len(d.rows))
	for i := top; i < end; i++ {
		r := d.rows[i]
		mark, action, note, style := r.text()
		cur := " "
		if i == d.cur.cur {
			cur = "›"
		}
		var right []seg
		if note != "" {
			right = append(right, seg{text: present.Escape(note), style: m.sty.dim, optional: true})
		}
		left := cur + mark + " " + action + " "
		out = append(out, m.row(w, left, seg{text: present.Escape(r.step.Path), style: m.lineStyle(style), cutLeft: true},
			right, i == d.cur.cur, true))
	}
	for len(out) < h {
		out = append(out, strings.Repeat(" ", w))
	}
	return out[:h]
}

// previewDiffView draws the diff of the file under the preview's cursor.
func (m *Model) previewDiffView(w, h int) []string {
	d := m.dlg
	r := d.row()
	if h <= 0 {
		return nil
	}
	var out []string
	pd := d.diff
	what := "disk now → after the " + d.verb()
	if pd.since {
		what = "changes since the agent (the agent's bytes → disk now)"
	}
	t := what
	if r != nil {
		t = present.Escape(r.step.Path) + " · " + what
	}
	if pd.d != nil && (pd.d.Added+pd.d.Deleted) > 0 {
		t += fmt.Sprintf(" · +%d -%d", pd.d.Added, pd.d.Deleted)
	}
	if pd.left > 0 {
		t += fmt.Sprintf(" · → %d", pd.left)
	}
	out = append(out, m.title(t, w, false))
	switch {
	case r == nil:
	case r.kept && !pd.since:
		out = append(out, m.sty.kept.Render(present.Fit(" kept: left as it is now. Below, what the "+d.verb()+" would have done:", w)))
	}
	switch {
	case r == nil:
		out = append(out, m.sty.dim.Render(present.Fit(" no files", w)))
	case pd.err != nil:
		out = append(out, m.sty.errText.Render(present.Fit(" "+present.Escape(pd.err.Error()), w)))
	case pd.note != "":
		out = append(out, m.sty.dim.Render(present.Fit(" "+present.Escape(pd.note), w)))
	case pd.d == nil:
		out = append(out, m.sty.dim.Render(present.Fit(" computing the diff…", w)))
	default:
		n := pd.d.Len(diffview.Unified)
		for i := pd.top; i < n && len(out) < h; i++ {
			out = append(out, pd.d.LineView(i, w, diffview.Unified, m.sty.diff, diffview.View{Left: pd.left}))
		}
	}
	for len(out) < h {
		out = append(out, strings.Repeat(" ", w))
	}
	return out[:h]
}
