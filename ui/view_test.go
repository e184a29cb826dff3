package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// TestGolden compares View() under the ASCII colour profile with files in
// testdata/. `go test ./ui -update` writes them again.
func TestGolden(t *testing.T) {
	screens := []struct {
		name string
		keys []string
	}{
		{"main", nil},
		{"files", []string{"tab", "j"}},
		{"diff", []string{"tab", "j", "enter"}},
		{"rewind_preview", []string{"j", "r"}},
		{"rewind_preview_since", []string{"j", "r", "j", "j", "v"}},
		{"rewind_preview_kept", []string{"j", "r", "j", "space"}},
		{"after_rewind", []string{"j", "r", "y"}},
		{"undo_preview", []string{"j", "r", "y", "u"}},
		{"help", []string{"?"}},
		{"filter", []string{"/", "d", "a", "r", "k"}},
		{"help_scrolled", []string{"?", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j"}},
	}
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"160x48", 160, 48}} {
		for _, s := range screens {
			t.Run(size.name+"/"+s.name, func(t *testing.T) {
				m := testModel(t, sample(), size.w, size.h)
				press(t, m, keys(s.keys...)...)
				golden.RequireEqual(t, fullScreen(t, m, size.w, size.h))
			})
		}
	}
}

// TestEveryWidth draws the main screens at many sizes: no line is wider
// than the terminal, and there are exactly as many lines as rows.
func TestEveryWidth(t *testing.T) {
	for w := 20; w <= 220; w += 7 {
		for _, h := range []int{8, 24, 61} {
			for _, ks := range [][]string{nil, {"tab", "enter"}, {"j", "r"}, {"?"}} {
				m := testModel(t, sample(), w, h)
				press(t, m, keys(ks...)...)
				lines := strings.Split(m.View().Content, "\n")
				if len(lines) != h {
					t.Fatalf("%dx%d %v: %d lines", w, h, ks, len(lines))
				}
				for i, l := range lines {
					if lw := ansi.StringWidth(l); lw > w {
						t.Fatalf("%dx%d %v: line %d is %d wide: %q", w, h, ks, i, lw, ansi.Strip(l))
					}
				}
			}
		}
	}
}
