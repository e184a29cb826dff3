package ui

import (
	"strings"
	"testing"
)

// fitViews are every view and dialog, as keys from the first frame of
// the sample (a hook error logged, a conversation for each turn). prose
// marks the views whose every line is prose, which wraps and is never
// cut short with "…".
var fitViews = []struct {
	name  string
	keys  []string
	prose bool
}{
	{name: "turns"},
	{name: "files", keys: []string{"tab"}},
	{name: "files of a hand-edited file", keys: []string{"tab", "j"}},
	{name: "diff", keys: []string{"tab", "j", "enter"}},
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
	{name: "an operation's row", keys: []string{"j", "r", "y", "g"}},
	{name: "undo preview", keys: []string{"j", "r", "y", "u"}},
	{name: "redo preview", keys: []string{"j", "r", "y", "u", "y", "ctrl+r"}},
	{name: "help over a preview", keys: []string{"r", "?"}},
	{name: "errors", keys: []string{"E"}, prose: true},
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
