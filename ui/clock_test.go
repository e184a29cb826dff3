package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestAgesTickWhileIdle: with the watch doing the work and nothing to
// refresh, the ages on screen still move: a tick is set for when the
// newest turn's age next changes ("3s" → "4s"), and each tick sets the
// next; minutes old, the tick comes when its minute turns.
func TestAgesTickWhileIdle(t *testing.T) {
	f := sample()
	newest := t0.Add(2 * time.Minute) // turn 3
	now := newest.Add(3*time.Second + 200*time.Millisecond)
	m := New(f, Options{Now: func() time.Time { return now }, Poll: time.Hour, NoWatch: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.watching = true // the watch brings changes; the refresh tick rests
	row := func() string {
		for _, l := range strings.Split(plain(m), "\n") {
			if strings.Contains(l, "read the port") {
				l, _, _ = strings.Cut(l, "│") // the turns pane's part
				return strings.TrimRight(l, " ")
			}
		}
		t.Fatalf("no row for turn 3:\n%s", plain(m))
		return ""
	}
	if !strings.HasSuffix(row(), " 3s") {
		t.Fatalf("turn 3's row: %q, want its age 3s", row())
	}
	for _, want := range []string{"4s", "5s"} {
		if m.clockAt.IsZero() {
			t.Fatalf("no clock tick set while the screen shows %q", row())
		}
		if got := m.clockAt.Sub(now); got <= 0 || got > time.Second {
			t.Fatalf("the clock ticks in %v, want within the second", got)
		}
		now = m.clockAt
		if _, cmd := m.Update(clockMsg{gen: m.clockGen}); cmd == nil {
			t.Fatal("the clock's tick set no next tick")
		}
		if !strings.HasSuffix(row(), " "+want) {
			t.Fatalf("after the tick turn 3's row is %q, want its age %s", row(), want)
		}
	}
	// Minutes old: the next tick is when the newest turn's minute turns.
	now = newest.Add(5*time.Minute + 20*time.Second)
	m.Update(clockMsg{gen: m.clockGen})
	if got := m.clockAt.Sub(now); got != 40*time.Second {
		t.Fatalf("5m20s old, the clock ticks in %v, want 40s", got)
	}
	// A tick set aside for a sooner one does not clear it.
	gen := m.clockGen
	m.Update(clockMsg{gen: gen - 1})
	if m.clockAt.IsZero() || m.clockGen != gen {
		t.Fatal("a superseded tick took the clock's place")
	}
}

// TestAgeColumnFollowsTheClock: the age column's width, worked out once a
// second, grows when an age grows a digit (9s → 10s), so ages stay
// right-aligned in one width.
func TestAgeColumnFollowsTheClock(t *testing.T) {
	f := sample()
	newest := t0.Add(2 * time.Minute) // turn 3; the others are minutes old
	now := newest.Add(9*time.Second + 500*time.Millisecond)
	m := New(f, Options{Now: func() time.Time { return now }, Poll: -1, NoWatch: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	ends := func() map[int]bool {
		out := map[int]bool{}
		for _, l := range strings.Split(plain(m), "\n") {
			l, _, _ = strings.Cut(l, "│")
			if r := []rune(l); len(r) > 2 && (r[0] == ' ' || r[0] == '›') && r[1] >= '1' && r[1] <= '3' && r[2] == ' ' {
				out[len([]rune(strings.TrimRight(l, " ")))] = true
			}
		}
		return out
	}
	if got := m.ageWidth(); got != 2 {
		t.Fatalf("the widest age at 9s and minutes is %d wide, want 2", got)
	}
	now = now.Add(time.Second) // 10s
	if got := m.ageWidth(); got != 3 {
		t.Fatalf("a second later the widest age is %d wide, want 3 (10s)", got)
	}
	if e := ends(); len(e) != 1 || !strings.Contains(plain(m), "10s│") {
		t.Fatalf("the turns' rows end in %d columns, want one:\n%s", len(e), plain(m))
	}
}
