package diffview

import (
	"fmt"
	"strings"
	"testing"
	"time"

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

// TestBoundedDiffStaysCorrect: a reformat of every line, past the time
// the search for the smallest diff may take, still gives a diff that
// rebuilds both sides and counts every changed line.
func TestBoundedDiffStaysCorrect(t *testing.T) {
	var a, b strings.Builder
	changed := 0
	for i := 0; i < 20000; i++ {
		if i%7 == 6 {
			a.WriteString("\n")
			b.WriteString("\n")
			continue
		}
		changed++
		fmt.Fprintf(&a, "\tv%d := f(%d)\n", i, i%13)
		fmt.Fprintf(&b, "    v%d := f(%d)\n", i, i%13)
	}
	d := Compute([]byte(a.String()), []byte(b.String()), Options{Timeout: time.Millisecond, Context: 1 << 20})
	if d.Added < changed || d.Added != d.Deleted {
		t.Fatalf("+%d -%d, want at least %d each", d.Added, d.Deleted, changed)
	}
	var old, new strings.Builder
	for _, r := range d.Rows() {
		switch r.Kind {
		case RowContext:
			old.WriteString(r.Text + "\n")
			new.WriteString(r.Text + "\n")
		case RowDel:
			old.WriteString(r.Text + "\n")
		case RowAdd:
			new.WriteString(r.Text + "\n")
		}
	}
	if old.String() != a.String() || new.String() != b.String() {
		t.Fatal("the rows do not rebuild both sides")
	}
}
