package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ckpt-dev/ckpt/keymap"
	"github.com/ckpt-dev/ckpt/present"
)

// errorsView is the screen of the errors hooks logged in the store, newest
// first (E opens it). It only reads the log: `ckpt log --errors --clear`
// is what empties it.
type errorsView struct {
	open bool
	top  int
}

// loggedError is a line of the store's error log: when, and what.
type loggedError struct {
	at  time.Time // zero when the line has no time
	msg string
}

// parseLogged splits a log line into its time and its message.
func parseLogged(line string) loggedError {
	stamp, rest, ok := strings.Cut(line, " ")
	if ok {
		if at, err := time.Parse(time.RFC3339, stamp); err == nil {
			return loggedError{at: at, msg: rest}
		}
	}
	return loggedError{msg: line}
}

// errorsKey scrolls the errors view, or closes it.
func (m *Model) errorsKey(msg tea.KeyPressMsg, k keymap.KeyMap) tea.Cmd {
	h := m.mainHeight()
	switch {
	case key.Matches(msg, k.Back, k.Errors):
		m.errs.open = false
	case key.Matches(msg, k.Help):
		return m.openHelp() // esc comes back here
	case key.Matches(msg, k.Up):
		m.errs.top--
	case key.Matches(msg, k.Down):
		m.errs.top++
	case key.Matches(msg, k.PageUp):
		m.errs.top -= m.errorsBody(h) - 1
	case key.Matches(msg, k.PageDown):
		m.errs.top += m.errorsBody(h) - 1
	case key.Matches(msg, k.Top):
		m.errs.top = 0
	case key.Matches(msg, k.Bottom):
		m.errs.top = 1 << 30
	}
	m.errs.top = clamp(m.errs.top, 0, max(len(m.errorLines())-m.errorsBody(h), 0))
	return nil
}

// errorsFoot is the errors view's last lines: how to leave it and where
// the errors stay, wrapped to the width so the whole of it reads.
func (m *Model) errorsFoot() []string {
	foot := "esc closes · they stay logged: `ckpt log --errors` prints them, `ckpt log --errors --clear` empties the log"
	var out []string
	for _, l := range wrapLines(foot, max(m.width-1, 1), 2) {
		out = append(out, m.sty.dim.Render(present.Fit(" "+l, m.width)))
	}
	return out
}

// errorsBody is the rows of errors in a view h rows high.
func (m *Model) errorsBody(h int) int { return max(h-len(m.errorsFoot()), 1) }

// errorLines is the errors view's text: a title, then each logged error,
// newest first, with its age, wrapped to the width so the whole of it
// (the file and the reason) reads.
func (m *Model) errorLines() []string {
	w := max(m.width, 1)
	out := []string{m.sty.dialogTitle.Render(present.Fit(fmt.Sprintf(" Logged errors (%d, newest first)", len(m.hookErrs)), w))}
	if len(m.hookErrs) == 0 {
		return append(out, m.sty.dim.Render(present.Fit(" no errors logged", w)))
	}
	for i := len(m.hookErrs) - 1; i >= 0; i-- {
		e := m.hookErrs[i]
		when := "          "
		if !e.at.IsZero() {
			when = pad(present.Age(m.now(), e.at)+" ago", 10)
		}
		text := present.Escape(e.msg)
		for j, l := range strings.Split(ansi.Wrap(text, max(w-13, 8), " /"), "\n") {
			lead := " " + when + "  "
			if j > 0 {
				lead = strings.Repeat(" ", 13)
			}
			out = append(out, present.Fit(lead+l, w))
		}
	}
	return out
}

// errorsScreen draws the errors view in h rows.
func (m *Model) errorsScreen(h int) []string {
	lines := m.errorLines()
	body := m.errorsBody(h)
	top := clamp(m.errs.top, 0, max(len(lines)-body, 0))
	lines = lines[top:]
	out := make([]string, 0, h)
	for i := 0; i < body; i++ {
		if i < len(lines) {
			out = append(out, fitStyled(lines[i], m.width))
		} else {
			out = append(out, strings.Repeat(" ", m.width))
		}
	}
	out = append(out, m.errorsFoot()...)
	return out[:min(len(out), h)]
}

// errorNotice is the status line's word on the logged errors not yet
// hidden (x), or "".
func (m *Model) errorNotice() string {
	n := len(m.hookErrs) - m.errsSeen
	if n <= 0 {
		return ""
	}
	last := m.hookErrs[len(m.hookErrs)-1].msg
	return fmt.Sprintf("%s logged (E shows, x hides): %s", present.Count(n, "error"), present.Escape(last))
}
