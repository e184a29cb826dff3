package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// TestFooterEveryWidth: the last line ends with ? help and q quit at 60,
// 80, 120 and 200 columns, in the panes and in a preview (where q closes
// it), and no binding is cut mid-word.
func TestFooterEveryWidth(t *testing.T) {
	for _, w := range []int{60, 80, 120, 200} {
		for _, c := range []struct {
			name string
			keys []string
			tail []string
		}{
			{"panes", nil, []string{"? help", "q quit"}},
			{"diff", []string{"tab", "enter"}, []string{"? help", "q quit"}},
			{"preview", []string{"j", "r"}, []string{"esc back"}}, // ? is off in a preview
		} {
			m := testModel(t, sample(), w, 24)
			press(t, m, keys(c.keys...)...)
			lines := strings.Split(plain(m), "\n")
			foot := strings.TrimRight(lines[len(lines)-1], " ")
			for _, want := range c.tail {
				if !strings.Contains(foot, want) {
					t.Errorf("%d columns, %s: the footer lacks %q: %q", w, c.name, want, foot)
				}
			}
			if strings.Contains(foot, "…") {
				t.Errorf("%d columns, %s: a binding is cut: %q", w, c.name, foot)
			}
			if ansi.StringWidth(lines[len(lines)-1]) > w {
				t.Errorf("%d columns: the footer is wider", w)
			}
		}
	}
}

// TestFooterGolden keeps the footer's words at each width.
func TestFooterGolden(t *testing.T) {
	var b strings.Builder
	for _, w := range []int{60, 80, 120, 200} {
		m := testModel(t, sample(), w, 24)
		lines := strings.Split(plain(m), "\n")
		b.WriteString(strings.TrimRight(lines[len(lines)-1], " ") + "\n")
	}
	golden.RequireEqual(t, b.String())
}

// TestUnifiedWhenNarrow: below sideMinWidth the diff is unified even when
// side by side was asked for, and says so; at the width it is side by side.
func TestUnifiedWhenNarrow(t *testing.T) {
	for _, c := range []struct {
		w    int
		side bool
	}{{60, false}, {sideMinWidth - 1, false}, {sideMinWidth, true}, {200, true}} {
		m := testModel(t, sample(), c.w, 24)
		press(t, m, keys("tab", "enter", "z")...) // the diff takes the whole width
		if !m.layoutSide() {
			press(t, m, kp("s"))
		}
		if got := m.layoutSide(); got != c.side {
			t.Errorf("%d columns: side by side %v, want %v", c.w, got, c.side)
		}
		if !c.side && !strings.Contains(plain(m), "unified: side by side needs") {
			t.Errorf("%d columns: the diff does not say why it is unified:\n%s", c.w, plain(m))
		}
	}
}

// TestAgesFixedWidth: a turn's row keeps its columns when its age grows a
// digit.
func TestAgesFixedWidth(t *testing.T) {
	m := testModel(t, sample(), 80, 24)
	before := strings.Split(plain(m), "\n")[1]
	m.opt.Now = func() time.Time { return testNow().Add(7 * time.Hour) } // 3h → 10h
	after := strings.Split(plain(m), "\n")[1]
	cut := func(s string) string { return strings.TrimRight(s[:strings.LastIndex(s, "h")-2], " ") }
	if cut(before) != cut(after) {
		t.Errorf("the row moved:\n%q\n%q", before, after)
	}
}
