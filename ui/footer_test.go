package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// footerViews are the screens a footer is checked on: how to reach each
// from the first frame, and what its footer must end with.
var footerViews = []struct {
	name string
	keys []string
	tail []string
}{
	{"panes", nil, []string{"? help", "q quit"}},
	{"diff", []string{"tab", "enter"}, []string{"? help", "esc back", "q quit"}},
	{"preview", []string{"j", "r"}, []string{"? help", "q/esc close"}}, // q closes a preview
	{"preview help", []string{"j", "r", "?"}, []string{"? help", "q/esc close"}},
	{"conversation", []string{"c"}, []string{"? help", "esc back", "q quit"}},
	{"errors", []string{"E"}, []string{"? help", "esc back", "q quit"}},
	{"help", []string{"?"}, []string{"? help", "esc back", "q quit"}},
	// While a line is typed, ? and q are text: the footer says so.
	{"typing a filter", []string{"/"}, []string{"enter keep the filter", "esc cancel", "ctrl+c quit"}},
	{"typing a search", []string{"tab", "enter", "/"}, []string{"enter search", "esc cancel", "ctrl+c quit"}},
	{"typing a turn id", []string{":"}, []string{"enter go to the turn", "esc cancel", "ctrl+c quit"}},
}

// footerModel is the sample at w×24 with a hook error logged (so E opens
// the errors view) and a conversation for each turn, after keys.
func footerModel(t *testing.T, w int, keys_ []string) *Model {
	t.Helper()
	f := sample()
	f.errs = []string{"2026-11-29T12:00:00Z hook claude: bad JSON"}
	f.convs = map[string]*Conversation{}
	for _, id := range []string{"1", "2", "3"} {
		f.convs[id] = &Conversation{Prompt: "restyle the page", Reply: "done", From: "/t.jsonl"}
	}
	m := testModel(t, f, w, 24)
	press(t, m, keys(keys_...)...)
	return m
}

// TestFooterEveryWidth: the last line ends with ? help and the way out
// (q quit; esc back where esc backs out of a view; q/esc close in a
// preview, where q never quits) at 60, 80, 120 and 200 columns, in every
// view, and no binding is cut mid-word.
func TestFooterEveryWidth(t *testing.T) {
	for _, w := range []int{60, 80, 120, 200} {
		for _, c := range footerViews {
			m := footerModel(t, w, c.keys)
			lines := strings.Split(plain(m), "\n")
			foot := strings.TrimRight(lines[len(lines)-1], " ")
			for _, want := range c.tail {
				if !strings.HasSuffix(foot, strings.Join(c.tail, " • ")) {
					t.Errorf("%d columns, %s: the footer does not end with %q: %q", w, c.name, want, foot)
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

// The help opened over a preview lists the preview's keys as the ones
// that act, and esc (or q) goes back to the preview, not out of it.
func TestHelpOverPreview(t *testing.T) {
	m := footerModel(t, 120, []string{"j", "r", "?"})
	mustContain(t, plain(m), "Keys", "In a preview")
	press(t, m, kp("esc"))
	mustContain(t, plain(m), "q/esc close")
	if m.dlg == nil || m.showHelp {
		t.Fatalf("esc on the help over a preview: dialog %v help %v", m.dlg != nil, m.showHelp)
	}
	press(t, m, kp("?"), kp("q"))
	if m.dlg == nil || m.showHelp {
		t.Fatalf("q on the help over a preview: dialog %v help %v", m.dlg != nil, m.showHelp)
	}
	press(t, m, kp("q"))
	if m.dlg != nil {
		t.Fatal("q in the preview did not close it")
	}
}

// esc closes the conversation pane (the diff is back), and ? on the
// errors view opens the help, whose esc comes back to the errors.
func TestEscLeavesConversationAndErrorsHelp(t *testing.T) {
	m := footerModel(t, 120, []string{"c"})
	if !m.conv.on {
		t.Fatal("c did not open the conversation")
	}
	press(t, m, kp("esc"))
	if m.conv.on {
		t.Fatal("esc left the conversation open")
	}
	press(t, m, kp("E"), kp("?"))
	if !m.showHelp {
		t.Fatal("? on the errors view shows no help")
	}
	press(t, m, kp("esc"))
	if m.showHelp || !m.errs.open {
		t.Fatalf("esc on the help: help %v errors %v, want the errors view again", m.showHelp, m.errs.open)
	}
}

// TestFooterGolden keeps the footer's words at each width, in each view.
func TestFooterGolden(t *testing.T) {
	var b strings.Builder
	for _, c := range footerViews {
		b.WriteString(c.name + ":\n")
		for _, w := range []int{60, 80, 120, 200} {
			m := footerModel(t, w, c.keys)
			lines := strings.Split(plain(m), "\n")
			b.WriteString(strings.TrimRight(lines[len(lines)-1], " ") + "\n")
		}
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
