package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ckpt-dev/ckpt/diffview"
)

// longFake has one turn whose file changed on every tenth line of 300.
func longFake() *fakeStore {
	f := newFake()
	var a, b strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&a, "line %d of a long file with some words on it to scroll sideways past the edge\n", i)
		if i%10 == 5 {
			fmt.Fprintf(&b, "line %d of a long file, CHANGED, with some words on it to scroll sideways past the edge\n", i)
		} else {
			fmt.Fprintf(&b, "line %d of a long file with some words on it to scroll sideways past the edge\n", i)
		}
	}
	f.disk["long.txt"] = []byte(a.String())
	f.write("1", "change a long file", t0, "long.txt", []byte(b.String()))
	return f
}

func TestDiffSearch(t *testing.T) {
	m := testModel(t, longFake(), 100, 30)
	press(t, m, keys("tab", "enter")...)
	press(t, m, keys("/", "C", "H", "A", "N", "G", "E", "D", "enter")...)
	if len(m.search.hits) != 30 {
		t.Fatalf("%d rows match, want 30", len(m.search.hits))
	}
	first := m.diff.top
	press(t, m, kp("n"))
	if m.diff.top <= first {
		t.Fatalf("n stayed at %d", m.diff.top)
	}
	press(t, m, kp("N"))
	if m.diff.top != first {
		t.Fatalf("N went to %d, want %d", m.diff.top, first)
	}
	mustContain(t, plain(m), `"CHANGED": 30 lines`)
	press(t, m, kp("esc"))
	if m.search.query != "" {
		t.Fatal("esc kept the search")
	}
}

func TestDiffSidewaysZoomAndEnd(t *testing.T) {
	m := testModel(t, longFake(), 160, 30)
	press(t, m, keys("tab", "enter")...)
	press(t, m, kp("s")) // unified, so the long lines run past the edge
	before := plain(m)
	press(t, m, keys("l", "l")...)
	// A long line is crossed in a few presses: a third of the text's width each.
	if step := m.step(); step <= sideStep || m.diff.left != 2*step {
		t.Fatalf("scrolled %d, want 2×%d (more than %d each)", m.diff.left, step, sideStep)
	}
	s := plain(m)
	mustContain(t, s, fmt.Sprintf("→ %d", 2*m.step()))
	if s == before {
		t.Fatal("the diff did not move sideways")
	}
	press(t, m, kp("h"))
	if m.diff.left != m.step() {
		t.Fatalf("h: %d", m.diff.left)
	}
	if m.zoomed() {
		t.Fatal("zoomed before z at 160 columns")
	}
	press(t, m, kp("z"))
	if !m.zoomed() || m.leftWidth() != 0 {
		t.Fatal("z did not give the diff the whole screen")
	}
	press(t, m, kp("G"))
	n := m.diff.d.Len(m.layout())
	if last := m.diff.top + m.diffHeight() - 1; last != n-1 {
		t.Fatalf("G: last row on screen %d, want %d (the last line at the bottom)", last, n-1)
	}
	lines := strings.Split(plain(m), "\n")
	if !strings.HasPrefix(lines[m.mainHeight()-1], "299 ") { // the diff's last line
		t.Fatalf("the bottom row is not the last line: %q", lines[m.mainHeight()-1])
	}
	press(t, m, kp("esc"))
	if m.zoomed() {
		t.Fatal("esc did not leave full screen")
	}
}

func TestEditorAtHunk(t *testing.T) {
	f := longFake()
	m := New(f, Options{Now: fixedNow, Poll: -1, NoWatch: true, Editor: "true"})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	drive(t, m, m.Init())
	press(t, m, keys("tab", "enter", "n")...)
	_, cmd := m.Update(kp("e"))
	if cmd == nil {
		t.Fatal("e did nothing")
	}
	if msg := cmd(); msg == nil || !strings.Contains(fmt.Sprintf("%T", msg), "execMsg") {
		t.Fatalf("e does not hand the terminal to the editor: %T", msg)
	}
}

func TestPasteInFilter(t *testing.T) {
	m := testModel(t, sample(), 100, 30)
	press(t, m, kp("/"))
	_, cmd := m.Update(tea.PasteMsg{Content: "dark"})
	drive(t, m, cmd)
	if m.filter != "dark" || len(m.turns.shown) != 1 {
		t.Fatalf("pasted filter %q shows %d", m.filter, len(m.turns.shown))
	}
}

func TestNewTurnNoticeAndFollow(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 30)
	press(t, m, kp("G")) // the oldest turn
	f.write("4", "a new turn", t0.Add(4*time.Minute), "new.txt", []byte("new\n"))
	drive(t, m, m.refresh(true))
	if m.selected().ID != "1" {
		t.Fatal("a new turn moved the cursor")
	}
	mustContain(t, plain(m), "1 new turn since you looked", "f follows")
	press(t, m, kp("f"))
	if m.selected().ID != "4" || !m.follow {
		t.Fatal("f did not go to the newest turn")
	}
	f.write("5", "another", t0.Add(5*time.Minute), "new2.txt", []byte("new\n"))
	drive(t, m, m.refresh(true))
	if m.selected().ID != "5" {
		t.Fatalf("following, the cursor is on %s", m.selected().ID)
	}
	press(t, m, kp("j"))
	if m.follow {
		t.Fatal("moving did not stop following")
	}
}

func TestOperationsFold(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 30)
	press(t, m, keys("j", "r", "y", "u", "y")...)
	if len(m.turns.shown) != 4 { // one row for both operations, three turns
		t.Fatalf("%d rows, want 4", len(m.turns.shown))
	}
	mustContain(t, plain(m), "+1 more")
	press(t, m, keys("g", "enter")...)
	if len(m.turns.shown) != 5 {
		t.Fatalf("enter did not show the folded operations: %d rows", len(m.turns.shown))
	}
}

func TestWaitingForTheAgent(t *testing.T) {
	m := testModel(t, newFake(), 100, 24)
	mustContain(t, plain(m), "waiting for the agent", "install claude")
}

func TestHelpDimsWhatCannotAct(t *testing.T) {
	m := testModel(t, sample(), 120, 40)
	press(t, m, kp("?"))
	if s := screen(m); !strings.Contains(s, "\x1b[2mu ") || strings.Contains(s, "\x1b[2mr ") {
		t.Fatalf("u (nothing to undo) should be dimmed, r (rewind) not:\n%q", s)
	}
	mustContain(t, plain(m), "ctrl+r", "keep all", "filter", "Move", "The diff", "Rewind and undo", "In a preview", "Views")
	// One key, one line outside a preview's own keys: / filters here
	// (its search of the diff is not listed beside it).
	for _, twice := range []string{"search the diff"} {
		if strings.Contains(plain(m), twice) {
			t.Errorf("the help lists a second binding of a key: %q", twice)
		}
	}
}

// A file the agent captured and has not sealed yet is being written, not
// changed since the agent.
func TestBeingWritten(t *testing.T) {
	f := sample()
	f.turns[2].files[0].Writing = true // src/config.js of turn 3
	m := testModel(t, f, 120, 30)
	s := plain(m)
	mustContain(t, s, "~ src/config.js", "being written")
}

// e opens the editor at the first changed line on screen in the side by
// side layout too, not at the hunk's first context line.
func TestEditorAtChangedLineSideBySide(t *testing.T) {
	for _, w := range []int{90, 200} {
		m := testModel(t, sample(), w, 40)
		press(t, m, kp("tab"))
		d := m.diff.d
		if d == nil {
			t.Fatalf("%d columns: no diff", w)
		}
		want := 0
		for i, r := range d.Rows() {
			if r.Kind == diffview.RowAdd {
				want = r.New
				break
			}
			if r.Kind == diffview.RowDel {
				_, want = d.LineNumbers(i, diffview.Unified)
				break
			}
		}
		if got := m.changedLine(); got != want || want == 0 {
			t.Errorf("%d columns (%v): e opens line %d, want %d", w, m.layout(), got, want)
		}
	}
}
