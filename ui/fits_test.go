package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// fitViews are every view and dialog, as keys from the first frame of
// the sample (a hook error logged, a conversation for each turn). prose
// marks the views whose every line is prose, which wraps and is never
// cut short with "…".
var fitViews = []struct {
	name  string
	keys  []string
	prose bool
	want  []string // said whole on the screen, at either size
}{
	{name: "turns"},
	{name: "files", keys: []string{"tab"}},
	{name: "files of a hand-edited file", keys: []string{"tab", "j"}, want: []string{"changed since"}},
	{name: "diff", keys: []string{"tab", "j", "enter"}, want: []string{"changed since the agent wrote it"}},
	{name: "diff zoomed", keys: []string{"tab", "j", "enter", "z"}},
	{name: "diff wrapped", keys: []string{"tab", "j", "enter", "w"}},
	{name: "diff side by side", keys: []string{"tab", "j", "enter", "s"}},
	{name: "diff, the agent's write", keys: []string{"tab", "j", "enter", "v"}},
	{name: "diff, since the agent", keys: []string{"tab", "j", "enter", "v", "v"}},
	{name: "diff search", keys: []string{"tab", "j", "enter", "/", "c", "o", "n", "enter"}},
	{name: "rewind preview", keys: []string{"r"}},
	{name: "rewind preview, its diff", keys: []string{"r", "tab"}},
	{name: "rewind preview, a file kept", keys: []string{"r", "space"}},
	{name: "revert preview", keys: []string{"R"}},
	{name: "rewound turn", keys: []string{"j", "r", "y", "k"}},
	{name: "rewound turn's diff", keys: []string{"j", "r", "y", "k", "tab", "enter"}},
	{name: "an operation's row", keys: []string{"j", "r", "y", "g"}, want: []string{"turns rewound: 2, 3", "an operation: the files"}},
	{name: "undo preview", keys: []string{"j", "r", "y", "u"}},
	{name: "redo preview", keys: []string{"j", "r", "y", "u", "y", "ctrl+r"}},
	{name: "help over a preview", keys: []string{"r", "?"}},
	{name: "errors", keys: []string{"E"}, prose: true, want: []string{"empties the log", "permission denied"}},
	{name: "help", keys: []string{"?"}, prose: true},
	{name: "conversation", keys: []string{"c"}},
	{name: "filter", keys: []string{"/", "d"}},
	{name: "go to a turn", keys: []string{":"}},
}

// TestEveryViewFits: at 80×24 and 120×36 every view and dialog is
// exactly the screen, each line its width, the footer ends with ? help
// (or, while a line is typed, how to cancel) and a way out; prose views
// wrap instead of cutting, every page of the help included; and no
// title or heading is cut short.
func TestEveryViewFits(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 36}} {
		for _, v := range fitViews {
			f := sample()
			f.errs = append([]string(nil), loggedErrors...)
			f.convs = map[string]*Conversation{}
			for _, id := range []string{"1", "2", "3"} {
				f.convs[id] = &Conversation{Prompt: "restyle the page so it reads on a phone", Reply: "done", From: "/t.jsonl"}
			}
			m := testModel(t, f, size[0], size[1])
			press(t, m, keys(v.keys...)...)
			mustContain(t, plain(m), v.want...)
			for page := 0; ; page++ {
				sc := plain(m)
				if m.typingVerb() == "" {
					checkFits(t, m, sc)
				}
				lines := strings.Split(sc, "\n")
				for i, l := range lines {
					l = strings.TrimRight(l, " ")
					title := i == 0 || strings.HasPrefix(strings.TrimLeft(l, " "), "Files")
					if strings.HasSuffix(l, "…") && (v.prose || title) && i < len(lines)-2 {
						t.Errorf("%dx%d %s (page %d): line %d is cut: %q", size[0], size[1], v.name, page, i, l)
					}
				}
				if v.name != "help" {
					break
				}
				top := m.helpTop
				press(t, m, kp("space"))
				if m.helpTop == top {
					break
				}
			}
		}
	}
}

// TestWaitingScreenFits: before the first turn (no store yet), the
// screen fits at 80×24 and 120×36 and its advice wraps between words,
// never inside `--help`.
func TestWaitingScreenFits(t *testing.T) {
	for _, root := range []string{"/tmp/ui-empty", "/home/dev/a-project"} {
		for _, size := range [][2]int{{80, 24}, {120, 36}} {
			m := New(nil, Options{Now: testNow, Poll: -1, NoWatch: true, Root: root})
			m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			sc := plain(m)
			checkFits(t, m, sc)
			mustContain(t, sc, "No ckpt store in "+root+" yet")
			for _, l := range strings.Split(sc, "\n") {
				if strings.HasSuffix(strings.TrimRight(l, " "), "-") {
					t.Errorf("%v: a word is cut at its hyphen: %q\n%s", size, l, sc)
				}
			}
		}
	}
}

// TestSideRefusedSaysZ: at 120 columns the diff beside the panes is too
// narrow for side by side; s says so and that z makes the room, and z
// does.
func TestSideRefusedSaysZ(t *testing.T) {
	m := testModel(t, sample(), 120, 36)
	press(t, m, keys("tab", "j", "enter", "s")...)
	mustContain(t, plain(m), "unified: side by side needs", "(z gives the diff the whole")
	press(t, m, kp("z"))
	if !m.layoutSide() {
		t.Fatalf("z did not give side by side the room:\n%s", plain(m))
	}
	if strings.Contains(plain(m), "side by side needs") {
		t.Fatalf("side by side, and still says it needs room:\n%s", plain(m))
	}
}
