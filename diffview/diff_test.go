package diffview

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

type diffCase struct {
	name     string
	old, new string
	opt      Options
}

func cases() []diffCase {
	long := strings.Repeat("line\n", 40)
	return []diffCase{
		{name: "modify", old: "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n",
			new: "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello, world\")\n\tfmt.Println(\"bye\")\n}\n"},
		{name: "create", old: "", new: "one\ntwo\nthree\n"},
		{name: "delete", old: "one\ntwo\nthree\n", new: ""},
		{name: "two_hunks", old: "a\n" + long + "b\n" + long + "c\n", new: "A\n" + long + "b\n" + long + "C\n"},
		{name: "no_newline", old: "first\nlast", new: "first\nlast\n"},
		{name: "wide", old: "名前: 太郎\nemoji: 🎉\n", new: "名前: 花子さんと一緒に長い名前を書く\nemoji: 🎉🎉\n"},
		{name: "escapes", old: "safe\n", new: "safe\n\x1b[2J\x1b]0;title\x07\tafter tab\u202eevil\n"},
		{name: "binary", old: "\x00\x01\x02", new: "\x00\x01\x02\x03"},
		{name: "invalid_utf8", old: "ok\n", new: "ok\n\xff\xfe\n"},
		{name: "too_large", old: strings.Repeat("x", 100), new: strings.Repeat("y", 200), opt: Options{MaxBytes: 150}},
		{name: "same", old: "same\n", new: "same\n"},
	}
}

// ascii renders styled text as a terminal without colour would get it.
func ascii(s string) string {
	var b bytes.Buffer
	w := colorprofile.NewWriter(&b, nil)
	w.Profile = colorprofile.ASCII
	w.WriteString(s)
	return b.String()
}

func TestGolden(t *testing.T) {
	for _, c := range cases() {
		d := Compute([]byte(c.old), []byte(c.new), c.opt)
		for _, l := range []struct {
			name   string
			layout Layout
		}{{"unified", Unified}, {"side_by_side", SideBySide}} {
			t.Run(c.name+"/"+l.name, func(t *testing.T) {
				var b strings.Builder
				for _, w := range []int{20, 40, 80, 120} {
					fmt.Fprintf(&b, "--- width %d ---\n", w)
					for _, line := range d.Render(w, l.layout, DefaultStyles()) {
						b.WriteString(ascii(line))
						b.WriteString("|\n")
					}
				}
				golden.RequireEqual(t, b.String())
			})
		}
	}
}

// TestWidthInvariant checks every row of every case at many widths is
// exactly as wide as asked, styled or not.
func TestWidthInvariant(t *testing.T) {
	for _, c := range cases() {
		d := Compute([]byte(c.old), []byte(c.new), c.opt)
		for _, l := range []Layout{Unified, SideBySide} {
			for _, st := range []Styles{{}, DefaultStyles()} {
				for w := 1; w <= 170; w++ {
					for i, line := range d.Render(w, l, st) {
						if got := ansi.StringWidth(line); got != w {
							t.Fatalf("%s layout %d width %d row %d: %d cells: %q", c.name, l, w, i, got, line)
						}
						if strings.ContainsAny(ansi.Strip(line), "\x1b\x07\n\r") {
							t.Fatalf("%s: control character reached the output: %q", c.name, line)
						}
					}
				}
			}
		}
	}
}

func TestHunks(t *testing.T) {
	cases := []struct {
		name      string
		old, new  string
		ctx       int
		headers   []string
		added     int
		deleted   int
		firstKind []RowKind
	}{
		{name: "change in middle", old: "a\nb\nc\n", new: "a\nB\nc\nd\n",
			headers: []string{"@@ -1,3 +1,4 @@"}, added: 2, deleted: 1},
		{name: "create", old: "", new: "x\ny\n", headers: []string{"@@ -0,0 +1,2 @@"}, added: 2},
		{name: "delete", old: "x\ny\n", new: "", headers: []string{"@@ -1,2 +0,0 @@"}, deleted: 2},
		{name: "insert only no context", old: "a\nb\nc\n", new: "a\nb\nX\nc\n", ctx: -1,
			headers: []string{"@@ -2,0 +3 @@"}, added: 1},
		{name: "far apart", old: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", new: "one\n2\n3\n4\n5\n6\n7\n8\n9\nten\n", ctx: 1,
			headers: []string{"@@ -1,2 +1,2 @@", "@@ -9,2 +9,2 @@"}, added: 2, deleted: 2},
		{name: "close together merge", old: "1\n2\n3\n4\n5\n", new: "one\n2\n3\n4\nfive\n", ctx: 2,
			headers: []string{"@@ -1,5 +1,5 @@"}, added: 2, deleted: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Compute([]byte(c.old), []byte(c.new), Options{Context: c.ctx})
			var got []string
			for _, h := range d.Hunks(Unified) {
				got = append(got, d.Rows()[h].Text)
			}
			if strings.Join(got, "|") != strings.Join(c.headers, "|") {
				t.Fatalf("headers %q, want %q", got, c.headers)
			}
			if d.Added != c.added || d.Deleted != c.deleted {
				t.Fatalf("+%d -%d, want +%d -%d", d.Added, d.Deleted, c.added, c.deleted)
			}
			if len(d.Hunks(SideBySide)) != len(d.Hunks(Unified)) {
				t.Fatalf("side-by-side has %d hunks, unified %d", len(d.Hunks(SideBySide)), len(d.Hunks(Unified)))
			}
		})
	}
}

func TestSummaries(t *testing.T) {
	cases := []struct {
		name     string
		old, new []byte
		opt      Options
		want     string
	}{
		{"binary new", nil, []byte{0, 1, 2}, Options{}, "binary, 3 bytes"},
		{"binary changed", []byte{0}, []byte{0, 1}, Options{}, "binary, 2 bytes (was 1 bytes)"},
		{"invalid utf8", []byte("a"), []byte("a\xff"), Options{}, "binary, 2 bytes (was 1 bytes)"},
		{"too large", make([]byte, 10), make([]byte, 20), Options{MaxBytes: 15}, "too large to diff: 10 B → 20 B (limit 15 B)"},
		{"same", []byte("x\n"), []byte("x\n"), Options{}, "no changes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Compute(c.old, c.new, c.opt)
			if d.Len(Unified) != 1 || d.Rows()[0].Kind != RowNote || d.Rows()[0].Text != c.want {
				t.Fatalf("rows %+v, want one note %q", d.Rows(), c.want)
			}
		})
	}
}

// TestRowsRebuildBothSides: with context wide enough to cover the whole
// file, the rows are an edit script that gives back both sides exactly.
func TestRowsRebuildBothSides(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"alpha", "beta", "gamma", "delta", "", "日本"}
	gen := func() string {
		var b strings.Builder
		for n := rng.Intn(30); n > 0; n-- {
			b.WriteString(words[rng.Intn(len(words))])
			b.WriteByte('\n')
		}
		if rng.Intn(4) == 0 {
			b.WriteString("tail")
		}
		return b.String()
	}
	for i := 0; i < 500; i++ {
		a, b := gen(), gen()
		d := Compute([]byte(a), []byte(b), Options{Context: 1 << 20})
		if a == b {
			continue
		}
		var oldB, newB strings.Builder
		rows := d.Rows()
		for j, r := range rows {
			nl := "\n"
			if j+1 < len(rows) && rows[j+1].Kind == RowNoEOL {
				nl = ""
			}
			switch r.Kind {
			case RowContext:
				oldB.WriteString(r.Text + nl)
				newB.WriteString(r.Text + nl)
			case RowDel:
				oldB.WriteString(r.Text + nl)
			case RowAdd:
				newB.WriteString(r.Text + nl)
			}
		}
		if oldB.String() != a || newB.String() != b {
			t.Fatalf("case %d: rebuilt %q → %q, want %q → %q", i, oldB.String(), newB.String(), a, b)
		}
	}
}

func TestLineNumbers(t *testing.T) {
	d := Compute([]byte("a\nb\nc\n"), []byte("a\nX\nc\n"), Options{})
	got := d.Render(30, Unified, Styles{})
	want := []string{
		"@@ -1,3 +1,3 @@               ",
		"1 1   a                       ",
		"2   - b                       ",
		"  2 + X                       ",
		"3 3   c                       ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// big5MB makes a ~5 MB source file and a copy with scattered edits.
func big5MB() (a, b []byte) {
	var x, y bytes.Buffer
	for i := 0; x.Len() < 5<<20; i++ {
		line := fmt.Sprintf("\tvalue%07d := compute(%d, \"some text to make the line longer\")\n", i, i)
		x.WriteString(line)
		if i%997 == 0 {
			y.WriteString("\t// changed\n")
		} else {
			y.WriteString(line)
		}
	}
	return x.Bytes(), y.Bytes()
}

func BenchmarkCompute5MB(b *testing.B) {
	x, y := big5MB()
	b.SetBytes(int64(len(x)))
	b.ReportAllocs()
	for b.Loop() {
		d := Compute(x, y, Options{})
		if d.Added == 0 {
			b.Fatal("no changes found")
		}
	}
}

func BenchmarkRenderScreen(b *testing.B) {
	x, y := big5MB()
	d := Compute(x, y, Options{})
	b.ReportAllocs()
	for b.Loop() {
		for i := 0; i < 60; i++ {
			_ = d.Line(i, 200, Unified, DefaultStyles())
		}
	}
}

// reformat60k is a 60,000-line file whose leading tabs all became spaces:
// every line changes, the blank ones stay.
func reformat60k() (a, b []byte) {
	var x, y strings.Builder
	for i := 0; i < 60000; i++ {
		if i%7 == 6 {
			x.WriteString("\n")
			y.WriteString("\n")
			continue
		}
		fmt.Fprintf(&x, "\t\tvalue_%d := compute(%d, \"item\")\n", i, i%97)
		fmt.Fprintf(&y, "        value_%d := compute(%d, \"item\")\n", i, i%97)
	}
	return []byte(x.String()), []byte(y.String())
}

func BenchmarkComputeReformat60k(b *testing.B) {
	x, y := reformat60k()
	for b.Loop() {
		Compute(x, y, Options{MaxBytes: 64 << 20})
	}
}

// ChangedLine gives the new side's line of the first change in a range
// of rows, in both layouts alike: an added line's number, or where a
// removal stands.
func TestChangedLine(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\n"
	for _, c := range []struct {
		name, new string
		want      int
	}{
		{"an added line", "a\nb\nc\nX\nd\ne\nf\n", 4},
		{"a changed line", "a\nb\nC\nd\ne\nf\n", 3},
		{"a removed line", "a\nb\nd\ne\nf\n", 3},
		{"nothing", old, 0},
	} {
		d := Compute([]byte(old), []byte(c.new), Options{Context: 2})
		for _, l := range []Layout{Unified, SideBySide} {
			if got := d.ChangedLine(0, d.Len(l), l); got != c.want {
				t.Errorf("%s, layout %v: line %d, want %d", c.name, l, got, c.want)
			}
		}
		if c.want > 0 {
			if got := d.ChangedLine(0, 1, Unified); got != 0 {
				t.Errorf("%s: the hunk header alone changes nothing, got %d", c.name, got)
			}
		}
	}
}
