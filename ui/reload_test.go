package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestReloadKeepsHandCounts: a log read without disk status shows the
// hand-edit counts of the last one read with it, also when a badge pass
// lands between its reading and its arrival.
func TestReloadKeepsHandCounts(t *testing.T) {
	f := sample()
	m := New(f, Options{Now: fixedNow, Poll: -1, NoWatch: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(loadLog(f, true, m.hand)())
	early := loadLog(f, false, m.hand) // issued before the next badge pass
	f.mu.Lock()
	f.disk["style.css"] = []byte("body { color: red; }\n") // a hand edit of turn 1's file
	f.mu.Unlock()
	m.Update(loadLog(f, true, m.hand)())
	want := map[string]int{"1": 1, "2": 0, "3": 1}
	check := func(when string) {
		t.Helper()
		for id, n := range want {
			i, ok := m.idx.byID[id]
			if !ok || m.entries[i].HandEdited != n {
				t.Errorf("%s: turn %s shows %d hand edits, want %d", when, id, m.entries[i].HandEdited, n)
			}
		}
	}
	check("after the badge pass")
	m.Update(early())
	check("after a reload read before the badge pass")
	m.Update(loadLog(f, false, m.hand)())
	check("after a reload read since")
}

// TestReloadCostsNoScan: the UI goroutine's part of a reload of 10,000
// turns builds nothing per turn for the badges kept or the status line's
// operation (the command that read the log did that).
func TestReloadCostsNoScan(t *testing.T) {
	f := bigFake()
	m := testModel(t, f, 200, 60)
	m.Update(loadLog(f, true, m.hand)())
	msg := loadLog(f, false, m.hand)()
	m.setStatus("rewound 3 files — u to undo")
	m.statusFor.op = "op-1" // not in the log: every entry would be looked at
	if n := testing.AllocsPerRun(5, func() { m.Update(msg) }); n > 4 {
		t.Errorf("a reload allocates %.0f times on the UI goroutine, want a few", n)
	}
	if m.status == "" {
		t.Error("the status about an operation not in the log yet went")
	}
}
