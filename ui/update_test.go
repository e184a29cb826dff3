package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ckpt-dev/ckpt/store"
)

func fixedNow() time.Time { return t0.Add(3 * time.Hour) }

// TestUpdateDoesNoIO sends every kind of key to Update without running the
// commands it returns: the store must not be called.
func TestUpdateDoesNoIO(t *testing.T) {
	f := sample()
	m := testModel(t, f, 100, 30)
	before := f.count()
	for _, k := range keys("j", "k", "tab", "enter", "n", "N", "v", "s", "r", "esc", "u", "esc", "ctrl+r", "esc",
		"/", "d", "a", "esc", "?", "esc", "G", "g", "down", "up") {
		m.Update(k)
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown, X: 70, Y: 5})
	m.Update(storeChangedMsg{})
	m.Update(tickMsg{})
	_ = m.View()
	if got := f.count(); got != before {
		t.Fatalf("Update or View called the store %d times", got-before)
	}
}

// TestFirstFrameThenBadges: the first frame comes from the log without
// disk status; the hand-edit badge appears once Init's commands ran.
func TestFirstFrameThenBadges(t *testing.T) {
	f := sample()
	m := New(f, Options{Now: fixedNow, Poll: -1, NoWatch: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	first := plain(m)
	mustContain(t, first, "read the port from config", "drop the legacy helpers", "add a dark theme")
	if strings.Contains(first, "⚠") {
		t.Fatalf("first frame already has badges:\n%s", first)
	}
	drive(t, m, m.Init())
	mustContain(t, plain(m), "⚠1", "! server.js", "changed since agent")
}

func TestMoveLoadsFilesAndDiff(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 30)
	mustContain(t, plain(m), "src/config.js", "server.js", "created")
	press(t, m, keys("j")...)
	if e := m.selected(); e == nil || e.ID != "2" {
		t.Fatalf("selected %+v, want turn 2", e)
	}
	s := plain(m)
	mustContain(t, s, "Files of turn 2", "D legacy.js", "deleted", "@@ -1,2 +0,0 @@", "- // old helpers")
	press(t, m, keys("j", "tab")...)
	if m.focus != paneFiles {
		t.Fatalf("focus %d after tab, want files", m.focus)
	}
	press(t, m, keys("j")...)
	mustContain(t, plain(m), "theme.css", "+ .dark { color: #eee; }")
}

func TestEscNeverQuits(t *testing.T) {
	for _, setup := range [][]string{nil, {"tab"}, {"tab", "tab"}, {"r"}, {"?"}, {"/"}, {"u"}} {
		t.Run(strings.Join(setup, "+"), func(t *testing.T) {
			m := testModel(t, sample(), 100, 30)
			press(t, m, keys(setup...)...)
			for i := 0; i < 4; i++ {
				_, cmd := m.Update(kp("esc"))
				if cmd != nil {
					if _, ok := cmd().(tea.QuitMsg); ok {
						t.Fatal("esc quit the program")
					}
				}
			}
			if m.dlg != nil || m.showHelp || m.filtering || m.focus != paneTurns {
				t.Fatalf("esc did not back out: dialog %v help %v filter %v focus %d", m.dlg != nil, m.showHelp, m.filtering, m.focus)
			}
		})
	}
}

func TestQuit(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c", "/ ctrl+c", "tab tab q", "r ctrl+c"} {
		m := testModel(t, sample(), 100, 30)
		ks := strings.Fields(k)
		press(t, m, keys(ks[:len(ks)-1]...)...)
		_, cmd := m.Update(kp(ks[len(ks)-1]))
		if cmd == nil {
			t.Fatalf("%s: no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Fatalf("%s does not quit", k)
		}
	}
	// In a preview, q closes the preview and never quits.
	m := testModel(t, sample(), 100, 30)
	press(t, m, keys("r", "q")...)
	if m.dlg != nil {
		t.Fatal("q did not close the preview")
	}
	// While filtering, q is a letter of the filter.
	m = testModel(t, sample(), 100, 30)
	press(t, m, keys("/", "q")...)
	if m.filter != "q" {
		t.Fatalf("filter %q after typing q", m.filter)
	}
}

func TestRewindPreviewConfirmUndoRedo(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 40)
	press(t, m, keys("j", "r")...)
	if m.dlg == nil || m.dlg.plan == nil {
		t.Fatal("r did not open a preview with a plan")
	}
	s := plain(m)
	mustContain(t, s, "Rewind to before turn 2", "Undoes 2 turns: 2, 3", "restore legacy.js",
		"delete  src/config.js", "! restore server.js", "changed since the agent wrote it")

	// esc cancels: nothing applied.
	press(t, m, kp("esc"))
	if m.dlg != nil || f.applyN != 0 {
		t.Fatalf("esc: dialog %v, applied %d", m.dlg != nil, f.applyN)
	}

	press(t, m, keys("r", "y")...)
	if f.applyN != 1 || m.dlg != nil {
		t.Fatalf("y: applied %d, dialog open %v", f.applyN, m.dlg != nil)
	}
	s = plain(m)
	mustContain(t, s, "rewound 2 turns · 3 files — u to undo", "↶ rewound 2 turns", "× drop the legacy helpers")
	if _, ok := f.disk["src/config.js"]; ok {
		t.Fatal("src/config.js still on disk after the rewind")
	}

	press(t, m, kp("u"))
	mustContain(t, plain(m), "Undo op-1", "Brings back 2 turns: 2, 3")
	press(t, m, kp("enter"))
	mustContain(t, plain(m), "undid op-1 · 3 files — ctrl+r to redo")
	if _, ok := f.disk["src/config.js"]; !ok {
		t.Fatal("undo did not bring src/config.js back")
	}
	if !strings.HasPrefix(string(f.disk["server.js"]), "// Serve the shop.") {
		t.Fatal("undo did not bring back the hand edit")
	}

	press(t, m, kp("ctrl+r"))
	mustContain(t, plain(m), "Redo op-1")
	press(t, m, kp("y"))
	mustContain(t, plain(m), "redid op-1 · 3 files — u to undo")
	if f.applyN != 3 {
		t.Fatalf("applied %d operations, want 3", f.applyN)
	}
}

func TestRewindRefusals(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		key    string
		status string
		force  bool
	}{
		{"nothing to undo", store.ErrNothingToUndo, "u", "nothing to undo", false},
		{"nothing to redo", store.ErrNothingToRedo, "ctrl+r", "nothing to redo", false},
		{"locked", errors.New("store is locked by a rewind in progress"), "r", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := sample()
			m := testModel(t, f, 120, 40)
			press(t, m, keys("j", "r", "y")...) // make an op so u and ctrl+r are live
			f.planErr = c.err
			press(t, m, kp("G")) // turn 1, still active
			press(t, m, kp(c.key))
			if c.status != "" {
				if m.dlg != nil || !strings.Contains(m.status, c.status) {
					t.Fatalf("status %q, dialog %v; want %q in the status line", m.status, m.dlg != nil, c.status)
				}
				return
			}
			if m.dlg == nil || m.dlg.err == nil {
				t.Fatal("the error is not in the dialog")
			}
			mustContain(t, plain(m), c.err.Error()[:20])
			if m.dlg.canForce != c.force {
				t.Fatalf("canForce %v, want %v", m.dlg.canForce, c.force)
			}
			// Confirm is off while the dialog shows an error.
			n := f.applyN
			press(t, m, kp("y"))
			if f.applyN != n {
				t.Fatal("y applied a plan that failed")
			}
		})
	}
}

// TestUndoOverNewerWork: an undo the store refuses because a newer turn
// wrote its paths opens as a preview of the forced undo, listing the work
// it would overwrite, with no --force or error chain on screen; y applies
// exactly that.
func TestUndoOverNewerWork(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 40)
	press(t, m, keys("j", "r", "y")...)
	f.write("4", "more work", t0.Add(10*time.Minute), "server.js", []byte("// turn 4\n"))
	drive(t, m, m.refresh(true))
	f.planErr = fmt.Errorf("undo op-1: turn 4 wrote server.js after it (--force to undo anyway): %w", store.ErrNewerTurn)
	press(t, m, kp("u"))
	if m.dlg == nil || m.dlg.plan == nil || !m.dlg.plan.Force {
		t.Fatalf("no forced plan on screen: %+v", m.dlg)
	}
	s := plain(m)
	mustContain(t, s, "overwrites their work", "server.js (turn 4)")
	if strings.Contains(s, "--force") || strings.Contains(s, "store: a newer turn") {
		t.Fatalf("the preview shows the error chain:\n%s", s)
	}
	n := f.applyN
	press(t, m, kp("y"))
	if f.applyN != n+1 {
		t.Fatal("y did not apply the forced plan on screen")
	}
}

func TestRewindOfOperationOrRewoundTurn(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 40)
	press(t, m, keys("j", "r", "y")...)
	press(t, m, keys("g", "r")...) // the op line
	if m.dlg != nil || !strings.Contains(m.status, "operation") {
		t.Fatalf("r on an operation: dialog %v status %q", m.dlg != nil, m.status)
	}
	press(t, m, keys("j", "r")...) // turn 3, rewound
	if m.dlg != nil || !strings.Contains(m.status, "already rewound") {
		t.Fatalf("r on a rewound turn: dialog %v status %q", m.dlg != nil, m.status)
	}
}

func TestFilter(t *testing.T) {
	m := testModel(t, sample(), 100, 30)
	press(t, m, keys("/", "d", "a", "r", "k")...)
	if len(m.turns.shown) != 1 || m.selected().ID != "1" {
		t.Fatalf("filter 'dark' shows %d entries", len(m.turns.shown))
	}
	mustContain(t, plain(m), "Turns (1 of 3 shown)", "/dark")
	press(t, m, kp("backspace"))
	if m.filter != "dar" {
		t.Fatalf("filter %q after backspace", m.filter)
	}
	press(t, m, kp("enter"))
	if m.filtering {
		t.Fatal("enter did not close the filter line")
	}
	mustContain(t, plain(m), "filter: dar")
	press(t, m, kp("esc"))
	if m.filter != "" || len(m.turns.shown) != 3 {
		t.Fatalf("esc left filter %q, %d shown", m.filter, len(m.turns.shown))
	}
}

func TestHunkJumps(t *testing.T) {
	f := newFake()
	var a, b strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&a, "line %d\n", i)
		if i == 10 || i == 50 || i == 90 {
			fmt.Fprintf(&b, "changed %d\n", i)
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	f.disk["big.txt"] = []byte(a.String())
	f.write("1", "three hunks", t0, "big.txt", []byte(b.String()))
	m := testModel(t, f, 100, 20)
	press(t, m, keys("tab", "enter")...)
	if m.focus != paneDiff {
		t.Fatalf("focus %d, want diff", m.focus)
	}
	hs := m.diff.d.Hunks(m.layout())
	if len(hs) != 3 {
		t.Fatalf("%d hunks, want 3", len(hs))
	}
	var tops []int
	for i := 0; i < 4; i++ {
		press(t, m, kp("n"))
		tops = append(tops, m.diff.top)
	}
	// The last hunk is near the end: the diff stops with its last line at
	// the bottom, the hunk in view.
	if tops[0] != hs[1] || tops[1] <= hs[1] || tops[2] != tops[1] || tops[1]+m.diffHeight()-1 <= hs[2] {
		t.Fatalf("n went to %v, hunks at %v", tops, hs)
	}
	mustContain(t, plain(m), "hunk 3/3", "changed 90")
	press(t, m, kp("N"))
	if m.diff.top != hs[1] {
		t.Fatalf("N went to %d, want %d", m.diff.top, hs[1])
	}
	// The pane is under sideMinWidth here: s is taken, and the diff says
	// why it stays unified; with the whole width (z) it is side by side.
	press(t, m, kp("s"))
	if m.layoutSide() || !strings.Contains(plain(m), "unified: side by side needs") {
		t.Fatalf("s in a %d-column pane:\n%s", m.diffWidth(), plain(m))
	}
	press(t, m, kp("z"))
	if !m.layoutSide() {
		t.Fatal("s did not switch to side by side")
	}
}

func TestDiffModes(t *testing.T) {
	m := testModel(t, sample(), 140, 30)
	press(t, m, keys("tab", "j")...) // server.js, changed since the agent
	f := m.selectedFile()
	if f == nil || f.Path != "server.js" || f.Status != store.StatusHandEdited {
		t.Fatalf("selected %+v", f)
	}
	mustContain(t, plain(m), "kept → disk now", "+ // Serve the shop.", "+ const config")
	press(t, m, kp("v"))
	s := plain(m)
	mustContain(t, s, "the agent's write", "+ const config")
	if strings.Contains(s, "Serve the shop") {
		t.Fatal("the agent's write shows the later hand edit")
	}
	press(t, m, kp("v"))
	s = plain(m)
	mustContain(t, s, "since the agent", "+ // Serve the shop.")
	if strings.Contains(s, "+ const config") {
		t.Fatal("changes since the agent show the agent's own edit")
	}
}

func TestDiffCachedPerBlobAndDisk(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 30)
	d1 := m.diff.d
	press(t, m, keys("j", "k")...)
	if m.diff.d != d1 {
		t.Fatal("same kept bytes and disk: diff computed again")
	}
	f.setDisk("src/config.js", []byte("module.exports = { port: 8080 };\n"))
	drive(t, m, m.refresh(true))
	if m.diff.d == d1 {
		t.Fatal("the disk changed but the diff did not")
	}
	mustContain(t, plain(m), "port: 8080")
}

func TestLiveRefresh(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 30)
	f.write("4", "a turn written while the UI runs", t0.Add(time.Hour), "notes.md", []byte("hello\n"))
	_, cmd := m.Update(storeChangedMsg{})
	drive(t, m, cmd)
	mustContain(t, plain(m), "a turn written while the UI runs", "Turns (4)")
	if e := m.selected(); e == nil || e.ID != "3" {
		t.Fatalf("cursor moved off turn 3 to %+v", e)
	}
}

func TestMouseWheelScrollsDiff(t *testing.T) {
	f := newFake()
	var b strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	f.write("1", "long file", t0, "long.txt", []byte(b.String()))
	m := testModel(t, f, 120, 30)
	press(t, m)
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown, X: 100, Y: 10})
	if m.diff.top != 3 {
		t.Fatalf("diff top %d after a wheel step, want 3", m.diff.top)
	}
}

// TestHostileLabelIsHarmless: a label and a path full of escape sequences
// reach the screen as visible text, never as sequences.
func TestHostileLabelIsHarmless(t *testing.T) {
	f := newFake()
	evil := "\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\u009b31m\u202eevil\r\nrm -rf"
	f.write("1\x1b[31m", evil, t0, "a\x1b[5mb.txt", []byte("\x1b]8;;http://x\x07link\x1b]8;;\x07\n"))
	f.errs = []string{"hook: \x1b[41mbad"}
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		m := testModel(t, f, size[0], size[1])
		mustContain(t, plain(m), `\x1b[2J`, `a\x1b[5mb.txt`)
		for _, view := range []func(){func() {}, func() { press(t, m, kp("r")) }, func() { press(t, m, kp("esc"), kp("?")) }} {
			view()
			s := screen(m)
			// Under the ASCII profile only SGR attributes (ESC [ … m) are
			// legitimate: strip them, and nothing else may remain.
			rest := sgr.ReplaceAllString(s, "")
			if i := strings.IndexAny(rest, "\x1b\x07\u009b\r\u202e"); i >= 0 {
				t.Fatalf("%dx%d: a control reached the screen at %d: %q", size[0], size[1], i, rest[max(i-20, 0):min(i+20, len(rest))])
			}
			for _, line := range strings.Split(plain(m), "\n") {
				if w := ansiWidth(line); w > size[0] {
					t.Fatalf("line %d wide at %d: %q", w, size[0], line)
				}
			}
		}
	}
}

// TestBadgePacing: while the watch works, changes reload the log at once
// but the badge pass (which hashes the disk) waits for the tick, at most
// once per badgeEvery ticks; with no changes it runs every badgeAnyway.
func TestBadgePacing(t *testing.T) {
	f := sample()
	m := testModel(t, f, 100, 30)
	m.watching = true
	start := f.statusLogs
	// A cheap pass follows the next tick.
	_, cmd := m.Update(storeChangedMsg{})
	drive(t, m, cmd)
	_, cmd = m.Update(tickMsg{})
	drive(t, m, cmd)
	if f.statusLogs != start+1 {
		t.Fatalf("%d badge passes after a change and a tick, want 1", f.statusLogs-start)
	}
	start = f.statusLogs
	// The rest pretends the pass is slow, as on a big store.
	slow := func() { m.badgeCost = 2 * slowBadge }
	slow()
	ticks := func(n int) {
		for i := 0; i < n; i++ {
			_, cmd := m.Update(tickMsg{})
			drive(t, m, cmd)
		}
	}
	for i := 0; i < 3; i++ {
		_, cmd := m.Update(storeChangedMsg{})
		drive(t, m, cmd)
	}
	if f.statusLogs != start {
		t.Fatalf("a change ran the badge pass at once (%d)", f.statusLogs-start)
	}
	ticks(badgeEvery)
	slow()
	if f.statusLogs != start+1 {
		t.Fatalf("%d badge passes after %d ticks, want 1", f.statusLogs-start, badgeEvery)
	}
	ticks(badgeAnyway - 1 - m.badgeAge)
	if f.statusLogs != start+1 {
		t.Fatalf("badge pass with nothing changed before %d ticks", badgeAnyway)
	}
	ticks(1)
	slow()
	if f.statusLogs != start+2 {
		t.Fatalf("no badge pass after %d quiet ticks", badgeAnyway)
	}
	// An operation gets its badges at once.
	press(t, m, keys("j", "r", "y")...)
	if f.statusLogs != start+3 {
		t.Fatalf("no badge pass after a rewind")
	}
}

func TestApplyShowsProgress(t *testing.T) {
	m := testModel(t, sample(), 100, 30)
	press(t, m, keys("j", "r")...)
	_, cmd := m.Update(kp("y"))
	if cmd == nil || !m.dlg.applying {
		t.Fatal("y did not start applying")
	}
	ch := make(chan tea.Msg, 1)
	m.Update(applyStartedMsg{dlg: m.dlg.id, ch: ch})
	m.Update(progressMsg{dlg: m.dlg.id, done: 2, total: 3})
	mustContain(t, plain(m), "applying… 2/3")
	// Neither esc nor q stops it halfway.
	for _, k := range []string{"esc", "q"} {
		_, cmd := m.Update(kp(k))
		if m.dlg == nil || cmd != nil {
			t.Fatalf("%s interrupted the operation", k)
		}
	}
}

func TestClickSelects(t *testing.T) {
	m := testModel(t, sample(), 120, 30)
	_, cmd := m.Update(tea.MouseClickMsg{Button: tea.MouseLeft, X: 5, Y: 3}) // third turn row
	drive(t, m, cmd)
	if e := m.selected(); e == nil || e.ID != "1" {
		t.Fatalf("click selected %+v, want turn 1", e)
	}
	_, cmd = m.Update(tea.MouseClickMsg{Button: tea.MouseLeft, X: 90, Y: 5})
	drive(t, m, cmd)
	if m.focus != paneDiff {
		t.Fatalf("click on the diff focused pane %d", m.focus)
	}
}

// TestRewatchOnNewTurns: the store watches the folders its turns touched
// when the watch began, so new turns start a new watch, and messages
// from the old one are ignored.
func TestRewatchOnNewTurns(t *testing.T) {
	f := sample()
	m := New(f, Options{Now: fixedNow, Poll: -1})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	cmd := m.rewatch()
	gen := m.watchGen
	msg := cmd().(watchStartedMsg)
	m.Update(msg)
	if !m.watching || m.watchGen != gen {
		t.Fatal("watch did not start")
	}
	f.write("4", "new folder", t0.Add(time.Hour), "docs/a.md", []byte("a\n"))
	_, next := m.Update(loadLog(f, false, m.hand)())
	if m.watchGen != gen+1 {
		t.Fatalf("watch generation %d after a new turn, want %d", m.watchGen, gen+1)
	}
	_ = next
	before := f.count()
	if _, c := m.Update(storeChangedMsg{gen: gen}); c != nil {
		t.Fatal("a change from the old watch was acted on")
	}
	m.Update(watchEndedMsg{gen: gen})
	if !m.watching {
		t.Fatal("the old watch ending stopped the new one")
	}
	if f.count() != before {
		t.Fatal("Update called the store")
	}
}

func mustLog(t *testing.T, f *fakeStore) []store.Entry {
	t.Helper()
	e, err := f.Log(false)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestFilterCountsTurns: the filtered title counts turns against the
// turns, as the title does unfiltered, and names the operations the
// filter matched besides.
func TestFilterCountsTurns(t *testing.T) {
	m := testModel(t, sample(), 120, 30)
	press(t, m, keys("j", "r", "y")...) // rewinds turns 2 and 3: op-1
	mustContain(t, plain(m), "Turns (3)")
	press(t, m, keys("/", "r", "e", "w")...)
	mustContain(t, plain(m), "Turns (2 of 3 shown) · 1 operation")
	press(t, m, keys("backspace", "backspace", "backspace", "d", "r", "o", "p")...)
	mustContain(t, plain(m), "Turns (1 of 3 shown)")
}
