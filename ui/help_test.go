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
