package present

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestEscape(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "fix the login bug", "fix the login bug"},
		{"unicode kept", "réparer 日本 🎉", "réparer 日本 🎉"},
		{"csi", "\x1b[2Jgone", `\x1b[2Jgone`},
		{"osc title", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"newline", "line one\nline two", `line one\nline two`},
		{"tab and cr", "a\tb\r", `a\tb\r`},
		{"del", "x\x7fy", `x\x7fy`},
		{"c1 csi", "a\u009b2Jb", `a\u009b2Jb`},
		{"bidi override", "abc\u202edcba", `abc\u202edcba`},
		{"zero-width space", "a\u200bb.txt", `a\u200bb.txt`},
		{"zero-width joiner", "a\u200db", `a\u200db`},
		{"byte-order mark", "\ufeffmain.go", `\ufeffmain.go`},
		{"word joiner", "x\u2060y", `x\u2060y`},
		{"tag character", "a\U000e0041", `a\U000e0041`},
		{"soft hyphen", "pay\u00adroll", `pay\u00adroll`},
		{"accents stay", "café.txt", "café.txt"},
		{"invalid utf8", "a\xffb", `a\xffb`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Escape(c.in)
			if got != c.want {
				t.Fatalf("Escape(%q) = %q, want %q", c.in, got, c.want)
			}
			if ansi.Strip(got) != got {
				t.Fatalf("escaped text still holds a sequence: %q", got)
			}
			if strings.ContainsAny(got, "\x1b\x07\n\r\u009b") {
				t.Fatalf("escaped text holds a control: %q", got)
			}
		})
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("\x1b[31mred\x1b[0m")
	f.Add("\u202e\x00\xff")
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		for _, r := range got {
			if r < 0x20 || r == 0x7f || isHidden(r) {
				t.Fatalf("Escape(%q) kept control %U", s, r)
			}
		}
	})
}
