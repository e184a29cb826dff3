package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// loggedErrors are two errors the hooks logged, oldest first.
var loggedErrors = []string{
	"2026-11-29T12:00:00Z hook claude: read .claude/settings.local.json: unexpected end of JSON input",
	"2026-11-29T14:30:00Z hook codex: capture src/app.js: permission denied",
}

// trustScreen is a screen of what a person must be able to trust: the
// errors, each status line after the store or the selection changed, and
// a rewound turn. do runs after the keys (a change made by the CLI).
type trustScreen struct {
	name string
	errs bool
	keys []string
	do   func(t *testing.T, m *Model, f *fakeStore)
	more []string // keys after do
}

// cliUndo is `ckpt undo` run beside the UI, which learns of it from its
// watch of the store.
func cliUndo(t *testing.T, m *Model, f *fakeStore) {
	cliApply(t, f, true)
	drive(t, m, m.refresh(true))
}

var trustScreens = []trustScreen{
	{name: "errors_notice", errs: true},
	{name: "errors_view", errs: true, keys: []string{"E"}},
	{name: "errors_hidden", errs: true, keys: []string{"x"}},
	{name: "errors_view_after_x", errs: true, keys: []string{"x", "E"}},
	{name: "status_after_cli_undo", keys: []string{"j", "r", "y"}, do: cliUndo},
	{name: "status_after_cli_undo_redo", keys: []string{"j", "r", "y", "u", "y"}, do: func(t *testing.T, m *Model, f *fakeStore) {
		cliApply(t, f, false) // ckpt redo
		drive(t, m, m.refresh(true))
	}},
	{name: "following", keys: []string{"G", "f"}},
	{name: "following_then_move", keys: []string{"G", "f", "j"}},
	{name: "already_rewound", keys: []string{"j", "r", "y", "k", "r"}},
	{name: "preview_after_already_rewound", keys: []string{"j", "r", "y", "k", "r", "j", "j", "r"}},
	{name: "rewound_turn", keys: []string{"j", "r", "y", "k"}},
	{name: "rewound_turn_diff", keys: []string{"j", "r", "y", "k", "tab", "enter"}},
}

// TestGoldenTrust compares those screens with testdata/ under the ASCII
// profile (`go test ./ui -run TestGoldenTrust -update` writes them).
func TestGoldenTrust(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"120x36", 120, 36}} {
		for _, s := range trustScreens {
			t.Run(size.name+"/"+s.name, func(t *testing.T) {
				f := sample()
				if s.errs {
					f.errs = append([]string(nil), loggedErrors...)
				}
				m := testModel(t, f, size.w, size.h)
				press(t, m, keys(s.keys...)...)
				if s.do != nil {
					s.do(t, m, f)
				}
				press(t, m, keys(s.more...)...)
				golden.RequireEqual(t, fullScreen(t, m, size.w, size.h))
			})
		}
	}
}

// TestGoldenTrustSays holds the goldens to what they are for, so an
// -update cannot quietly write a stale or hidden screen.
func TestGoldenTrustSays(t *testing.T) {
	cases := map[string]struct{ want, not []string }{
		"errors_notice":                 {want: []string{"2 errors logged (E shows, x hides)"}, not: []string{"2026-11-29T"}},
		"errors_view":                   {want: []string{"Logged errors (2, newest first)", "permission denied", "--errors --clear"}},
		"errors_hidden":                 {not: []string{"errors logged", "x hides"}},
		"errors_view_after_x":           {want: []string{"Logged errors (2, newest first)", "unexpected end of JSON"}},
		"status_after_cli_undo":         {not: []string{"u to undo"}},
		"status_after_cli_undo_redo":    {not: []string{"ctrl+r to redo"}},
		"following":                     {want: []string{"following the newest turn"}},
		"following_then_move":           {not: []string{"following the newest turn"}},
		"already_rewound":               {want: []string{"already rewound"}},
		"preview_after_already_rewound": {want: []string{"Undoes"}, not: []string{"already rewound"}},
		"rewound_turn":                  {want: []string{"rewound by op-1"}, not: []string{"= src/config.js", "no changes"}},
		"rewound_turn_diff":             {want: []string{"what the agent did", "module.exports"}},
	}
	for _, s := range trustScreens {
		c, ok := cases[s.name]
		if !ok {
			t.Errorf("screen %s says nothing it must", s.name)
			continue
		}
		f := sample()
		if s.errs {
			f.errs = append([]string(nil), loggedErrors...)
		}
		m := testModel(t, f, 120, 36)
		press(t, m, keys(s.keys...)...)
		if s.do != nil {
			s.do(t, m, f)
		}
		press(t, m, keys(s.more...)...)
		got := plain(m)
		mustContain(t, got, c.want...)
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: the screen says %q:\n%s", s.name, n, got)
			}
		}
		if s.errs && len(f.errs) != len(loggedErrors) {
			t.Errorf("%s: the store's error log lost entries: %d left", s.name, len(f.errs))
		}
	}
}

// TestFlowTrust drives the whole program through what a newcomer must be
// able to trust: the logged errors are one key away and x hides only the
// notice; a rewind's "u to undo" is recomputed when ckpt undo runs from
// the CLI; a rewound turn shows what the agent did.
func TestFlowTrust(t *testing.T) {
	f := sample()
	f.errs = append([]string(nil), loggedErrors...)
	m := New(f, Options{Now: fixedNow, Poll: -1})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 36),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.ASCII)))
	waitText(t, tm, "errors", "logged", "E", "shows")

	send(tm, "E")
	waitText(t, tm, "Logged", "newest", "permission", "--clear")
	send(tm, "esc", "x")
	send(tm, "j", "r")
	waitText(t, tm, "Undoes", "y/enter")
	send(tm, "y")
	waitText(t, tm, "undo", "op-1")

	cliApply(t, f, true) // ckpt undo, beside the UI
	f.notify()
	waitText(t, tm, "undid")

	send(tm, "k") // turn 3: rewound by op-1, undone by op-2 — active again
	send(tm, "q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(*Model)
	if strings.Contains(final.status, "u to undo") {
		t.Fatalf("after ckpt undo from the CLI the status still says %q", final.status)
	}
	if len(f.errs) != len(loggedErrors) {
		t.Fatalf("x emptied the error log: %d left", len(f.errs))
	}
	if final.errsSeen != len(loggedErrors) {
		t.Fatal("x did not hide the notice")
	}
}

// TestNewTurnsNoticeGoesStale: "N new turns since you looked" counts only
// the turns still above the cursor, and gives way to the result of an
// operation the person applies (with its undo key).
func TestNewTurnsNoticeGoesStale(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 30)
	press(t, m, keys("j", "j")...) // turn 1
	f.write("4", "four", t0.Add(3*time.Minute), "four.txt", []byte("4\n"))
	f.write("5", "five", t0.Add(4*time.Minute), "five.txt", []byte("5\n"))
	drive(t, m, m.refresh(true))
	mustContain(t, plain(m), "2 new turns since you looked")
	press(t, m, kp("k"), kp("k"), kp("k")) // turn 4: turn 5 is above, unseen
	mustContain(t, plain(m), "1 new turn since you looked")
	press(t, m, keys("r", "y")...)
	s := plain(m)
	mustContain(t, s, "u to undo")
	if strings.Contains(s, "since you looked") {
		t.Fatalf("the notice hides the result of the rewind:\n%s", s)
	}
}
