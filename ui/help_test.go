package ui

import (
	"strings"
	"testing"
)

// TestHelpExplainsEveryMark: the help's legend names the marks a
// rewound turn's files (k) and a revert's preview (C) show, not only the
// statuses; G and g, which the help lists, go to its end and back.
func TestHelpExplainsEveryMark(t *testing.T) {
	m := testModel(t, sample(), 120, 36)
	press(t, m, kp("?"))
	if strings.Contains(plain(m), "Turn marks") {
		t.Fatalf("the whole help fits at 120x36; the test needs one to scroll:\n%s", plain(m))
	}
	press(t, m, kp("G"))
	mustContain(t, plain(m), "  k  kept as it is", "  C  in conflict", "Turn marks")
	press(t, m, kp("g"))
	mustContain(t, plain(m), "Keys", "Move")
}

// TestHelpFirstScreen80x24: at 80x24 the help's first screen shows whole
// the groups it can: moving, rewinding and undoing, and the views with T
// (cut a turn), which lay below the fold when the groups went in rows in
// their own order.
func TestHelpFirstScreen80x24(t *testing.T) {
	m := testModel(t, sample(), 80, 24)
	press(t, m, kp("?"))
	mustContain(t, plain(m), "Move", "previous pane", "Rewind and undo", "ctrl+r  redo", "Views", "T      cut a turn", "q      quit")
}

// TestHelpLayoutFits: every order the help tries stays within the width,
// and the one it keeps shows at least as much on the first screen as the
// groups in their own order.
func TestHelpLayoutFits(t *testing.T) {
	boxes := []helpBox{{w: 25, h: 11}, {w: 45, h: 12}, {w: 12, h: 5}, {w: 24, h: 8}, {w: 38, h: 13}}
	for _, width := range []int{40, 78, 118, 158} {
		bands := bestHelpLayout(boxes, width, 19)
		seen := 0
		for _, b := range bands {
			used := 0
			for _, c := range b.cols {
				used += c.w + helpGap
				seen += len(c.boxes)
			}
			if len(b.cols) > 1 && used > width {
				t.Errorf("width %d: a band %d wide", width, used)
			}
		}
		if seen != len(boxes) {
			t.Errorf("width %d: %d boxes laid out, want %d", width, seen, len(boxes))
		}
		own := packHelp(boxes, []int{0, 1, 2, 3, 4}, width)
		if helpShown(boxes, bands, 19) < helpShown(boxes, own, 19) {
			t.Errorf("width %d: the layout kept shows less than the groups' own order", width)
		}
	}
}
