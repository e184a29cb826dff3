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

// TestHelpPagesShowGroupsWhole: at 80×24 and 120×36, paging through the
// help with space, a group's heading is never on a screen without all of
// its keys (the fold cut The diff and In a preview at 80×24), and every
// group is on some page.
func TestHelpPagesShowGroupsWhole(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 36}} {
		m := testModel(t, sample(), size[0], size[1])
		press(t, m, kp("?"))
		k := m.bindings()
		groups, titles := dedupeHelp(k.FullHelp()), k.FullHelpTitles()
		seen := map[string]bool{}
		for page := 0; ; page++ {
			lines := strings.Split(plain(m), "\n")
			for i, g := range groups {
				if i >= len(titles) || len(g) == 0 || !containsLine(lines, " "+titles[i]+" ") {
					continue
				}
				seen[titles[i]] = true
				for _, b := range g {
					if !containsLine(lines, b.Help().Key+" ", "  "+b.Help().Desc) {
						t.Errorf("%dx%d, page %d: %s without %s %s:\n%s", size[0], size[1], page, titles[i], b.Help().Key, b.Help().Desc, strings.Join(lines, "\n"))
					}
				}
			}
			top := m.helpTop
			press(t, m, kp("space"))
			if m.helpTop == top {
				break
			}
		}
		for i, g := range groups {
			if i < len(titles) && len(g) > 0 && !seen[titles[i]] {
				t.Errorf("%dx%d: %s on no page", size[0], size[1], titles[i])
			}
		}
	}
}

// containsLine reports whether one of lines holds every part.
func containsLine(lines []string, parts ...string) bool {
	for _, l := range lines {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l+" ", p)
		}
		if all {
			return true
		}
	}
	return false
}
