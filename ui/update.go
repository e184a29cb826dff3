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
	mm, cmd := m.update(msg)
	// Whatever moved the cursor, the conversation follows the turn.
	if c := m.syncConversation(); c != nil {
		cmd = tea.Batch(cmd, c)
	}
	// Whatever changed what is on screen, its ages tick.
	if c := m.armClock(); c != nil {
		cmd = tea.Batch(cmd, c)
	}
	return mm, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case conversationLoadedMsg:
		m.conversationLoaded(msg)
		return m, nil

	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.turns.cur.clip(len(m.turns.shown), m.turnsHeight())
		m.files.cur.clip(len(m.files.rows), m.filesHeight())
		m.clipDiff()
		m.sizeInput()
		if m.dlg != nil {
			m.dlg.SetSize(m.width, m.mainHeight(), m.height)
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

	case turnCutMsg:
		if msg.err != nil {
			m.setStatus("cut a turn: " + msg.err.Error())
		} else {
			m.setStatus("turn cut: the next change opens a new one")
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

	case storeOpenedMsg:
		return m, m.storeOpened(msg)

	case logLoadedMsg:
		return m, m.logLoaded(msg)

	case watcherTriedMsg:
		m.watcherBusy = false
		m.watcherDone = m.watcherDone || msg.done
		return m, nil

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

	case infoLoadedMsg:
		if msg.sizeErr == nil {
			m.size = msg.size
		}
		if msg.errsErr == nil {
			m.hookErrs = msg.errs
			m.errsSeen = min(m.errsSeen, len(m.hookErrs))
		}
		return m, nil

	case planLoadedMsg, previewDiffMsg, applyStartedMsg, progressMsg, appliedMsg:
		return m, m.dialogMsg(msg)

	case watchStartedMsg, storeChangedMsg, watchEndedMsg, tickMsg, clockMsg:
		return m, m.watchMsg(msg)
	}
	return m, nil
}

// logLoaded takes a log read (with disk status or without), and starts
// what follows from it: the selected turn's files and diff, a new watch
// when new turns came, the watcher beside the UI.
func (m *Model) logLoaded(msg logLoadedMsg) tea.Cmd {
	if msg.withStatus {
		m.badgeBusy, m.badgeDirty, m.badgeAge = false, false, 0
		m.badgeCost = msg.took
	} else {
		m.refreshing = false
	}
	if msg.err != nil {
		m.errText = "read log: " + msg.err.Error()
		return m.afterRefresh()
	}
	m.setEntries(msg.entries, msg.idx, msg.withStatus, msg.handGen)
	var rewatch tea.Cmd
	if m.turnCount() > m.watchTurns {
		// New turns may have touched new folders (or made the store).
		rewatch = m.rewatch()
	}
	return tea.Batch(m.selectTurn(false), m.selectFile(false), m.afterRefresh(), rewatch, m.watcher(false))
}

// watchMsg takes the store watch's, the polling tick's and the clock's
// messages.
func (m *Model) watchMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case clockMsg:
		m.clockRang(msg)
		return nil

	case watchStartedMsg:
		if msg.gen != m.watchGen {
			return nil // a watch already replaced
		}
		if msg.err != nil {
			m.watching = false
			return m.startTick() // the polling tick does the work
		}
		m.watching = true
		m.watchCh = msg.ch
		return waitChange(msg.ch, msg.gen)

	case storeChangedMsg:
		if msg.gen != m.watchGen {
			return nil // from a watch already replaced
		}
		var rearm, badges tea.Cmd
		if m.watchCh != nil {
			rearm = waitChange(m.watchCh, msg.gen)
		}
		refresh := m.refresh(true)
		if m.badgeCost < slowBadge {
			badges = m.badges() // cheap: no need to wait for the tick
		}
		return tea.Batch(refresh, badges, rearm, m.replan(), m.startTick())

	case watchEndedMsg:
		if msg.gen == m.watchGen {
			m.watching = false
			return m.startTick()
		}
		return nil

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
		return tea.Batch(cmds...)
	}
	return nil
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
// only live keys and key.Matches ignores the rest. An open dialog decides
// its own; otherwise the panes do.
func (m *Model) bindings() keymap.KeyMap {
	if m.dlg != nil {
		return m.dlg.Bindings(m.keys)
	}
	return m.paneBindings()
}

// paneBindings is the key map of the panes (no dialog open).
func (m *Model) paneBindings() keymap.KeyMap {
	k := m.keys
	e := m.selected()
	for _, b := range []*key.Binding{&k.Confirm, &k.Force, &k.Keep, &k.KeepAll, &k.GitIndex, &k.DiffFocus, &k.KeepHunk} {
		b.SetEnabled(false) // the dialog's keys
	}
	k.Open.SetEnabled((m.focus == paneTurns && e != nil) || (m.focus == paneFiles && len(m.files.rows) > 0))
	k.Rewind.SetEnabled(e != nil && e.Kind == store.KindAgent)
	k.Revert.SetEnabled(e != nil && e.Kind == store.KindAgent && e.State == store.StateActive)
	// Shown as live only when the log says there is something to act on;
	// the keys ask the store all the same (opKey), which has the last word.
	k.Undo.SetEnabled(m.undo.undo)
	k.Redo.SetEnabled(m.undo.redo)
	var diff *diffview.Diff
	if m.focus == paneDiff {
		diff = m.diff.d
	}
	hunks := diff != nil && len(diff.Hunks(m.layout())) > 0
	k.NextHunk.SetEnabled(hunks || (m.search.query != "" && m.focus == paneDiff))
	k.PrevHunk.SetEnabled(k.NextHunk.Enabled())
	k.Left.SetEnabled(diff != nil)
	k.Right.SetEnabled(diff != nil)
	k.DiffMode.SetEnabled(m.selectedFile() != nil)
	k.SideBySide.SetEnabled(m.diff.d != nil)
	k.Zoom.SetEnabled(m.diff.turn != "" && m.width >= wideAt) // narrower, an open diff has the width already
	k.Search.SetEnabled(m.focus == paneDiff && m.diff.d != nil)
	k.Editor.SetEnabled(m.focus != paneTurns && m.selectedFile() != nil && m.opt.Editor != "")
	m.comfortBindings(&k, diff)
	k.Filter.SetEnabled(!k.Search.Enabled())
	k.Follow.SetEnabled(!m.follow)
	_, _, notice := m.statusMsg()
	k.Dismiss.SetEnabled(notice)
	k.Errors.SetEnabled(len(m.hookErrs) > 0)
	k.CutTurn.SetEnabled(m.opt.CutTurn != nil)
	k.Back.SetEnabled(m.showHelp || m.errs.open || m.conv.on || m.focus != paneTurns || m.filter != "" || m.search.query != "" || m.zoom || m.turns.opsOpen)
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
		m.setStatus("an operation is being applied; quit when it is done")
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
	if m.jumping {
		return m.jumpKey(msg)
	}
	if m.dlg != nil {
		switch {
		case m.showHelp && key.Matches(msg, k.Quit):
			m.showHelp = false // q closes what is open: the help, then the dialog
			return nil
		case m.showHelp:
			return m.helpKey(msg, k)
		case key.Matches(msg, k.Help):
			return m.openHelp()
		}
		cmd, act := m.dlg.HandleKey(msg, k, m.keys)
		return m.act(cmd, act)
	}
	if key.Matches(msg, k.Quit) {
		return tea.Quit
	}
	if m.showHelp {
		return m.helpKey(msg, k)
	}
	if m.errs.open {
		return m.errorsKey(msg, k)
	}
	if cmd, ok := m.opKey(msg, k); ok {
		return cmd
	}
	if cmd, ok := m.comfortKey(msg, k); ok {
		return cmd
	}
	return m.paneKey(msg, k)
}

// helpKey scrolls the help screen, or closes it.
func (m *Model) helpKey(msg tea.KeyPressMsg, k keymap.KeyMap) tea.Cmd {
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
	case key.Matches(msg, k.Top):
		m.helpTop = 0
	case key.Matches(msg, k.Bottom):
		m.helpTop = 1 << 30
	}
	m.helpTop = clamp(m.helpTop, 0, max(len(m.helpLines())-m.mainHeight(), 0))
	return nil
}

// openHelp shows the full help, over whatever is open.
func (m *Model) openHelp() tea.Cmd {
	m.showHelp = true
	m.helpTop = 0
	m.help.ShowAll = true
	return nil
}

// opKey handles the keys that open a preview (rewind, undo, redo) and
// the screen's own (help, filter, search, dismiss, follow); ok is false
// for any other key.
func (m *Model) opKey(msg tea.KeyPressMsg, k keymap.KeyMap) (cmd tea.Cmd, ok bool) {
	switch {
	case key.Matches(msg, k.Rewind):
		// On a turn already rewound, the store plans a retry of the paths
		// that rewind could not restore, or says there is nothing to do.
		e := m.selected()
		return m.openDialog(store.KindRewind, e.ID, e.Label, e.State != store.StateActive), true
	case key.Matches(msg, m.keys.Rewind):
		if e := m.selected(); e != nil && e.Kind != store.KindAgent {
			m.setStatus("select an agent turn to rewind (this line is an operation)")
		}
		return nil, true
	case key.Matches(msg, k.Revert):
		e := m.selected()
		return m.openDialog(store.KindRevert, e.ID, e.Label, false), true
	case key.Matches(msg, m.keys.Revert):
		if e := m.selected(); e != nil && e.Kind != store.KindAgent {
			m.setStatus("select an agent turn to revert (this line is an operation)")
		}
		return nil, true
	case key.Matches(msg, m.keys.Undo, m.keys.Redo) && !m.hasOps():
		m.setStatus("nothing to undo or redo yet")
		return nil, true
	case key.Matches(msg, m.keys.Undo):
		return m.openDialog(store.KindUndo, "", "", false), true
	case key.Matches(msg, m.keys.Redo):
		return m.openDialog(store.KindRedo, "", "", false), true
	case key.Matches(msg, k.Help):
		return m.openHelp(), true
	case key.Matches(msg, k.Filter):
		m.filtering = true
		m.focus = paneTurns
		m.input.SetValue(m.filter)
		m.input.CursorEnd()
		m.sizeInput()
		return m.input.Focus(), true
	case key.Matches(msg, k.Search):
		m.search.typing = true
		q := m.search.query
		if q == "" {
			q = m.lastQuery // / offers the last search again
		}
		m.input.SetValue(q)
		m.input.CursorEnd()
		m.sizeInput()
		return m.input.Focus(), true
	case key.Matches(msg, k.Dismiss):
		// Hides the notice; the store's log keeps the errors.
		if m.errText != "" {
			m.errText = ""
		} else {
			m.errsSeen = len(m.hookErrs)
		}
		return nil, true
	case key.Matches(msg, k.Errors):
		m.errs = errorsView{open: true}
		return nil, true
	case key.Matches(msg, k.CutTurn):
		return cutTurn(m.opt.CutTurn), true
	case key.Matches(msg, k.Follow):
		m.follow = true
		m.newer = 0
		m.turns.cur.cur = 0
		m.turns.cur.clip(len(m.turns.shown), m.turnsHeight())
		m.setStatus("following the newest turn (move to stop)")
		m.statusFor.follow = true
		return m.selectTurn(false), true
	}
	return nil, false
}

// paneKey handles the keys that move in and between the panes.
func (m *Model) paneKey(msg tea.KeyPressMsg, k keymap.KeyMap) tea.Cmd {
	switch {
	case key.Matches(msg, k.Zoom):
		m.zoom = !m.zoom
		if m.zoom {
			m.focus = paneDiff
		}
		return nil
	case key.Matches(msg, k.Editor):
		return m.edit()
	case m.focus == paneDiff && key.Matches(msg, k.Left):
		m.diff.left = max(m.diff.left-m.step(), 0)
		return nil
	case m.focus == paneDiff && key.Matches(msg, k.Right):
		m.diff.left = min(m.diff.left+m.step(), max(m.diff.d.Longest()-sideStep, 0))
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
		case m.conv.on:
			m.conv = convPane{} // the diff again
		case m.focus != paneTurns:
			m.focus--
		case m.turns.opsOpen:
			m.turns.opsOpen = false
			m.refilter()
		case m.filter != "":
			m.filter = ""
			m.input.SetValue("")
			m.refilter()
			return m.selectTurn(false)
		}
		return nil
	case key.Matches(msg, k.Open) && m.focus == paneTurns && m.selectedFolds() > 0:
		m.turns.opsOpen = true
		m.refilter()
		return nil
	case key.Matches(msg, k.Open):
		if m.focus == paneTurns {
			m.focus = paneFiles
		} else {
			m.focus = paneDiff
		}
		return nil
	case key.Matches(msg, k.DiffMode):
		m.diff.mode = (m.diffMode() + 1) % modeCount
		m.diff.modeSet = true
		m.diff.top = 0
		return m.selectFile(true)
	case key.Matches(msg, k.SideBySide):
		chosen := m.layoutSide()
		if m.diff.sideSet {
			chosen = m.diff.side // as asked, even where too narrow to draw
		}
		m.diff.side = !chosen
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
				m.setStatus("not found in this diff: " + m.search.query)
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
			m.showMatch()
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
		// The turns that came while the cursor was down the list are
		// above it; those it moved past are seen.
		m.newer = min(m.newer, m.turns.cur.cur)
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
	if len(hs) == 0 {
		return
	}
	// From the hunk the counter names, so n and N step through the hunks
	// even when the whole diff fits and there is nothing to scroll.
	next := clamp(m.currentHunk()+dir, 0, len(hs)-1)
	m.diff.hunk, m.diff.hunkSet = next, true
	m.diff.top = hs[next]
	m.clipDiff()
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
	m.refilter()
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
		if m.search.query != "" {
			m.lastQuery = m.search.query
		}
		m.findAll()
		if len(m.search.hits) == 0 && m.search.query != "" {
			m.setStatus("not found in this diff: " + m.search.query)
		} else if len(m.search.hits) > 0 {
			m.diff.top = m.search.hits[0]
			for _, h := range m.search.hits {
				if h >= m.diff.top {
					m.diff.top = h
					break
				}
			}
			m.clipDiff()
			m.showMatch()
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

// sideStep is how far h and l scroll a diff sideways.
const sideStep = 8

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
		m.dlg.Scroll(delta)
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

// openDialog opens the preview of an operation and asks for its plan.
func (m *Model) openDialog(kind store.Kind, target, label string, retry bool) tea.Cmd {
	if m.st == nil {
		return nil
	}
	m.setStatus("") // a hint about another turn does not carry into the preview
	m.seq++
	env := dialogEnv{st: m.st, cache: m.cache, sty: &m.sty, maxDiff: m.opt.MaxDiffBytes, entry: m.entry}
	m.dlg = newDialog(env, m.seq, kind, target, label, retry)
	m.dlg.SetSize(m.width, m.mainHeight(), m.height)
	return m.dlg.Open()
}

// replan makes the open preview's plan again (the store or the disk
// changed).
func (m *Model) replan() tea.Cmd {
	if m.dlg == nil {
		return nil
	}
	return m.dlg.Replan()
}

// dialogMsg routes a dialog's message: to the open dialog, or, for an
// operation that ended with no dialog open, to what the root does after
// one.
func (m *Model) dialogMsg(msg tea.Msg) tea.Cmd {
	if m.dlg != nil {
		cmd, act, _ := m.dlg.Update(msg)
		return m.act(cmd, act)
	}
	switch msg := msg.(type) {
	case applyStartedMsg:
		return waitApply(msg.dlg, msg.ch)
	case appliedMsg:
		return m.act(appliedAction(msg, nil, false))
	}
	return nil
}

// act carries out what the dialog asked for, after cmd.
func (m *Model) act(cmd tea.Cmd, a dialogAction) tea.Cmd {
	cmds := []tea.Cmd{cmd}
	if a.retry && m.dlg != nil {
		d := m.dlg
		if d.kind == store.KindRevert {
			// The revert's preview plans the retry of what it left.
			return m.openDialog(store.KindRevert, d.target, d.label, false)
		}
		return m.openDialog(store.KindRewind, d.target, d.label, true)
	}
	if a.close {
		m.dlg = nil
	}
	if a.clearErr {
		m.errText = ""
	}
	if a.errText != "" {
		m.errText = a.errText
	}
	if a.status != "" {
		m.setStatus(a.status)
		m.statusFor.op = a.op
		if a.op != "" {
			// The person acted on the list: what they did, and its undo
			// key, is the news now, not the turns that came before it.
			m.newer = 0
		}
	}
	if a.refresh {
		cmds = append(cmds, m.refresh(true))
	}
	if a.badges {
		cmds = append(cmds, m.badges())
	}
	return tea.Batch(cmds...)
}

// statusFor is what the status line's last message is about, so it can
// be dropped when that no longer holds: a message about an operation
// ("— u to undo") lasts while that operation is the newest and in effect;
// "following" lasts while the cursor follows; any other message lasts
// while the same entry is selected.
type statusFor struct {
	op     string
	sel    string
	follow bool
	errs   int // the errors logged when it was set: one logged since comes first
}

// setStatus shows a message about the entry selected now.
func (m *Model) setStatus(s string) {
	m.status = s
	m.statusFor = statusFor{errs: len(m.hookErrs)}
	if e := m.selected(); e != nil {
		m.statusFor.sel = e.ID
	}
}

// checkStatus drops the status message once it no longer holds: run
// whenever the log or the selection changes.
func (m *Model) checkStatus() {
	if m.status == "" {
		return
	}
	f := m.statusFor
	sel := ""
	if e := m.selected(); e != nil {
		sel = e.ID
	}
	switch {
	case f.follow:
		if !m.follow {
			m.status = ""
		}
	case f.op != "":
		if !m.opHolds(f.op) {
			m.status = ""
		}
	case sel != f.sel:
		m.status = ""
	}
}

// opHolds says whether op is still the newest operation in the log and in
// effect. An op not in the log yet (the reload is on its way) holds.
func (m *Model) opHolds(op string) bool {
	i, ok := m.idx.byID[op]
	if !ok || i >= len(m.entries) || m.entries[i].ID != op {
		return true
	}
	return m.idx.newestOp == op && m.entries[i].State == store.StateActive
}
