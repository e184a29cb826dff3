package diffview

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestWordSpans(t *testing.T) {
	cases := []struct {
		name, a, b string
		da, db     string // the changed bytes of each side, joined by |
	}{
		{"one word", "x := compute(1)", "x := compute(2)", "1", "2"},
		{"added words", `print("hello")`, `print("hello, world")`, "", ", world"},
		{"nothing in common", "alpha beta", "1234 5678", "", ""},
		{"indent", "\tx = 1", "    x = 1", "\t", "    "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sa, sb := wordSpans(c.a, c.b)
			got := func(s string, sp []span) string {
				var parts []string
				for _, x := range sp {
					parts = append(parts, s[x.from:x.to])
				}
				return strings.Join(parts, "|")
			}
			if g := got(c.a, sa); g != c.da {
				t.Errorf("old side %q, want %q", g, c.da)
			}
			if g := got(c.b, sb); g != c.db {
				t.Errorf("new side %q, want %q", g, c.db)
			}
		})
	}
}

func TestFindAndScroll(t *testing.T) {
	d := Compute([]byte("alpha\nbeta\ngamma\n"), []byte("alpha\nBETA beta\ngamma\n"), Options{})
	if got := d.Find("beta", Unified); len(got) != 2 {
		t.Fatalf("rows with beta: %v", got)
	}
	if got := d.Find("BETA", Unified); len(got) != 1 {
		t.Fatalf("rows with BETA (case kept): %v", got)
	}
	i := d.Find("BETA", Unified)[0]
	line := ansi.Strip(d.LineView(i, 20, Unified, Styles{}, View{Left: 5}))
	if !strings.HasPrefix(strings.TrimLeft(line, " 0123456789"), "+ beta") {
		t.Fatalf("scrolled 5 cells: %q", line)
	}
	if w := ansi.StringWidth(line); w != 20 {
		t.Fatalf("width %d", w)
	}
	if o, n := d.LineNumbers(0, Unified); o != 1 || n != 1 {
		t.Fatalf("hunk header's first line: %d %d", o, n)
	}
}
