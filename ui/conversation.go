package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

// Conversation is what a turn's agent was asked and said, read from the
// agent's own transcript (raw text: the pane escapes it).
type Conversation struct {
	Prompt string
	Reply  string
	Calls  []ToolCall
	From   string // the transcript it was read from
	Note   string // what could not be read of it, if anything
}

// ToolCall is one tool call of a turn, in order.
type ToolCall struct {
	Name   string
	Target string // the path or command it was given
	State  string // "ok", "failed", or "" when no result was recorded
}

// convPane is the conversation shown in the diff pane's place (c).
type convPane struct {
	on      bool
	turn    string // the turn shown, or asked for
	c       *Conversation
	err     error
	loading bool
	top     int
}

// conversationLoadedMsg brings a turn's conversation.
type conversationLoadedMsg struct {
	turn string
	c    *Conversation
	err  error
}

// loadConversation reads e's conversation: the transcript is another
// program's file, read off the UI goroutine, and a failure costs this
// view only.
func loadConversation(st Store, e store.Entry) tea.Cmd {
	return func() tea.Msg {
		c, err := st.Conversation(e)
		return conversationLoadedMsg{turn: e.ID, c: c, err: err}
	}
}

// syncConversation asks for the selected turn's conversation when the
// pane shows conversations and has another turn's.
func (m *Model) syncConversation() tea.Cmd {
	e := m.selected()
	if !m.conv.on || e == nil || e.ID == m.conv.turn || m.st == nil {
		return nil
	}
	m.conv = convPane{on: true, turn: e.ID, loading: e.Kind == store.KindAgent}
	if e.Kind != store.KindAgent {
		return nil
	}
	return loadConversation(m.st, *e)
}

func (m *Model) conversationLoaded(msg conversationLoadedMsg) {
	if msg.turn != m.conv.turn {
		return // the cursor moved on
	}
	m.conv.c, m.conv.err, m.conv.loading = msg.c, msg.err, false
}

// convLines is the conversation pane's text, wrapped to w.
func (m *Model) convLines(w int) []string {
	var out []string
	text := func(s string, style func(...string) string) {
		for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			for _, wl := range wrapLines(present.Escape(l), max(w-3, 1), 0) {
				out = append(out, style("  "+wl))
			}
		}
	}
	plainStyle := func(s ...string) string { return strings.Join(s, "") }
	e := m.selected()
	switch {
	case e == nil:
		return []string{m.sty.dim.Render(" no turn selected")}
	case e.Kind != store.KindAgent:
		return []string{m.sty.dim.Render(" an operation has no conversation: c or esc shows the diff again")}
	case m.conv.loading:
		return []string{m.sty.dim.Render(" reading the transcript…")}
	case m.conv.err != nil:
		text("No conversation to show: "+m.conv.err.Error(), m.sty.dim.Render)
		return out
	case m.conv.c == nil:
		return nil
	}
	c := m.conv.c
	out = append(out, m.sty.dialogTitle.Render(" Prompt"))
	text(c.Prompt, plainStyle)
	out = append(out, "", m.sty.dialogTitle.Render(" Reply"))
	if strings.TrimSpace(c.Reply) == "" {
		out = append(out, m.sty.dim.Render("  (none yet)"))
	} else {
		text(c.Reply, plainStyle)
	}
	out = append(out, "", m.sty.dialogTitle.Render(fmt.Sprintf(" Tool calls (%d)", len(c.Calls))))
	for _, k := range c.Calls {
		mark, style := "?", m.sty.dim
		switch k.State {
		case "ok":
			mark, style = "✓", m.sty.letter["A"]
		case "failed":
			mark, style = "✗", m.sty.fail
		}
		target := present.Escape(k.Target)
		if rel, ok := strings.CutPrefix(k.Target, strings.TrimSuffix(m.root, "/")+"/"); ok {
			target = present.Escape(rel)
		}
		out = append(out, present.Fit("  "+style.Render(mark)+" "+m.sty.helpKey.Render(present.Escape(k.Name))+"  "+target, w))
	}
	out = append(out, "")
	text("from "+c.From, m.sty.dim.Render)
	if c.Note != "" {
		text(c.Note, m.sty.dim.Render)
	}
	return out
}

// convView draws the conversation in the diff pane's place.
func (m *Model) convView(w, h int) []string {
	e := m.selected()
	title := []part{{text: "Conversation"}}
	if e != nil {
		title[0] = part{text: "Conversation of turn " + present.Escape(e.ID), short: "Conversation", weight: 3, keep: true}
		if e.Source != nil && e.Source.Agent != "" {
			title = append(title, part{text: present.Escape(e.Source.Agent), weight: 1})
		}
	}
	title = append(title, part{text: "c/esc: the diff", weight: 2})
	out := []string{m.sty.paneTitle(fitParts(title, max(w-1, 0)), w, m.focus == paneDiff)}
	lines := m.convLines(w)
	top := clamp(m.conv.top, 0, max(len(lines)-(h-1), 0))
	for _, l := range lines[min(top, len(lines)):] {
		if len(out) >= h {
			break
		}
		out = append(out, present.Fit(l, w))
	}
	for len(out) < h {
		out = append(out, strings.Repeat(" ", w))
	}
	return out
}
