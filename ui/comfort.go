package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ckpt-dev/ckpt/diffview"
	"github.com/ckpt-dev/ckpt/keymap"
	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

// The keys lazygit and tig users reach for: the conversation beside the
// files, wrapping and the ends of long lines, a turn by its id, a path to
// the clipboard, turns with no files out of the way, and the mouse
// handed back to the terminal.

// comfortBindings enables this file's keys where they can act; diff is
// the diff in the focused pane, if any.
func (m *Model) comfortBindings(k *keymap.KeyMap, diff *diffview.Diff) {
	e := m.selected()
	k.Conversation.SetEnabled(e != nil && e.Kind == store.KindAgent || m.conv.on)
	k.Wrap.SetEnabled(diff != nil)
	k.LineStart.SetEnabled(diff != nil && m.diff.left > 0)
	k.LineEnd.SetEnabled(diff != nil && !m.wrap)
	k.JumpTurn.SetEnabled(len(m.entries) > 0)
	k.CopyPath.SetEnabled(m.selectedFile() != nil && m.focus != paneTurns)
	k.HideEmpty.SetEnabled(len(m.entries) > 0)
	k.Mouse.SetEnabled(true)
	if m.conv.on && m.focus == paneDiff {
		for _, b := range []*key.Binding{&k.NextHunk, &k.PrevHunk, &k.Left, &k.Right, &k.Search, &k.Wrap, &k.LineStart, &k.LineEnd} {
			b.SetEnabled(false)
		}
	}
}

// comfortKey handles this file's keys; ok says the key was one of them.
func (m *Model) comfortKey(msg tea.KeyPressMsg, k keymap.KeyMap) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, k.Conversation):
		m.conv = convPane{on: !m.conv.on}
		return nil, true // Update asks for it (syncConversation)
	case m.conv.on && m.focus == paneDiff && (key.Matches(msg, k.Up) || key.Matches(msg, k.Down) ||
		key.Matches(msg, k.PageUp) || key.Matches(msg, k.PageDown) || key.Matches(msg, k.Top)):
		delta := 1
		switch {
		case key.Matches(msg, k.Up):
			delta = -1
		case key.Matches(msg, k.PageUp):
			delta = -max(m.diffHeight()-1, 1)
		case key.Matches(msg, k.PageDown):
			delta = max(m.diffHeight()-1, 1)
		case key.Matches(msg, k.Top):
			delta = -m.conv.top
		}
		m.conv.top = clamp(m.conv.top+delta, 0, max(len(m.convLines(m.diffWidth()))-m.diffHeight(), 0))
		return nil, true
	case key.Matches(msg, k.Wrap):
		m.wrap = !m.wrap
		m.diff.left, m.diff.top = 0, 0
		m.findAll()
		return nil, true
	case key.Matches(msg, k.LineStart):
		m.diff.left = 0
		return nil, true
	case key.Matches(msg, k.LineEnd):
		m.diff.left = max(m.diff.d.Longest()-m.textWidth()+1, 0)
		return nil, true
	case key.Matches(msg, k.JumpTurn):
		m.jumping = true
		m.input.SetValue("")
		m.input.Prompt = "turn: "
		m.sizeInput()
		return m.input.Focus(), true
	case key.Matches(msg, k.CopyPath):
		f := m.selectedFile()
		m.setStatus("copied " + present.Escape(f.Path) + " (to the terminal's clipboard, OSC 52)")
		return tea.SetClipboard(f.Path), true
	case key.Matches(msg, k.HideEmpty):
		m.hideEmpty = !m.hideEmpty
		m.turns.cur = list{}
		m.refilter()
		return m.selectTurn(false), true
	case key.Matches(msg, k.Mouse):
		m.noMouse = !m.noMouse
		if m.noMouse {
			m.setStatus("mouse off: the terminal selects text (M turns it back on)")
		} else {
			m.setStatus("mouse on: the wheel scrolls, a click selects")
		}
		return nil, true
	}
	return nil, false
}

// jumpKey reads a turn id: enter goes to that turn, esc gives up.
func (m *Model) jumpKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case msg.Code == tea.KeyEnter:
		m.jumping = false
		m.input.Blur()
		m.input.Prompt = ""
		id := strings.TrimSpace(m.input.Value())
		if id == "" {
			return nil
		}
		return m.goToTurn(id)
	case key.Matches(msg, m.keys.Back):
		m.jumping = false
		m.input.Blur()
		m.input.Prompt = ""
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// goToTurn puts the cursor on turn id, clearing a filter or showing the
// hidden empty turns if they hide it.
func (m *Model) goToTurn(id string) tea.Cmd {
	at, ok := m.idx.byID[id]
	if !ok {
		m.setStatus("no turn " + present.Escape(id))
		return nil
	}
	find := func() int {
		for row, idx := range m.turns.shown {
			if idx == at {
				return row
			}
			for _, f := range m.turns.folded[idx] {
				if f == at {
					return row
				}
			}
		}
		return -1
	}
	row := find()
	if row < 0 {
		m.filter, m.hideEmpty = "", false
		m.input.SetValue("")
		m.refilter()
		row = find()
	}
	if row < 0 {
		return nil
	}
	m.follow = false
	m.focus = paneTurns
	m.turns.cur.cur = row
	m.turns.cur.clip(len(m.turns.shown), m.turnsHeight())
	return m.selectTurn(false)
}

// hiddenEmpty counts the agent turns H hides: those that changed no file
// (a question answered without writing).
func (m *Model) hiddenEmpty() int {
	if !m.hideEmpty {
		return 0
	}
	return m.idx.empty
}

func emptyTurn(e *store.Entry) bool { return e.Kind == store.KindAgent && e.Files == 0 }

// textWidth is the columns of text a unified diff row shows after its
// line numbers and sign.
func (m *Model) textWidth() int {
	return max(m.diffWidth()-m.gutter(), 1)
}

// gutter is the width of a unified row's line numbers and sign.
func (m *Model) gutter() int {
	if m.diff.d == nil {
		return 0
	}
	old, nw := 0, 0
	for _, r := range m.diff.d.Rows() {
		old = max(old, r.Old, r.New)
	}
	for ; old > 0; old /= 10 {
		nw++
	}
	nw = max(nw, 1)
	return 2*nw + 2 + 2
}

// step is how far h and l scroll: a third of the text's width, never
// less than sideStep, so a long line is crossed in a few presses.
func (m *Model) step() int {
	return max(sideStep, m.textWidth()/3)
}

// showMatch scrolls sideways so the search's match on the top row is on
// screen (unified rows; side by side keeps its scroll).
func (m *Model) showMatch() {
	d := m.diff.d
	if d == nil || m.search.query == "" || m.layout() != diffview.Unified || m.wrap {
		return
	}
	rows := d.Rows()
	if m.diff.top < 0 || m.diff.top >= len(rows) {
		return
	}
	text := rows[m.diff.top].Text
	i := strings.Index(strings.ToLower(text), strings.ToLower(m.search.query))
	if i < 0 {
		return
	}
	col := ansi.StringWidth(text[:i])
	end := col + ansi.StringWidth(m.search.query)
	if col >= m.diff.left && end <= m.diff.left+m.textWidth() {
		return // already in view
	}
	m.diff.left = max(col-m.textWidth()/4, 0)
}

// wrappedRows draws diff rows from top wrapped to w, until h lines.
func (m *Model) wrappedRows(d *diffview.Diff, l diffview.Layout, w, h int, v diffview.View) []string {
	var out []string
	wide := min(max(d.Longest()+m.gutter()+2, w), 16<<10)
	for i := m.diff.top; i < d.Len(l) && len(out) < h; i++ {
		line := d.LineView(i, wide, l, m.sty.diff, v)
		for k := 0; k*w < wide && len(out) < h; k++ {
			part := ansi.Cut(line, k*w, (k+1)*w)
			if k > 0 && strings.TrimSpace(ansi.Strip(part)) == "" {
				break
			}
			out = append(out, pad(part, w))
		}
	}
	return out
}

// changedLine is the line of the file as it is now where the first
// change on screen stands, in either layout; 0 when none is on screen.
func (m *Model) changedLine() int {
	if m.diff.d == nil {
		return 0
	}
	return m.diff.d.ChangedLine(m.diff.top, m.diff.top+m.diffHeight(), m.layout())
}

// currentHunk is the index of the hunk the diff is at: the one n or N
// went to while it is on screen, else the last that starts at or above
// the top row (the first when none does).
func (m *Model) currentHunk() int {
	d := m.diff.d
	if d == nil {
		return 0
	}
	hs := d.Hunks(m.layout())
	if m.diff.hunkSet && m.diff.hunk < len(hs) {
		if h := hs[m.diff.hunk]; h >= m.diff.top && h < m.diff.top+m.diffHeight() {
			return m.diff.hunk
		}
	}
	cur := 0
	for i, h := range hs {
		if h <= m.diff.top {
			cur = i
		}
	}
	return cur
}
