package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ckpt-dev/ckpt/diffview"
	"github.com/ckpt-dev/ckpt/keymap"
	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

// Layout. The main area holds the panes (or a dialog, or help); under it
// are the status line and the short help.

const wideAt = 100 // narrower than this, an opened diff takes the width

func (m *Model) mainHeight() int { return max(m.height-2, 1) }

// zoomed: the diff pane has the whole width (z, or a narrow screen).
func (m *Model) zoomed() bool { return m.focus == paneDiff && (m.zoom || m.width < wideAt) }

func (m *Model) leftWidth() int {
	if m.zoomed() {
		return 0
	}
	if m.width < 60 {
		return m.width
	}
	// Wide screens give labels the room, the diff keeping 3/5 of the
	// width, but never less than the 120 columns where it is side by
	// side (the left pane keeping its 64 of narrower screens).
	lw := clamp(m.width*2/5, 34, 100)
	if m.width-lw-1 < 120 && m.width-121 >= 64 {
		lw = m.width - 121
	}
	return lw
}

func (m *Model) diffWidth() int {
	lw := m.leftWidth()
	if lw == 0 {
		return m.width
	}
	return max(m.width-lw-1, 0)
}

// turnsHeight is the rows of turns on screen (without title or filter).
func (m *Model) turnsHeight() int {
	h := m.mainHeight()*3/5 - 1
	if m.filtering || m.filter != "" {
		h--
	}
	return max(h, 1)
}

func (m *Model) filesTop() int {
	return m.mainHeight() * 3 / 5
}

func (m *Model) filesHeight() int {
	return max(m.mainHeight()-m.filesTop()-1-len(m.labelLines(m.leftWidth())), 1)
}

// labelLines is the selected turn's label in full under the files pane's
// title (two lines at most), when the turns pane cuts it; else none.
func (m *Model) labelLines(w int) []string {
	e := m.selected()
	if e == nil || !m.labelCut(e) {
		return nil
	}
	lines := wrapLines(present.Escape(e.Label), max(w-2, 1), 0)
	if len(lines) > 2 {
		lines = []string{lines[0], present.Fit(strings.Join(lines[1:], " "), max(w-2, 1))}
	}
	return lines
}

// diffHeight is the rows of diff on screen: the pane but for its title,
// its notes and the search line while one is typed.
func (m *Model) diffHeight() int {
	h := m.mainHeight() - 1
	if m.conv.on {
		return max(h, 1) // the conversation has the pane
	}
	h -= len(m.diffNotes(m.selectedFile(), m.diffWidth()))
	if m.search.typing {
		h--
	}
	return max(h, 1)
}

// layoutSide is whether the diff is drawn side by side: the user's choice,
// or by default when the pane is wide enough for two readable halves.
//
// Below sideMinWidth it is unified whatever was chosen: each half of a
// side-by-side row spends a line number, a space and a sign (about 7
// columns) before its text, and under sideMinText columns of text a half
// shows too little of a line to compare (at 60 columns, 23 a side).
func (m *Model) layoutSide() bool {
	if m.diffWidth() < sideMinWidth {
		return false
	}
	if m.diff.sideSet {
		return m.diff.side
	}
	return m.diffWidth() >= 120
}

// The narrowest side-by-side diff: two halves of sideMinText columns of
// text, each after its line number and sign, and the rule between them.
const (
	sideMinText  = 40
	sideMinWidth = 2*(sideMinText+7) + 1
)

// sideRefused is whether side by side was asked for and the pane is too
// narrow for it, so the diff says why it is unified.
func (m *Model) sideRefused() bool {
	return m.diff.sideSet && m.diff.side && m.diffWidth() < sideMinWidth
}

func (m *Model) layout() diffview.Layout {
	// Wrapped lines are unified: a side-by-side half cannot wrap alone.
	if m.layoutSide() && !m.wrap {
		return diffview.SideBySide
	}
	return diffview.Unified
}

// paneAt says which pane is at a screen cell, and which row of its list.
func (m *Model) paneAt(x, y int) (pane, int) {
	if y >= m.mainHeight() {
		return m.focus, -1
	}
	lw := m.leftWidth()
	if lw == 0 || x > lw {
		return paneDiff, y - 1
	}
	if y < m.filesTop() {
		off := 1
		if m.filtering || m.filter != "" {
			off = 2
		}
		return paneTurns, y - off
	}
	return paneFiles, y - m.filesTop() - 1 - len(m.labelLines(lw))
}

// View draws the screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	if m.noMouse {
		v.MouseMode = tea.MouseModeNone // the terminal selects text again
	}
	v.WindowTitle = "ckpt"
	return v
}

func (m *Model) render() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	mainH := m.mainHeight()
	var main []string
	switch {
	case m.showHelp: // over a dialog too
		main = m.helpView(mainH)
	case m.dlg != nil:
		main = strings.Split(m.dlg.View(m.width, mainH), "\n")
	case m.errs.open:
		main = m.errorsScreen(mainH)
	default:
		main = m.panesView(mainH)
	}
	lines := make([]string, 0, m.height)
	lines = append(lines, main...)
	if m.height >= 2 {
		lines = append(lines, m.statusLine())
	}
	lines = append(lines, m.helpLine())
	if len(lines) > m.height {
		lines = lines[:m.height]
	}
	return strings.Join(lines, "\n")
}

func (m *Model) panesView(h int) []string {
	lw, dw := m.leftWidth(), m.diffWidth()
	var left []string
	if lw > 0 {
		left = append(left, m.turnsView(lw, m.filesTop())...)
		left = append(left, m.filesView(lw, h-m.filesTop())...)
	}
	var right []string
	switch {
	case lw != 0 && lw >= m.width:
	case m.conv.on:
		right = m.convView(dw, h)
	default:
		right = m.diffView(dw, h)
	}
	out := make([]string, h)
	sep := m.sty.sep.Render("│")
	for i := range out {
		switch {
		case lw == 0:
			out[i] = right[i]
		case lw >= m.width:
			out[i] = left[i]
		default:
			out[i] = left[i] + sep + right[i]
		}
	}
	return out
}

// paneTitle is a pane's title line, reversed when the pane has the focus.
func (s *styles) paneTitle(text string, w int, focused bool) string {
	t := present.Fit(" "+text, w)
	if focused {
		return s.titleFocus.Render(t)
	}
	return s.title.Render(t)
}

// turnsView draws the turns pane in h rows of width w.
func (m *Model) turnsView(w, h int) []string {
	out := make([]string, 0, h)
	n := fmt.Sprintf("Turns (%d)", m.turnCount())
	if m.filter != "" {
		// Turns against turns, as the title counts them unfiltered; the
		// operations the filter matched besides.
		turns := 0
		for _, i := range m.turns.shown {
			if m.entries[i].Kind == store.KindAgent {
				turns++
			}
		}
		n = fmt.Sprintf("Turns (%d of %d shown)", turns, m.turnCount())
		if ops := len(m.turns.shown) - turns; ops > 0 {
			n += " · " + present.Count(ops, "operation")
		}
	}
	if k := m.hiddenEmpty(); k > 0 {
		n += " · " + present.Count(k, "empty turn") + " hidden (H)"
	}
	if m.follow {
		n += " · following"
	}
	out = append(out, m.sty.paneTitle(n, w, m.focus == paneTurns))
	if m.filtering || m.filter != "" {
		if m.filtering {
			out = append(out, fitStyled(" /"+m.input.View(), w))
		} else {
			out = append(out, m.sty.dim.Render(present.Fit(" filter: "+present.Escape(m.filter)+" (esc clears)", w)))
		}
	}
	rows := h - len(out)
	if len(m.entries) == 0 {
		out = append(out, m.sty.dim.Render(present.Fit(" waiting for the agent…", w)))
	} else if len(m.turns.shown) == 0 {
		out = append(out, m.sty.dim.Render(present.Fit(" no turn matches the filter", w)))
	}
	idW, ageW := m.turnColumns(rows)
	end := min(m.turns.cur.top+rows, len(m.turns.shown))
	undoable := m.undo.row
	for i := m.turns.cur.top; i < end; i++ {
		idx := m.turns.shown[i]
		e := &m.entries[idx]
		row := m.turnRow(e, w, idW, ageW, i == m.turns.cur.cur, e.ID == undoable, m.turns.folded[idx], undoable)
		out = append(out, row)
	}
	for len(out) < h {
		out = append(out, strings.Repeat(" ", w))
	}
	return out[:h]
}

// turnColumns is the width of the turns pane's id column, for the rows
// of its window of height rows, and of its age column.
func (m *Model) turnColumns(rows int) (idW, ageW int) {
	idW = 1
	end := min(m.turns.cur.top+rows, len(m.turns.shown))
	for i := m.turns.cur.top; i < end; i++ {
		idW = max(idW, ansi.StringWidth(present.Escape(m.entries[m.turns.shown[i]].ID)))
	}
	idW = min(idW, 8)
	// Ages are right-aligned in the width of the widest, so a row does
	// not shift when its age grows a digit (9m → 10m).
	return idW, m.ageWidth()
}

// ageMemo is the width of the widest age of a log at a second: worked
// out once for the frames of that second, not for each of their calls
// (every turn's age, on a log of thousands, each second the clock ticks).
type ageMemo struct {
	at      time.Time
	entries *store.Entry // the log it was worked out for: its first entry
	n       int
	w       int
}

// ageWidth is the width of the widest age in the log, now.
func (m *Model) ageWidth() int {
	now := m.now()
	sec := now.Truncate(time.Second)
	var first *store.Entry
	if len(m.entries) > 0 {
		first = &m.entries[0]
	}
	if a := m.ages; a.at.Equal(sec) && a.entries == first && a.n == len(m.entries) {
		return a.w
	}
	w := 0
	for i := 0; i < len(m.entries) && w < present.MaxAgeWidth; i++ {
		w = max(w, present.AgeWidth(now, m.entries[i].At))
	}
	m.ages = ageMemo{at: sec, entries: first, n: len(m.entries), w: w}
	return w
}

// labelCut is whether the turns pane cuts e's label short, so the files
// pane gives it in full.
func (m *Model) labelCut(e *store.Entry) bool {
	w := m.leftWidth()
	if w == 0 || e.Kind != store.KindAgent {
		return false
	}
	idW, ageW := m.turnColumns(m.turnsHeight())
	left, mid, right := m.turnRowParts(e, w, idW, ageW, false, nil, "")
	_, midW := rowFit(w, ansi.StringWidth(left)+1, mid, right) // and the cursor
	return ansi.StringWidth(mid.text) > midW
}

// seg is a piece of a row's right-hand side. Optional pieces go first
// when the row is short of room.
type seg struct {
	text     string
	style    lipgloss.Style
	optional bool
	// tail is an optional piece the middle gives columns up for (down
	// to 12) before it goes: a turn's age, so every row says it.
	tail    bool
	cutLeft bool // cut from the left, so a path keeps its file name
}

func (m *Model) turnRow(e *store.Entry, w, idW, ageW int, sel, undoable bool, folded []int, undoID string) string {
	left, mid, right := m.turnRowParts(e, w, idW, ageW, undoable, folded, undoID)
	cur := " "
	if sel {
		cur = "›"
	}
	return m.sty.row(w, cur+left, mid, right, sel, m.focus == paneTurns)
}

// turnRowParts is a turn's row but for the cursor: the id and the mark,
// the label, and what is said on the right.
func (m *Model) turnRowParts(e *store.Entry, w, idW, ageW int, undoable bool, folded []int, undoID string) (string, seg, []seg) {
	mark := " "
	label := present.Escape(e.Label)
	base := lipgloss.NewStyle()
	var right []seg
	dim := m.sty.dim
	switch e.Kind {
	case store.KindAgent:
		switch e.State {
		case store.StateRewound:
			mark = "×"
			base = dim
			right = append(right, seg{text: "rewound", style: dim})
		case store.StateReverted:
			mark = "−"
			base = dim
			right = append(right, seg{text: "reverted", style: dim})
		default:
			if m.idx.taken.Reverted[e.ID] != "" {
				right = append(right, seg{text: partReverted, style: dim}) // what is true of it, as "reverted" is
			}
		}
	default:
		mark = map[store.Kind]string{store.KindRewind: "↶", store.KindUndo: "↺", store.KindRedo: "↷", store.KindRevert: "⤺"}[e.Kind]
		label = opText(e)
		base = m.sty.op
		switch {
		case e.State == store.StateUndone:
			base = dim
			right = append(right, seg{text: "undone", style: dim})
		case e.State == store.StateFailed:
			base = dim
			right = append(right, seg{text: "failed, changed nothing", style: m.sty.fail})
		case undoable:
			label += " — u to undo"
		}
		if n := len(e.Failed); n > 0 && e.State != store.StateFailed {
			right = append(right, seg{text: fmt.Sprintf("✗%d failed", n), style: m.sty.fail})
		}
		if len(folded) > 0 {
			label += fmt.Sprintf(" · +%d more", len(folded))
			for _, f := range folded {
				if m.entries[f].ID == undoID {
					label += " — u undoes " + present.Escape(undoID)
				}
			}
		}
	}
	if e.HandEdited > 0 {
		badge := fmt.Sprintf("⚠%d", e.HandEdited)
		if w >= 50 {
			badge += " changed"
		}
		right = append(right, seg{text: badge, style: m.sty.badge})
	}
	if e.Kind == store.KindAgent && e.RanGit {
		right = append(right, seg{text: "git", style: m.sty.op}) // HEAD or the index moved during it
	}
	if e.Kind == store.KindAgent {
		right = append(right, seg{text: present.Count(e.Files, "file"), style: dim, optional: true})
		if e.Source != nil && e.Source.Agent != "" && w >= 56 {
			right = append(right, seg{text: present.Escape(e.Source.Agent), style: dim, optional: true})
		}
		if e.Source != nil && e.Source.Session != "" && w >= 72 {
			// The session, short: one folder, two agents, and R or
			// `ckpt revert --session` takes one of them out.
			s := e.Source.Session
			if len(s) > 6 {
				s = s[:6]
			}
			right = append(right, seg{text: "@" + present.Escape(s), style: dim, optional: true})
		}
	}
	age := present.Age(m.now(), e.At)
	right = append(right, seg{text: strings.Repeat(" ", max(ageW-ansi.StringWidth(age), 0)) + age, style: dim, optional: true, tail: true})

	id := present.Escape(e.ID)
	if ansi.StringWidth(id) > idW {
		id = ansi.Truncate(id, idW, "…")
	}
	return pad(id, idW) + " " + mark + " ", seg{text: label, style: base}, right
}

// row lays out a line: a fixed left part, a flexible middle cut to fit,
// and right-hand segments dropped from the left when there is no room.
func (s *styles) row(w int, left string, mid seg, right []seg, sel, focused bool) string {
	lw := ansi.StringWidth(left)
	right, midW := rowFit(w, lw, mid, right)
	if lw > w {
		return s.selStyle(sel, focused).Render(present.Fit(left, w))
	}
	midText := present.Fit(mid.text, midW)
	if mid.cutLeft {
		midText = present.FitLeft(mid.text, midW)
	}
	if sel {
		var b strings.Builder
		b.WriteString(left + midText)
		for _, r := range right {
			b.WriteString(" " + r.text)
		}
		return s.selStyle(sel, focused).Render(present.Fit(b.String(), w))
	}
	var b strings.Builder
	b.WriteString(left)
	b.WriteString(mid.style.Render(midText))
	for _, r := range right {
		b.WriteString(" ")
		b.WriteString(r.style.Render(r.text))
	}
	return b.String()
}

// rowFit is what of right a row of width w keeps beside a left part lw
// wide, and the columns left for the middle.
func rowFit(w, lw int, mid seg, right []seg) ([]seg, int) {
	width := func(segs []seg) int {
		n := 0
		for _, r := range segs {
			n += ansi.StringWidth(r.text) + 1
		}
		return n
	}
	// The middle keeps up to 28 columns, less in a narrow pane, where 8
	// are kept for the last segment (a turn's age), so every row says it.
	room := min(28, max(w-lw-8, 12), max(ansi.StringWidth(mid.text), 1))
	over := func() bool { return lw+room+width(right) > w }
	drop := func(goes func(seg) bool) {
		for i := 0; i < len(right) && over(); {
			if !goes(right[i]) {
				i++
				continue
			}
			right = append(right[:i:i], right[i+1:]...)
		}
	}
	// shrink gives the middle's columns up, down to least, for the
	// pieces left.
	shrink := func(least int) {
		if over() {
			room = max(min(room, w-lw-width(right)), min(least, room))
		}
	}
	// Drop optional pieces, oldest first, but a tail; cut the middle to
	// 12 columns for the tail and what must be said; then drop the tail;
	// cut the middle to 6 columns for what must be said (a turn's state:
	// the files pane gives a label cut short in full); then drop any,
	// until the middle has room.
	drop(func(s seg) bool { return s.optional && !s.tail })
	shrink(12)
	drop(func(s seg) bool { return s.optional })
	shrink(6)
	drop(func(seg) bool { return true })
	return right, max(w-lw-width(right), 0)
}

func (s *styles) selStyle(sel, focused bool) lipgloss.Style {
	switch {
	case sel && focused:
		return s.cursor
	case sel:
		return s.cursorDim
	}
	return lipgloss.NewStyle()
}

// opText describes an operation as a line of the log.
func opText(e *store.Entry) string {
	if e.Retry != "" {
		return fmt.Sprintf("retried %s · %s", present.Escape(e.Retry), present.Count(e.Files, "file"))
	}
	return present.OpSummary(e.Kind, e.Target, len(e.Turns), e.Files)
}

// statusInfo is a file status as a letter (or symbol) and a word.
func statusInfo(s store.Status) (string, string) {
	return present.StatusLetter(s), present.StatusWord(s)
}

// statusWriting is shown for a path the agent captured and has not
// sealed yet: it is being written, not changed since the agent.
const statusWriting store.Status = "writing"

// fileStatus is a file's status as shown: failed and being written come
// before the store's status, and a failed path says why.
func fileStatus(f *store.File) (letter, word, short string) {
	s := f.Status
	if f.Writing && s != store.StatusFailed {
		s = statusWriting
	}
	letter, word = statusInfo(s)
	short = shortWord(s)
	if s == store.StatusFailed {
		word = "failed: " + present.Escape(orUnknown(f.Reason))
	}
	if k := present.KindChange(f.Pre.Kind, f.Disk.Kind); k != "" && s == store.StatusModified {
		letter, word, short = present.KindLetter, word+" ("+k+")", k
	}
	if f.HandEdited && s != store.StatusHandEdited && s != store.StatusFailed && s != statusWriting {
		// Another status comes first, but the change since the agent is
		// marked all the same.
		letter, word = "!", word+", "+present.ChangedSinceAgent
	}
	if f.Shell != "" {
		// Changed by a shell command: the diff pane shows which.
		word, short = word+" · $", short+" $"
	}
	return letter, word, short
}

// fileStatus is a file of the selected turn as the files pane shows it.
// A rewound turn's files are back as before it, so each shows what the
// agent did to it instead — or, for a file the rewind kept, that it was
// kept, marked ! when it changed since the agent. A reverted turn's
// changes are out of the folder too: each file shows what the agent did
// and that it was reverted, with what came later kept.
func (m *Model) fileStatus(f *store.File) (letter, word, short string) {
	_, how := m.takenOut()
	switch {
	case how == "":
		return fileStatus(f)
	case how == string(store.StateReverted) || how == partReverted:
		return revertedStatus(f)
	}
	switch f.Status {
	case store.StatusUnchanged:
		// Short, it says rewound, as a reverted file's says reverted:
		// the letter has the agent's change, and a bare "created" would
		// read as the disk now.
		letter, word, _ = agentChange(f, "rewound")
		return letter, word, "rewound"
	case store.StatusModified, store.StatusCreated, store.StatusDeleted, store.StatusHandEdited:
		if f.Post != nil && sameImage(f.Disk, *f.Post) {
			return "k", "kept as the agent left it", "kept"
		}
		return "!", "kept, " + present.ChangedSinceAgent, "kept !"
	}
	return fileStatus(f)
}

// revertedStatus is a file of a reverted turn: what the agent did to it,
// and, where the disk is not back as before the turn, that what came
// after it was kept (the revert merged it) or changed since.
func revertedStatus(f *store.File) (letter, word, short string) {
	switch f.Status {
	case store.StatusUnchanged:
		letter, word, _ = agentChange(f, "reverted")
		return letter, word, "reverted"
	case store.StatusModified, store.StatusCreated, store.StatusDeleted:
		if f.HandEdited {
			return fileStatus(f) // the disk says more than what the agent did
		}
		letter, word, _ = agentChange(f, "reverted, later changes kept")
		return letter, word, "reverted, merged"
	}
	// Changed since the agent, failed (a conflict left as it was), …:
	// what the disk says now.
	return fileStatus(f)
}

// agentChange is what the agent did to a file, its pre-image against
// what it left, and how that was taken out (how: "rewound", …).
func agentChange(f *store.File, how string) (letter, word, short string) {
	var s store.Status
	switch {
	case f.Post == nil:
		return "~", "the agent's write was never sealed · " + how, strings.Fields(how)[0]
	case f.Pre.Kind == store.ImageAbsent && f.Post.Kind != store.ImageAbsent:
		s = store.StatusCreated
	case f.Pre.Kind != store.ImageAbsent && f.Post.Kind == store.ImageAbsent:
		s = store.StatusDeleted
	case sameImage(f.Pre, *f.Post):
		s = store.StatusUnchanged
	default:
		s = store.StatusModified
	}
	letter, word = statusInfo(s)
	if k := present.KindChange(f.Pre.Kind, f.Post.Kind); k != "" && s == store.StatusModified {
		letter, word = present.KindLetter, word+" ("+k+")"
	}
	return letter, "the agent: " + word + " · " + how, shortWord(s)
}

// sameImage says whether two images hold the same thing.
func sameImage(a, b store.Image) bool {
	return a.Kind == b.Kind && a.SHA256 == b.SHA256 && a.Link == b.Link
}

// shortWord is a status word for a narrow files pane.
func shortWord(s store.Status) string { return present.StatusShort(s) }

func (m *Model) filesView(w, h int) []string {
	out := make([]string, 0, h)
	e := m.selected()
	t := []part{{text: "Files"}}
	if e != nil && e.Kind == store.KindAgent {
		// The turn's id can go: the turns pane above has it under the cursor.
		t[0] = part{text: fmt.Sprintf("Files of turn %s (%d)", present.Escape(e.ID), len(m.files.rows)),
			short: fmt.Sprintf("Files (%d)", len(m.files.rows)), weight: 4, keep: true}
		if op, how := m.takenOut(); op != "" {
			t = append(t, part{text: how + " by " + present.Escape(op), short: how, weight: 3, keep: true})
		}
		if e.Source != nil && e.Source.Agent != "" {
			who := present.Escape(e.Source.Agent)
			p := part{text: who, weight: 1}
			if s := e.Source.Session; s != "" {
				if len(s) > 8 {
					s = s[:8]
				}
				p.text, p.short = who+" session "+present.Escape(s), who
			}
			t = append(t, p)
		}
	}
	out = append(out, m.sty.paneTitle(fitParts(t, max(w-1, 0)), w, m.focus == paneFiles))
	for _, l := range m.labelLines(w) {
		out = append(out, m.sty.dim.Render(present.Fit(" "+l, w)))
	}
	switch {
	case e == nil:
	case e.Kind != store.KindAgent:
		for _, l := range opDetails(e, m.entry) {
			for _, wl := range wrapLines(l, max(w-1, 1), 4) {
				out = append(out, present.Fit(" "+wl, w))
			}
		}
	case m.files.err != nil:
		out = append(out, m.sty.errText.Render(present.Fit(" "+present.Escape(m.files.err.Error()), w)))
	case m.files.rows == nil:
		out = append(out, m.sty.dim.Render(present.Fit(" loading…", w)))
	case len(m.files.rows) == 0:
		out = append(out, m.sty.dim.Render(present.Fit(" no files in this turn", w)))
	}
	end := min(m.files.cur.top+max(h-len(out), 0), len(m.files.rows))
	for i := m.files.cur.top; i < end && e != nil && e.Kind == store.KindAgent; i++ {
		f := &m.files.rows[i]
		letter, word, short := m.fileStatus(f)
		cur := " "
		if i == m.files.cur.cur {
			cur = "›"
		}
		var right []seg
		if need := 3 + ansi.StringWidth(present.Escape(f.Path)); need+ansi.StringWidth(word) < w {
			right = append(right, seg{text: word, style: m.sty.dim})
		} else if need+ansi.StringWidth(short) < w {
			right = append(right, seg{text: short, style: m.sty.dim})
		}
		ls := m.sty.letter[letter]
		left := cur + ls.Render(letter) + " "
		if i == m.files.cur.cur {
			left = cur + letter + " "
		}
		out = append(out, m.sty.row(w, left, seg{text: present.Escape(f.Path), style: lipgloss.NewStyle(), cutLeft: true}, right,
			i == m.files.cur.cur, m.focus == paneFiles))
	}
	for len(out) < h {
		out = append(out, strings.Repeat(" ", w))
	}
	return out[:h]
}

// opDetails describes an operation in the files pane; entries is the
// log, to tell what an undo or a redo acted on.
func opDetails(e *store.Entry, entry func(id string) *store.Entry) []string {
	turns := make([]string, len(e.Turns))
	for i, t := range e.Turns {
		turns[i] = present.Escape(t)
	}
	var target store.Kind
	if t := entry(e.Target); t != nil {
		target = t.Kind
	}
	var out []string
	switch e.Kind {
	case store.KindRewind:
		out = append(out, "rewind to before turn "+present.Escape(e.Target))
		out = append(out, "turns rewound: "+strings.Join(turns, ", "))
	case store.KindRevert:
		out = append(out, "took the turns' changes out, keeping what came after them")
		out = append(out, "turns reverted: "+strings.Join(turns, ", "))
	case store.KindUndo:
		out = append(out, "undid "+present.Escape(e.Target))
		out = append(out, "turns brought back: "+strings.Join(turns, ", "))
	case store.KindRedo:
		out = append(out, "redid "+present.Escape(e.Target))
		if target == store.KindRevert {
			out = append(out, "turns reverted again: "+strings.Join(turns, ", "))
		} else {
			out = append(out, "turns rewound again: "+strings.Join(turns, ", "))
		}
	}
	if e.Retry != "" {
		out = append(out, "tried again what "+present.Escape(e.Retry)+" could not restore")
	}
	out = append(out, present.Count(e.Files, "file")+" touched · "+string(e.State))
	if len(e.Failed) > 0 {
		out = append(out, present.Count(len(e.Failed), "file")+" could not be restored (r on the turn retries):")
		for _, f := range e.Failed {
			out = append(out, "  ✗ "+present.Escape(f.Path)+" — "+present.Escape(f.Reason))
		}
	}
	return out
}

func (m *Model) diffView(w, h int) []string {
	out := make([]string, 0, h)
	f := m.selectedFile()
	d := m.diff.d
	var info []part
	if m.search.query != "" {
		info = append(info, part{text: fmt.Sprintf("%q: %s", m.search.query, present.Count(len(m.search.hits), "line")), weight: 4})
	}
	if f != nil {
		info = append(info, part{text: m.diffMode().String(), short: m.diffMode().short(), weight: 2, keep: true})
	}
	if m.diff.left > 0 {
		info = append(info, part{text: fmt.Sprintf("→ %d", m.diff.left), weight: 2})
	}
	if m.wrap {
		info = append(info, part{text: "wrapped", weight: 1})
	}
	if d != nil && len(d.Hunks(m.layout())) > 0 {
		hs := d.Hunks(m.layout())
		n := fmt.Sprintf("%d/%d", m.currentHunk()+1, len(hs))
		info = append(info, part{text: fmt.Sprintf("+%d -%d", d.Added, d.Deleted), weight: 2}, part{text: "hunk " + n, weight: 1})
	}
	if f != nil {
		_, word, short := m.fileStatus(f)
		info = append(info, part{text: word, short: short, weight: 5, keep: true})
	}
	out = append(out, m.pathTitle(f, info, w, m.focus == paneDiff))
	out = append(out, m.diffNotes(f, w)...)
	if m.search.typing {
		out = append(out, fitStyled(" search: "+m.input.View(), w))
	}
	switch {
	case f == nil && len(m.entries) == 0:
		for _, l := range wrapLines(m.waitingHint(), max(w-2, 1), 0) {
			out = append(out, m.sty.dim.Render(present.Fit(" "+l, w)))
		}
	case f == nil:
		hint := " select a file to see its diff"
		if e := m.selected(); e != nil && e.Kind != store.KindAgent {
			hint = " an operation: the files pane says what it did; select a turn to see its files' diffs"
		}
		for _, l := range wrapLines(hint, max(w, 1), 1) {
			out = append(out, m.sty.dim.Render(present.Fit(l, w)))
		}
	case m.diff.err != nil:
		out = append(out, m.sty.errText.Render(present.Fit(" "+present.Escape(m.diff.err.Error()), w)))
	case m.diff.note != "":
		out = append(out, m.sty.dim.Render(present.Fit(" "+present.Escape(m.diff.note), w)))
	case d == nil:
		out = append(out, m.sty.dim.Render(present.Fit(" computing the diff…", w)))
	default:
		l := m.layout()
		v := diffview.View{Left: m.diff.left, Find: m.search.query}
		if m.wrap {
			out = append(out, m.wrappedRows(d, l, w, h-len(out), v)...)
			break
		}
		mark := -1 // the current hunk's header, marked where there are several
		if hs := d.Hunks(l); len(hs) > 1 && m.focus == paneDiff {
			mark = hs[m.currentHunk()]
		}
		for i := m.diff.top; i < d.Len(l) && len(out) < h; i++ {
			line := d.LineView(i, w, l, m.sty.diff, v)
			if i == mark {
				line = m.sty.titleFocus.Render(present.Fit(ansi.Strip(line), w))
			}
			out = append(out, line)
		}
	}
	for len(out) < h {
		out = append(out, strings.Repeat(" ", w))
	}
	return out[:h]
}

// diffNotes are the lines between the diff pane's title and the diff:
// the shell command that changed the file, why the diff is unified, and
// that a rewound or reverted turn's diff is what the agent did.
func (m *Model) diffNotes(f *store.File, w int) []string {
	if f == nil {
		return nil
	}
	var out []string
	if f.Shell != "" {
		out = append(out, m.sty.dim.Render(present.Fit(" changed by the shell command $ "+present.Escape(f.Shell), w)))
	}
	if m.sideRefused() {
		way := "s: unified"
		if !m.zoomed() && m.width >= sideMinWidth {
			way = "z gives the diff the whole width; s: unified"
		}
		note := fmt.Sprintf("unified: side by side needs %d columns (%s)", sideMinWidth, way)
		for _, l := range wrapLines(note, max(w-1, 1), 2) {
			out = append(out, m.sty.dim.Render(present.Fit(" "+l, w)))
		}
	}
	if f.Status == store.StatusFailed {
		// The title may have room for "failed" only: here is why.
		for _, l := range wrapLines("failed: "+present.Escape(orUnknown(f.Reason)), max(w-1, 1), 2) {
			out = append(out, m.sty.errText.Render(present.Fit(" "+l, w)))
		}
	}
	if op, how := m.takenOut(); op != "" && !m.diff.modeSet {
		for _, l := range wrapLines(how+" by "+present.Escape(op)+": what the agent did (v: the disk now)", max(w-1, 1), 2) {
			out = append(out, m.sty.dim.Render(present.Fit(" "+l, w)))
		}
	}
	return out
}

// waitingHint is what the diff pane says before the first turn: whether
// the folder has a store at all, and the next step — to start the agent
// when its hooks are installed, else to install them.
func (m *Model) waitingHint() string {
	var s string
	if m.st == nil {
		s = "No ckpt store in " + present.Escape(m.root) + " yet: nothing has been recorded here. "
	}
	if m.opt.CutTurn != nil {
		return s + "Watching this folder (ckpt ui --watch): every change made in it appears here as a turn, " +
			"opened by the first change after a quiet spell; T cuts a new turn now."
	}
	if len(m.opt.Installed) > 0 {
		names := make([]string, len(m.opt.Installed))
		for i, n := range m.opt.Installed {
			names[i] = present.Escape(n)
		}
		return s + "Waiting for the agent: ckpt's hooks are installed for " + strings.Join(names, ", ") +
			". Start the agent in this project; its turns appear here as it works."
	}
	return s + "Waiting for the agent. ckpt keeps each file's bytes before the agent writes it: " +
		"run `ckpt install claude` (or another agent; `ckpt install --help` lists them) in this project, then start the agent, " +
		"or `ckpt ui --watch` for an agent with no hooks. " +
		"Its turns appear here as it works."
}

// pathTitle is a pane title naming a file: the path is cut from the left
// so its name stays, then the rest as room allows, the parts of least
// weight giving way first.
func (m *Model) pathTitle(f *store.File, rest []part, w int, focused bool) string {
	if f == nil {
		return m.sty.paneTitle("Diff", w, focused)
	}
	path := present.Escape(f.Path)
	pw := ansi.StringWidth(path)
	if room := w - 1 - pw; room < 12 && len(rest) > 0 {
		path = present.FitLeft(path, max(w*2/3, 1))
	}
	s := " " + fitParts(append([]part{{text: path}}, rest...), max(w-1, 0))
	if focused {
		return m.sty.titleFocus.Render(s)
	}
	return m.sty.title.Render(s)
}

func (m *Model) statusLine() string {
	w := m.width
	if m.jumping {
		return fitStyled(" "+m.input.View()+m.sty.dim.Render("  (enter goes, esc gives up)"), w)
	}
	root := present.Escape(m.root)
	if rw := max(w/3, 12); ansi.StringWidth(root) > rw {
		root = ansi.TruncateLeft(root, ansi.StringWidth(root)-rw+1, "…")
	}
	// The store's size is the sum of its files' lengths (du counts disk
	// blocks, so it says more); the help says so too.
	info := fmt.Sprintf("%s · %s · %s in store files", root, present.Count(m.turnCount(), "turn"), present.Bytes(m.size))
	msg, style, _ := m.statusMsg()
	// The message first: the folder's facts give way to it, the least
	// telling first, down to the turns and the size; to none only when
	// that lets the whole message read.
	counts := fmt.Sprintf("%s · %s", present.Count(m.turnCount(), "turn"), present.Bytes(m.size))
	for _, short := range []string{strings.TrimSuffix(info, " in store files"), counts, ""} {
		if msg == "" || ansi.StringWidth(info)+ansi.StringWidth(msg)+2 <= w {
			break
		}
		info = short
	}
	if info == "" && ansi.StringWidth(msg)+1 > w {
		info = counts // cut either way: keep what the folder holds
	}
	iw := ansi.StringWidth(info)
	if iw+2 > w {
		return m.sty.dim.Render(present.Fit(info, w))
	}
	return style.Render(present.Fit(" "+msg, w-iw-1)) + " " + m.sty.dim.Render(info)
}

// statusMsg is what the status line says, first match wins: an error, new
// turns, the last action, the logged errors; notice is whether x would
// hide it.
func (m *Model) statusMsg() (msg string, style lipgloss.Style, notice bool) {
	switch {
	case m.errText != "":
		return "error: " + present.Escape(m.errText) + " (x hides)", m.sty.errText, true
	case m.newer > 0 && m.dlg == nil: // newer than any status
		return fmt.Sprintf("%s since you looked — f follows the newest", present.Count(m.newer, "new turn")), m.sty.dim, false
	case m.status != "" && len(m.hookErrs) > m.statusFor.errs && m.errorNotice() != "" && !m.errs.open:
		// An error logged since the status was set is news the hint
		// would hide for as long as it holds.
		return m.errorNotice(), m.sty.warn, true
	case m.status != "":
		return present.Escape(m.status), m.sty.status, false
	case m.errorNotice() != "" && !m.errs.open: // the errors view shows them whole
		return m.errorNotice(), m.sty.warn, true
	}
	return "", m.sty.status, false
}

func (m *Model) turnCount() int { return m.idx.turns }

// helpLine is the footer. Whatever is open, it ends with ? help and how
// to leave: q/esc close in a dialog (q never quits from there), else esc
// back where esc backs out of something, and q quit.
func (m *Model) helpLine() string {
	if verb := m.typingVerb(); verb != "" {
		// Keys are text while a line is typed: ? and q among them.
		accept, cancel, quit := m.keys.Accept, m.keys.Back, m.keys.Quit
		accept.SetHelp("enter", verb)
		cancel.SetHelp("esc", "cancel")
		quit.SetHelp("ctrl+c", "quit")
		return m.footer(nil, []key.Binding{accept, cancel, quit}, m.width)
	}
	k := m.bindings()
	if m.dlg != nil {
		closer := k.Back
		closer.SetHelp("q/esc", "close")
		if m.showHelp {
			return m.footer(nil, []key.Binding{k.Help, closer}, m.width)
		}
		return m.footer(m.dlg.ShortHelp(k), []key.Binding{k.Help, closer}, m.width)
	}
	if m.errs.open && !m.showHelp {
		// The errors view scrolls and closes; the panes' keys wait.
		return m.footer([]key.Binding{k.Up, k.Down, k.PageDown, k.Top, k.Bottom}, []key.Binding{k.Help, k.Back, k.Quit}, m.width)
	}
	var live []key.Binding
	switch {
	case m.showHelp:
	case m.focus == paneDiff && !m.conv.on:
		live = k.DiffHelp()
	default:
		live = k.ShortHelp()
	}
	return m.footer(live, []key.Binding{k.Help, k.Back, k.Quit}, m.width)
}

// typingVerb is what enter does to the line being typed, or "" when
// none is.
func (m *Model) typingVerb() string {
	switch {
	case m.filtering:
		return "keep the filter"
	case m.search.typing:
		return "search"
	case m.jumping:
		return "go to the turn"
	}
	return ""
}

func (m *Model) helpView(h int) []string {
	lines := m.helpLines()
	lines = lines[clamp(m.helpTop, 0, max(len(lines)-h, 0)):]
	if len(lines) > h && h > 1 {
		lines = append(lines[:h-1], m.sty.dim.Render(" ↓ more below · j/k or space scrolls · esc closes"))
	}
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = fitStyled(lines[i], m.width)
		} else {
			out[i] = strings.Repeat(" ", m.width)
		}
	}
	return out
}

// helpLines is the whole help screen: keys, the status legend, the
// logged errors.
func (m *Model) helpLines() []string {
	k := m.bindings()
	var lines []string
	lines = append(lines, m.sty.dialogTitle.Render(" Keys")+m.sty.dim.Render("  (dimmed: not available here)"), "")
	// The first screen holds the help's title, a blank line and the
	// scrolling hint beside the keys.
	for _, l := range strings.Split(m.fullHelp(dedupeHelp(k.FullHelp()), k.FullHelpTitles(), m.mainHeight()-3), "\n") {
		lines = append(lines, " "+l)
	}
	lines = append(lines, "", m.sty.dialogTitle.Render(" File status"), "")
	for _, s := range []store.Status{store.StatusModified, store.StatusCreated, store.StatusDeleted,
		store.StatusUnchanged, store.StatusHandEdited, statusWriting, store.StatusFailed, store.StatusSkipped, store.StatusPurged, store.StatusMissingBlob} {
		l, w := statusInfo(s)
		lines = append(lines, "  "+l+"  "+w)
		if s == store.StatusModified {
			lines = append(lines, "  "+present.KindLetter+"  modified into another kind (folder → file, link → folder, …)")
		}
	}
	// The marks a rewound turn's files and a preview's rows add.
	lines = append(lines, "  k  kept as it is (by the rewind, or space in a preview)",
		"  C  in conflict (a revert): left as it is, or written with markers")
	// Prose wraps to the width, so it reads whole on a narrow screen.
	prose := func(text string) {
		for _, l := range wrapLines(text, max(m.width-1, 1), 2) {
			lines = append(lines, " "+l)
		}
	}
	lines = append(lines, "")
	prose("Turn marks: × rewound · − reverted · ↶ a rewind · ⤺ a revert · ↺ an undo · ↷ a redo")
	prose("⚠N: N files changed since the agent wrote them")
	prose("The status line: the project folder · its agent turns · the store's size, the sum of its files' lengths " +
		"(du counts disk blocks, so it shows more)")
	if len(m.hookErrs) > 0 {
		lines = append(lines, "")
		prose(fmt.Sprintf("%s logged: E shows them, newest first", present.Count(len(m.hookErrs), "error")))
	}
	return lines
}

// helpBlock is one group of keys as a column: every key, with those that
// cannot act now dimmed.
func (m *Model) helpBlock(title string, g []key.Binding) string {
	if len(g) == 0 {
		return ""
	}
	kw := 0
	for _, b := range g {
		kw = max(kw, ansi.StringWidth(b.Help().Key))
	}
	lines := []string{m.sty.dialogTitle.Render(title)}
	for _, b := range g {
		k, d := pad(b.Help().Key, kw), b.Help().Desc
		if b.Enabled() {
			lines = append(lines, m.sty.helpKey.Render(k)+"  "+d)
		} else {
			lines = append(lines, m.sty.dim.Render(k+"  "+d))
		}
	}
	return strings.Join(lines, "\n")
}

// fullHelp lays the help's groups out in bands across the width, each
// band a row of columns and a column one group or several stacked, in
// the order that shows the most keys of whole groups on the first screen
// (fold lines), then takes the fewest lines, then keeps the groups' own
// order. A group the fold would cut starts below it, so the first screen
// shows no group in part and the next page begins with it whole.
func (m *Model) fullHelp(groups [][]key.Binding, titles []string, fold int) string {
	var blocks []helpBox
	for i, g := range groups {
		title := ""
		if i < len(titles) {
			title = titles[i]
		}
		if b := m.helpBlock(title, g); b != "" {
			blocks = append(blocks, helpBox{text: b, w: lipgloss.Width(b), h: lipgloss.Height(b)})
		}
	}
	bands := bestHelpLayout(blocks, m.width-2, fold)
	var rows []string
	y := 0 // the line the band starts at
	for _, band := range bands {
		var cols []string
		for _, col := range band.cols {
			var parts []string
			top := y
			for i, k := range col.boxes {
				if i > 0 {
					top++ // the blank line between two groups
				}
				text := blocks[k].text
				if top > 0 && top < fold && top+blocks[k].h > fold {
					text = strings.Repeat("\n", fold-top) + text
					top = fold
				}
				parts = append(parts, text)
				top += blocks[k].h
			}
			cols = append(cols, lipgloss.NewStyle().PaddingRight(helpGap).Render(strings.Join(parts, "\n\n")))
		}
		row := lipgloss.JoinHorizontal(lipgloss.Top, cols...)
		rows = append(rows, row)
		y += lipgloss.Height(row) + 1
	}
	return strings.Join(rows, "\n\n")
}

// helpGap is the space right of each column of the help.
const helpGap = 4

// helpBox is one group of the help, drawn: its text and size.
type helpBox struct {
	text string
	w, h int
}

// helpBand is one row of the help's columns; a column lists the boxes
// stacked in it, top down.
type helpBand struct {
	cols []helpCol
	h    int
}

type helpCol struct {
	boxes []int
	w, h  int
}

// packHelp lays boxes out in the order given within width: each box is
// stacked in the band's shortest column that leaves the band as tall as
// it is, else starts a column of the band, else is stacked in the
// shortest column it fits in, else starts a band of its own.
func packHelp(boxes []helpBox, order []int, width int) []helpBand {
	var bands []helpBand
	for _, k := range order {
		b := boxes[k]
		if len(bands) > 0 {
			band := &bands[len(bands)-1]
			used := 0
			for _, c := range band.cols {
				used += c.w + helpGap
			}
			best := -1
			for i, c := range band.cols {
				grown := used - c.w + max(c.w, b.w)
				if c.h+1+b.h <= band.h && grown <= width && (best < 0 || c.h < band.cols[best].h) {
					best = i
				}
			}
			if best >= 0 {
				c := &band.cols[best]
				c.boxes, c.w, c.h = append(c.boxes, k), max(c.w, b.w), c.h+1+b.h
				continue
			}
			if used+b.w+helpGap <= width {
				band.cols = append(band.cols, helpCol{boxes: []int{k}, w: b.w, h: b.h})
				band.h = max(band.h, b.h)
				continue
			}
			// Stacked where the band grows least: never more than a band
			// of its own would take.
			for i, c := range band.cols {
				if used-c.w+max(c.w, b.w) <= width && (best < 0 || c.h < band.cols[best].h) {
					best = i
				}
			}
			if best >= 0 {
				c := &band.cols[best]
				c.boxes, c.w, c.h = append(c.boxes, k), max(c.w, b.w), c.h+1+b.h
				band.h = max(band.h, c.h)
				continue
			}
		}
		bands = append(bands, helpBand{cols: []helpCol{{boxes: []int{k}, w: b.w, h: b.h}}, h: b.h})
	}
	return bands
}

// helpHeight is the lines a layout takes, a blank one between bands.
func helpHeight(bands []helpBand) int {
	h := max(len(bands)-1, 0)
	for _, b := range bands {
		h += b.h
	}
	return h
}

// helpShown is the lines of the boxes a layout shows whole in its first
// fold lines.
func helpShown(boxes []helpBox, bands []helpBand, fold int) int {
	n, y := 0, 0
	for _, b := range bands {
		for _, c := range b.cols {
			top := y
			for _, k := range c.boxes {
				if top+boxes[k].h <= fold {
					n += boxes[k].h
				}
				top += boxes[k].h + 1
			}
		}
		y += b.h + 1
	}
	return n
}

// bestHelpLayout tries every order of the boxes (there are a handful)
// and keeps the layout that shows the most lines of whole boxes in its
// first fold lines; of those, the one of the fewest lines; of those, the
// first in the boxes' own order.
func bestHelpLayout(boxes []helpBox, width, fold int) []helpBand {
	order := make([]int, len(boxes))
	for i := range order {
		order[i] = i
	}
	best := packHelp(boxes, order, width)
	if len(boxes) > 7 {
		return best // too many orders to try: the groups' own
	}
	better := func(a, b []helpBand) bool {
		if sa, sb := helpShown(boxes, a, fold), helpShown(boxes, b, fold); sa != sb {
			return sa > sb
		}
		return helpHeight(a) < helpHeight(b)
	}
	var permute func(k int)
	permute = func(k int) {
		if k == len(order) {
			if l := packHelp(boxes, order, width); better(l, best) {
				best = l
			}
			return
		}
		for i := k; i < len(order); i++ {
			order[k], order[i] = order[i], order[k]
			permute(k + 1)
			order[k], order[i] = order[i], order[k]
		}
	}
	permute(0)
	return best
}

func progressBar(done, total, w int) string {
	label := fmt.Sprintf("applying… %d/%d ", done, total)
	bw := w - ansi.StringWidth(label) - 2
	if bw < 4 || total <= 0 {
		return label
	}
	n := bw * done / total
	return label + "[" + strings.Repeat("#", n) + strings.Repeat("-", bw-n) + "]"
}

// fitStyled is fit for text that already holds styles.
func fitStyled(s string, w int) string { return present.Fit(s, w) }

func pad(s string, w int) string {
	if sw := ansi.StringWidth(s); sw < w {
		return s + strings.Repeat(" ", w-sw)
	}
	return s
}

// dedupeHelp leaves out of the help a binding that cannot act now when
// another one of the same key can (f follows the newest turn in the
// panes, and forces an undo in a preview), and lists a key once when
// none of its bindings can act: the help never names a key twice.
func dedupeHelp(groups [][]key.Binding) [][]key.Binding {
	live := map[string]bool{}
	for _, g := range groups {
		for _, b := range g {
			if b.Enabled() {
				for _, k := range b.Keys() {
					live[k] = true
				}
			}
		}
	}
	seen := map[string]bool{}
	out := make([][]key.Binding, len(groups))
	for i, g := range groups {
		if i == keymap.PreviewGroup {
			out[i] = g // a preview's keys, under their own heading
			continue
		}
		for _, b := range g {
			first := b.Help().Key
			if !b.Enabled() && (seen[first] || anyKey(live, b.Keys())) {
				continue
			}
			seen[first] = true
			out[i] = append(out[i], b)
		}
	}
	return out
}

func anyKey(set map[string]bool, keys []string) bool {
	for _, k := range keys {
		if set[k] {
			return true
		}
	}
	return false
}
