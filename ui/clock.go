package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ckpt-dev/ckpt/present"
)

// The clock: a turn's age on screen ("3s", "5m") is worked out from the
// time each frame is drawn, so it is current only if a frame is drawn as
// it changes. The refresh tick stops while the watch does its work (an
// idle screen costs nothing), so the clock sets one tick of its own, for
// the moment the first age on screen next reads differently: every
// second while a turn on screen is under a minute old, every minute
// after, at most a minute apart, and none while no age is on screen. It
// does no I/O: the tick only draws a frame.

// clockMsg is the clock's tick; gen tells a tick set aside for a sooner
// one (a new turn, a scroll back to the newest) from the one that counts.
type clockMsg struct{ gen int }

// clockMost is the longest the clock waits while an age is on screen: the
// age column's width follows every turn's age, shown or not.
const clockMost = time.Minute

// armClock sets the clock's tick for when the first age on screen next
// changes, unless the tick already set comes as soon.
func (m *Model) armClock() tea.Cmd {
	if m.opt.Poll < 0 {
		return nil
	}
	next, ok := m.agesChange()
	if !ok {
		return nil
	}
	at := m.now().Add(next)
	if !m.clockAt.IsZero() && !at.Before(m.clockAt) {
		return nil
	}
	m.clockAt = at
	m.clockGen++
	gen := m.clockGen
	return tea.Tick(next, func(time.Time) tea.Msg { return clockMsg{gen} })
}

// clockRang takes the clock's tick: the frame drawn after it shows the
// ages as they are now, and Update sets the next tick.
func (m *Model) clockRang(msg clockMsg) {
	if msg.gen == m.clockGen {
		m.clockAt = time.Time{}
	}
}

// agesChange is how long until an age on screen next reads differently,
// at most clockMost; ok is false when none is on screen or none will.
func (m *Model) agesChange() (next time.Duration, ok bool) {
	now := m.now()
	next = clockMost
	see := func(at time.Time) {
		if d, changes := present.AgeChange(now, at); changes {
			next, ok = min(next, d), true
		}
	}
	switch {
	case m.width <= 0 || m.height <= 0 || m.showHelp || m.dlg != nil:
	case m.errs.open:
		for _, e := range m.hookErrs {
			see(e.at)
		}
	case m.leftWidth() > 0:
		end := min(m.turns.cur.top+m.turnsHeight(), len(m.turns.shown))
		for i := max(m.turns.cur.top, 0); i < end; i++ {
			see(m.entries[m.turns.shown[i]].At)
		}
	}
	return next, ok
}
