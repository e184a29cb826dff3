package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ckpt-dev/ckpt/diffview"
	"github.com/ckpt-dev/ckpt/keymap"
	"github.com/ckpt-dev/ckpt/store"
)

// Update handles a message. It changes the model and returns commands; it
// never calls the store itself.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.turns.cur.clip(len(m.turns.shown), m.turnsHeight())
		m.files.cur.clip(len(m.files.rows), m.filesHeight())
		m.clipDiff()
		m.sizeInput()
		if m.dlg != nil {
			m.dlg.cur.clip(len(m.dlg.rows), m.planListHeight())
			m.clipPreviewDiff()
		}
		return m, nil

	case tea.KeyPressMsg:
		return m, m.key(msg)

	case tea.PasteMsg:
		if m.filtering || m.search.typing {
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(msg)
			if m.filtering {
				cmd = tea.Batch(cmd, m.filterChanged())
			}
			return m, cmd
		}
		return m, nil

	case editedMsg:
		if msg.err != nil {
			m.errText = "editor: " + msg.err.Error()
		}
		return m, m.refresh(true)

	case tea.MouseWheelMsg:
		return m, m.wheel(msg)

	case tea.MouseClickMsg:
		return m, m.click(msg)

	case logLoadedMsg:
		if msg.withStatus {
			m.badgeBusy, m.badgeDirty, m.badgeAge = false, false, 0
			m.badgeCost = msg.took
		} else {
			m.refreshing = false
		}
		if msg.err != nil {
			m.errText = "read log: " + msg.err.Error()
			return m, m.afterRefresh()
		}
		m.setEntries(msg.entries, msg.withStatus)
		var rewatch tea.Cmd
		if m.turnCount() > m.watchTurns {
			// New turns may have touched new folders (or made the store).
			rewatch = m.rewatch()
		}
		return m, tea.Batch(m.selectTurn(false), m.afterRefresh(), rewatch)

	case filesLoadedMsg:
		if msg.withStatus {
			m.files.loading = false
		}
		if msg.turn != m.files.turn {
			return m, nil // the cursor moved on
		}
		if msg.err != nil {
			m.files.err = msg.err
			return m, nil
		}
		if !msg.withStatus && m.files.withStatus {
			return m, nil // an older, poorer answer
		}
		return m, m.setFiles(msg.files, msg.withStatus)

	case diffLoadedMsg:
		if msg.seq != m.diff.seq {
			return m, nil
		}
		m.diff.loading = false
		m.diff.d, m.diff.note, m.diff.err = msg.d, msg.note, msg.err
		m.findAll()
		m.clipDiff()
		return m, nil

	case errorsClearedMsg:
		if msg.err != nil {
			m.errText = "clear the logged errors: " + msg.err.Error()
		}
		return m, loadInfo(m.st)

	case infoLoadedMsg:
		if msg.sizeErr == nil {
			m.size = msg.size
		}
		if msg.errsErr == nil {
			m.hookErrs = msg.errs
			m.errsSeen = min(m.errsSeen, len(m.hookErrs))
		}
		return m, nil

	case planLoadedMsg:
		return m, m.planLoaded(msg)

	case previewDiffMsg:
		m.previewDiffLoaded(msg)
		return m, nil

	case applyStartedMsg:
		if m.dlg != nil && m.dlg.id == msg.dlg {
			m.dlg.ch = msg.ch
		}
		return m, waitApply(msg.dlg, msg.ch)

	case progressMsg:
		if m.dlg != nil && m.dlg.id == msg.dlg && m.dlg.applying {
			m.dlg.done, m.dlg.total = msg.done, msg.total
		}
		if m.dlg != nil && m.dlg.id == msg.dlg {
			return m, waitApply(msg.dlg, m.dlg.ch)
		}
		return m, nil

	case appliedMsg:
		return m, m.applied(msg)

	case watchStartedMsg:
		if msg.gen != m.watchGen {
			return m, nil // a watch already replaced
		}
		if msg.err != nil {
			m.watching = false
			return m, m.startTick() // the polling tick does the work
		}
		m.watching = true
		m.watchCh = msg.ch
		return m, waitChange(msg.ch, msg.gen)

	case storeChangedMsg:
		if msg.gen != m.watchGen {
			return m, nil // from a watch already replaced
		}
		var rearm, badges tea.Cmd
		if m.watchCh != nil {
			rearm = waitChange(m.watchCh, msg.gen)
		}
		refresh := m.refresh(true)
		if m.badgeCost < slowBadge {
			badges = m.badges() // cheap: no need to wait for the tick
		}
		return m, tea.Batch(refresh, badges, rearm, m.replan(), m.startTick())

	case watchEndedMsg:
		if msg.gen == m.watchGen {
			m.watching = false
			return m, m.startTick()
		}
		return m, nil

	case tickMsg:
		m.ticking = false
		m.ticks++
		m.badgeAge++
		var cmds []tea.Cmd
		if !m.watching || m.ticks%lightEvery == 0 {
			cmds = append(cmds, m.refresh(!m.watching))
		}
		if m.badgeDue() {
			cmds = append(cmds, m.badges())
		}
		if !m.watching || m.ticks%lightEvery == 0 {
			cmds = append(cmds, m.replan()) // what the watch cannot see
		}
		// While the watch works, the tick only paces what a change left to
		// do (a slow badge pass, a refresh that came in a burst); with
		// nothing left it stops, so an idle screen costs nothing, and the
		// next change starts it again.
		if !m.watching || m.badgeDirty || m.pending {
			m.ticking = true
			cmds = append(cmds, tick(m.opt.Poll))
		}
		return m, tea.Batch(cmds...)
	}
	return m, nil
}

// startTick starts the refresh tick unless it is running.
func (m *Model) startTick() tea.Cmd {
	if m.ticking || m.opt.Poll <= 0 {
		return nil
	}
	m.ticking = true
	return tick(m.opt.Poll)
}

// afterRefresh starts the next refresh when changes came during this one.
func (m *Model) afterRefresh() tea.Cmd {
	if !m.refreshing && m.pending {
		m.pending = false
		return m.refresh(true)
	}
	return nil
}

// setFiles takes a new file list, keeping the cursor on the same path and
// reloading the diff when the selected file changed on disk.
func (m *Model) setFiles(files []store.File, withStatus bool) tea.Cmd {
	var keep string
	var oldDisk store.Image
	if f := m.selectedFile(); f != nil {
		keep, oldDisk = f.Path, f.Disk
	}
	if !withStatus && m.files.withStatus {
		return nil
	}
	m.files.rows, m.files.err = files, nil
	m.files.withStatus = m.files.withStatus || withStatus
	if keep != "" {
		for i, f := range files {
			if f.Path == keep {
				m.files.cur.cur = i
			}
		}
	}
	m.files.cur.clip(len(m.files.rows), m.filesHeight())
	f := m.selectedFile()
	if f == nil {
		return m.selectFile(false)
	}
	if f.Path == m.diff.path && m.diff.turn == m.files.turn && withStatus && diskChanged(oldDisk, f.Disk) {
		return m.selectFile(true)
	}
	return m.selectFile(false)
}

func diskChanged(a, b store.Image) bool {
	if b.Kind == "" {
		return false // not measured
	}
	return a.Kind != b.Kind || a.SHA256 != b.SHA256 || a.Size != b.Size || a.Link != b.Link
}

// bindings is the key map with what cannot act now disabled, so help shows
// only live keys and key.Matches ignores the rest.
func (m *Model) bindings() keymap.KeyMap {
	k := m.keys
	d := m.dlg
	inDialog := d != nil
	e := m.selected()
	preview := inDialog && d.previewing() && d.plan != nil
	var row *planRow
	if preview {
		row = d.row()
	}
	k.Confirm.SetEnabled(inDialog && d.ready() && d.toApply() > 0)
	k.Force.SetEnabled(inDialog && d.canForce && !d.applying)
	k.Keep.SetEnabled(preview && d.kind == store.KindRewind && row != nil)
	k.KeepAll.SetEnabled(preview && d.kind == store.KindRewind && len(d.rows) > 0)
	k.Open.SetEnabled(!inDialog && ((m.focus == paneTurns && e != nil) || (m.focus == paneFiles && len(m.files.rows) > 0)))
	k.Rewind.SetEnabled((!inDialog && e != nil && e.Kind == store.KindAgent) ||
		(inDialog && d.result != nil && len(d.result.Failed) > 0 && d.kind == store.KindRewind))
	k.Undo.SetEnabled(!inDialog && m.hasOps())
	k.Redo.SetEnabled(!inDialog && m.hasOps())
	var diff *diffview.Diff
	switch {
	case preview:
		diff = d.diff.d
	case !inDialog && m.focus == paneDiff:
		diff = m.diff.d
	}
	hunks := diff != nil && len(diff.Hunks(m.layout())) > 0
	k.NextHunk.SetEnabled(hunks || (!inDialog && m.search.query != "" && m.focus == paneDiff))
	k.PrevHunk.SetEnabled(k.NextHunk.Enabled())
	k.Left.SetEnabled(diff != nil)
	k.Right.SetEnabled(diff != nil)
	k.DiffMode.SetEnabled((!inDialog && m.selectedFile() != nil) || (preview && row != nil && row.step.HandEdited))
	k.Help.SetEnabled(!inDialog)
	k.SideBySide.SetEnabled(!inDialog && m.diff.d != nil)
	k.Zoom.SetEnabled(!inDialog && m.diff.turn != "")
	k.Search.SetEnabled(!inDialog && m.focus == paneDiff && m.diff.d != nil)
	k.Editor.SetEnabled(!inDialog && m.focus == paneDiff && m.selectedFile() != nil && m.opt.Editor != "")
	k.Filter.SetEnabled(!inDialog && !k.Search.Enabled())
	k.NextPane.SetEnabled(!inDialog)
	k.PrevPane.SetEnabled(!inDialog)
	k.Follow.SetEnabled(!inDialog && !m.follow)
	k.Dismiss.SetEnabled(!inDialog && (m.errText != "" || len(m.hookErrs) > m.errsSeen))
	k.Back.SetEnabled(inDialog || m.showHelp || m.focus != paneTurns || m.filter != "" || m.search.query != "" || m.zoom || m.turns.opsOpen)
	return k
}

// selectedFolds is how many operations the selected row stands for
// besides itself.
func (m *Model) selectedFolds() int {
	if m.turns.cur.cur < 0 || m.turns.cur.cur >= len(m.turns.shown) {
		return 0
	}
	return len(m.turns.folded[m.turns.shown[m.turns.cur.cur]])
}

func (m *Model) hasOps() bool {
	for i := range m.entries {
		if m.entries[i].Kind != store.KindAgent {
			return true
		}
	}
	return false
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.bindings()
	if m.dlg != nil && m.dlg.applying && key.Matches(msg, k.Quit) {
		m.status = "an operation is being applied; quit when it is done"
		return nil
	}
	if key.Matches(msg, k.Quit) && msg.Text == "" {
		return tea.Quit // ctrl+c: even while typing a filter
	}
	if m.filtering {
		return m.filterKey(msg)
	}
	if m.search.typing {
		return m.searchKey(msg)
	}
	if key.Matches(msg, k.Quit) {
		return tea.Quit
	}
	if m.dlg != nil {
		return m.dialogKey(msg, k)
	}
	if m.showHelp {
		switch {
		case key.Matches(msg, k.Back, k.Help):
			m.showHelp = false
		case key.Matches(msg, k.Up):
			m.helpTop = max(m.helpTop-1, 0)
		case key.Matches(msg, k.Down):
			m.helpTop++
		case key.Matches(msg, k.PageUp):
			m.helpTop = max(m.helpTop-m.mainHeight()+1, 0)
		case key.Matches(msg, k.PageDown):
			m.helpTop += m.mainHeight() - 1
		}
		m.helpTop = clamp(m.helpTop, 0, max(len(m.helpLines())-m.mainHeight(), 0))
		return nil
	}
	switch {
	case key.Matches(msg, k.Help):
		m.showHelp = true
		m.helpTop = 0
		m.help.ShowAll = true
		return nil
	case key.Matches(msg, k.Filter):
		m.filtering = true
		m.focus = paneTurns
		m.input.SetValue(m.filter)
		m.input.CursorEnd()
		m.sizeInput()
		return m.input.Focus()
	case key.Matches(msg, k.Search):
		m.search.typing = true
		m.input.SetValue(m.search.query)
		m.input.CursorEnd()
		m.sizeInput()
		return m.input.Focus()
	case key.Matches(msg, k.Dismiss):
		m.errText = ""
		if len(m.hookErrs) > m.errsSeen {
			m.errsSeen = len(m.hookErrs)
			return clearErrors(m.st)
		}
		return nil
	case key.Matches(msg, k.Follow):
		m.follow = true
		m.newer = 0
		m.turns.cur.cur = 0
		m.turns.cur.clip(len(m.turns.shown), m.turnsHeight())
		m.status = "following the newest turn (move to stop)"
		return m.selectTurn(false)
	case key.Matches(msg, k.Zoom):
		m.zoom = !m.zoom
		if m.zoom {
			m.focus = paneDiff
		}
		return nil
	case key.Matches(msg, k.Editor):
		return m.edit()
	case m.focus == paneDiff && key.Matches(msg, k.Left):
		m.diff.left = max(m.diff.left-sideStep, 0)
		return nil
	case m.focus == paneDiff && key.Matches(msg, k.Right):
		m.diff.left = min(m.diff.left+sideStep, max(m.diff.d.Longest()-sideStep, 0))
		return nil
	case key.Matches(msg, k.Rewind):
		// On a turn already rewound, the store plans a retry of the paths
		// that rewind could not restore, or says there is nothing to do.
		e := m.selected()
		return m.openDialog(store.KindRewind, e.ID, e.Label, e.State != store.StateActive)
	case key.Matches(msg, m.keys.Rewind):
		if e := m.selected(); e != nil && e.Kind != store.KindAgent {
			m.status = "select an agent turn to rewind (this line is an operation)"
		}
		return nil
	case key.Matches(msg, k.Undo):
		return m.openDialog(store.KindUndo, "", "", false)
	case key.Matches(msg, k.Redo):
		return m.openDialog(store.KindRedo, "", "", false)
	case key.Matches(msg, m.keys.Undo, m.keys.Redo):
		m.status = "nothing to undo or redo yet"
		return nil
	case key.Matches(msg, k.NextPane):
		m.focus = (m.focus + 1) % 3
		return nil
	case key.Matches(msg, k.PrevPane):
		m.focus = (m.focus + 2) % 3
		return nil
	case key.Matches(msg, k.Back):
		switch {
		case m.search.query != "" && m.focus == paneDiff:
			m.search = diffSearch{}
		case m.zoom:
			m.zoom = false
		case m.focus != paneTurns:
			m.focus--
		case m.turns.opsOpen:
			m.turns.opsOpen = false
			m.setEntries(m.entries, m.statusKnown)
		case m.filter != "":
			m.filter = ""
			m.input.SetValue("")
			m.setEntries(m.entries, m.statusKnown)
			return m.selectTurn(false)
		}
		return nil
	case key.Matches(msg, k.Open) && m.focus == paneTurns && m.selectedFolds() > 0:
		m.turns.opsOpen = true
		m.setEntries(m.entries, m.statusKnown)
		return nil
	case key.Matches(msg, k.Open):
		if m.focus == paneTurns {
			m.focus = paneFiles
		} else {
			m.focus = paneDiff
		}
		return nil
	case key.Matches(msg, k.DiffMode):
		m.diff.mode = (m.diff.mode + 1) % modeCount
		m.diff.top = 0
		return m.selectFile(true)
	case key.Matches(msg, k.SideBySide):
		m.diff.side = !m.layoutSide()
		m.diff.sideSet = true
		m.diff.top = 0
		m.findAll()
		return nil
	case key.Matches(msg, k.NextHunk), key.Matches(msg, k.PrevHunk):
		dir := 1
		if key.Matches(msg, k.PrevHunk) {
			dir = -1
		}
		if m.search.query != "" && m.focus == paneDiff {
			if len(m.search.hits) == 0 {
				m.status = "not found in this diff: " + m.search.query
				return nil
			}
			top := nextStop(m.search.hits, m.diff.top, dir)
			if top == m.diff.top { // wrap around
				top = m.search.hits[0]
				if dir < 0 {
					top = m.search.hits[len(m.search.hits)-1]
				}
			}
			m.diff.top = top
			m.clipDiff()
			return nil
		}
		m.jumpHunk(dir)
		return nil
	}
	return m.moveKey(msg, k)
}

// moveKey moves the cursor (or scrolls) in the focused pane.
func (m *Model) moveKey(msg tea.KeyPressMsg, k keymap.KeyMap) tea.Cmd {
	var delta int
	switch {
	case key.Matches(msg, k.Up):
		delta = -1
	case key.Matches(msg, k.Down):
		delta = 1
	case key.Matches(msg, k.PageUp):
		delta = -max(m.paneHeight()-1, 1)
	case key.Matches(msg, k.PageDown):
		delta = max(m.paneHeight()-1, 1)
	case key.Matches(msg, k.Top):
		delta = -1 << 30
	case key.Matches(msg, k.Bottom):
		delta = 1 << 30
	default:
		return nil
	}
	return m.move(m.focus, delta)
}

func (m *Model) move(p pane, delta int) tea.Cmd {
	switch p {
	case paneTurns:
		m.follow = false
		m.turns.cur.move(delta, len(m.turns.shown))
		if m.turns.cur.cur == 0 {
			m.newer = 0 // seen
		}
		m.turns.cur.clip(len(m.turns.shown), m.turnsHeight())
		return m.selectTurn(false)
	case paneFiles:
		m.files.cur.move(delta, len(m.files.rows))
		m.files.cur.clip(len(m.files.rows), m.filesHeight())
		return m.selectFile(false)
	default:
		m.diff.top += delta
		m.clipDiff()
		return nil
	}
}

func (m *Model) paneHeight() int {
	switch m.focus {
	case paneTurns:
		return m.turnsHeight()
	case paneFiles:
		return m.filesHeight()
	}
	return m.diffHeight()
}

func (m *Model) jumpHunk(dir int) {
	if m.diff.d == nil {
		return
	}
	hs := m.diff.d.Hunks(m.layout())
	if dir > 0 {
		for _, h := range hs {
			if h > m.diff.top {
				m.diff.top = h
				m.clipDiff()
				return
			}
		}
		return
	}
	for i := len(hs) - 1; i >= 0; i-- {
		if hs[i] < m.diff.top {
			m.diff.top = hs[i]
			m.clipDiff()
			return
		}
	}
}

// clipDiff keeps the diff's scroll in range: at the end, the last line
// sits at the bottom of the pane.
func (m *Model) clipDiff() {
	n := 0
	if m.diff.d != nil {
		n = m.diff.d.Len(m.layout())
	}
	m.diff.top = clamp(m.diff.top, 0, max(n-m.diffHeight(), 0))
}

// filterKey edits the filter line: typing narrows the turns at once,
// enter keeps the filter, esc drops it.
func (m *Model) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case msg.Code == tea.KeyEnter:
		m.filtering = false
		m.input.Blur()
		return nil
	case key.Matches(msg, m.keys.Back):
		m.filtering = false
		m.input.Blur()
		m.input.SetValue("")
	case msg.Code == tea.KeyUp:
		return m.move(paneTurns, -1)
	case msg.Code == tea.KeyDown:
		return m.move(paneTurns, 1)
	case msg.Code == 'u' && msg.Mod == tea.ModCtrl:
		m.input.SetValue("")
	default:
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return tea.Batch(cmd, m.filterChanged())
	}
	return m.filterChanged()
}

// filterChanged narrows the turns to the filter's text as it is typed
// (or pasted).
func (m *Model) filterChanged() tea.Cmd {
	if m.input.Value() == m.filter {
		return nil
	}
	m.filter = m.input.Value()
	m.turns.cur = list{}
	m.setEntries(m.entries, m.statusKnown)
	return m.selectTurn(false)
}

// searchKey edits the diff search: enter keeps it and goes to the first
// match, esc drops it.
func (m *Model) searchKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case msg.Code == tea.KeyEnter:
		m.search.typing = false
		m.input.Blur()
		m.search.query = m.input.Value()
		m.findAll()
		if len(m.search.hits) == 0 && m.search.query != "" {
			m.status = "not found in this diff: " + m.search.query
		} else if len(m.search.hits) > 0 {
			m.diff.top = m.search.hits[0]
			for _, h := range m.search.hits {
				if h >= m.diff.top {
					m.diff.top = h
					break
				}
			}
			m.clipDiff()
		}
		return nil
	case key.Matches(msg, m.keys.Back):
		m.search.typing = false
		m.input.Blur()
		m.search = diffSearch{}
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// sizeInput fits the text line to the filter's or the search's room.
func (m *Model) sizeInput() {
	if m.search.typing {
		m.input.SetWidth(max(m.diffWidth()-10, 1))
	} else {
		m.input.SetWidth(max(m.leftWidth()-3, 1))
	}
}

// findAll finds the search in the diff on screen.
func (m *Model) findAll() {
	m.search.hits = nil
	if m.diff.d != nil && m.search.query != "" {
		m.search.hits = m.diff.d.Find(m.search.query, m.layout())
	}
}

func (m *Model) dialogKey(msg tea.KeyPressMsg, k keymap.KeyMap) tea.Cmd {
	d := m.dlg
	switch {
	case d.applying:
		if key.Matches(msg, m.keys.Back) {
			m.status = "an operation cannot be stopped halfway; it is finishing"
		}
		return nil
	case key.Matches(msg, k.Confirm):
		d.applying = true
		d.total = len(d.plan.Steps)
		return applyPlan(m.st, d.id, d.plan)
	case d.previewing() && d.plan != nil && key.Matches(msg, m.keys.Confirm):
		switch {
		case d.req != 0:
			m.status = "the plan is being made again after a change — look at it, then press y"
		case d.toApply() == 0:
			m.status = "every file is kept: nothing to " + d.verb()
		}
		return nil
	case key.Matches(msg, k.Rewind): // retry what failed
		return m.openDialog(store.KindRewind, d.target, d.label, true)
	case key.Matches(msg, k.Keep):
		r := d.row()
		r.kept = !r.kept
		d.keep[r.step.Path] = r.kept
		if !r.kept {
			delete(d.keep, r.step.Path)
		}
		d.cur.move(1, len(d.rows))
		d.cur.clip(len(d.rows), m.planListHeight())
		return tea.Batch(m.requestPlan(), m.loadPreviewDiff(false))
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
		return m.requestPlan()
	case key.Matches(msg, k.DiffMode):
		d.since = !d.since
		return m.loadPreviewDiff(false)
	case key.Matches(msg, k.Force):
		d.loading, d.err, d.canForce, d.force = true, nil, false, true
		return m.requestPlan()
	case key.Matches(msg, m.keys.Back), d.result != nil && key.Matches(msg, m.keys.Confirm):
		m.dlg = nil
		return nil
	case key.Matches(msg, k.Up):
		d.cur.move(-1, len(d.rows))
	case key.Matches(msg, k.Down):
		d.cur.move(1, len(d.rows))
	case key.Matches(msg, k.Top):
		d.cur.move(-1<<30, len(d.rows))
	case key.Matches(msg, k.Bottom):
		d.cur.move(1<<30, len(d.rows))
	case key.Matches(msg, k.PageUp):
		d.diff.top -= m.previewDiffHeight() - 1
		m.clipPreviewDiff()
		return nil
	case key.Matches(msg, k.PageDown):
		d.diff.top += m.previewDiffHeight() - 1
		m.clipPreviewDiff()
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
			m.clipPreviewDiff()
		}
		return nil
	default:
		return nil
	}
	d.cur.clip(len(d.rows), m.planListHeight())
	return m.loadPreviewDiff(false)
}

// sideStep is how far h and l scroll a diff sideways.
const sideStep = 8

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

// nextStop is the first of stops after top (dir 1) or before it (dir -1),
// or top when there is none.
func nextStop(stops []int, top, dir int) int {
	if dir > 0 {
		for _, s := range stops {
			if s > top {
				return s
			}
		}
		return top
	}
	for i := len(stops) - 1; i >= 0; i-- {
		if stops[i] < top {
			return stops[i]
		}
	}
	return top
}

func (m *Model) clipPreviewDiff() {
	d := m.dlg
	if d == nil {
		return
	}
	n := 0
	if d.diff.d != nil {
		n = d.diff.d.Len(diffview.Unified)
	}
	d.diff.top = clamp(d.diff.top, 0, max(n-(m.previewDiffHeight()-1), 0))
}

func (m *Model) wheel(msg tea.MouseWheelMsg) tea.Cmd {
	delta := 0
	switch msg.Button {
	case tea.MouseWheelUp:
		delta = -3
	case tea.MouseWheelDown:
		delta = 3
	default:
		return nil
	}
	if m.dlg != nil {
		m.dlg.diff.top += delta
		m.clipPreviewDiff()
		return nil
	}
	p, _ := m.paneAt(msg.X, msg.Y)
	if p != paneDiff {
		delta /= 3
	}
	return m.move(p, delta)
}

func (m *Model) click(msg tea.MouseClickMsg) tea.Cmd {
	if m.dlg != nil || m.showHelp || msg.Button != tea.MouseLeft {
		return nil
	}
	p, row := m.paneAt(msg.X, msg.Y)
	m.focus = p
	if row < 0 {
		return nil
	}
	switch p {
	case paneTurns:
		return m.move(p, m.turns.cur.top+row-m.turns.cur.cur)
	case paneFiles:
		return m.move(p, m.files.cur.top+row-m.files.cur.cur)
	}
	return nil
}
