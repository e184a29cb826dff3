package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestWrapLines: prose wraps at spaces, never inside a word such as
// --errors, every line within the width, nothing lost.
func TestWrapLines(t *testing.T) {
	s := "esc closes · they stay logged: `ckpt log --errors` prints them, `ckpt log --errors --clear` empties the log"
	for _, w := range []int{20, 40, 79} {
		lines := wrapLines(s, w, 2)
		var words []string
		for i, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Errorf("%d columns: line %d is %d wide: %q", w, i, ansi.StringWidth(l), l)
			}
			if strings.HasSuffix(l, "-") {
				t.Errorf("%d columns: a word is cut at its hyphen: %q", w, l)
			}
			words = append(words, strings.Fields(l)...)
		}
		if got := strings.Join(words, " "); got != s {
			t.Errorf("%d columns: the text came out as %q", w, got)
		}
	}
	if got := wrapLines("abcdefghij", 4, 0); strings.Join(got, "|") != "abcd|efgh|ij" {
		t.Errorf("a word wider than the line: %q", got)
	}
}

// TestFitParts: the lightest parts give way first, a kept part is only
// shortened, and what is left is cut only when nothing else can go.
func TestFitParts(t *testing.T) {
	parts := []part{{text: "server.js"}, {text: "kept → disk now", short: "kept→disk", weight: 2, keep: true},
		{text: "+3 -1", weight: 2}, {text: "hunk 1/1", weight: 1}, {text: "changed since the agent wrote it", short: "changed since agent", weight: 5, keep: true}}
	for _, c := range []struct {
		w    int
		want string
	}{
		{81, "server.js · kept → disk now · +3 -1 · hunk 1/1 · changed since the agent wrote it"},
		{70, "server.js · kept → disk now · +3 -1 · changed since the agent wrote it"},
		{60, "server.js · kept→disk · changed since the agent wrote it"},
		{43, "server.js · kept→disk · changed since agent"},
		{20, "server.js · kept→di…"},
	} {
		if got := strings.TrimRight(fitParts(parts, c.w), " "); got != c.want {
			t.Errorf("%d columns: %q, want %q", c.w, got, c.want)
		}
	}
}

// TestWrapLinesKeepsSpaces: indentation and runs of spaces inside a line
// come through as they are (a prompt's code reads as written).
func TestWrapLinesKeepsSpaces(t *testing.T) {
	if got := wrapLines("    if x {  y }", 40, 0); len(got) != 1 || got[0] != "    if x {  y }" {
		t.Errorf("%q", got)
	}
	if got := wrapLines("", 40, 0); len(got) != 1 || got[0] != "" {
		t.Errorf("an empty line: %q", got)
	}
}
