package ui

import (
	"strings"
	"testing"
)

// TestFrameDoesNotWalkTheLog: how a rewound turn's files were left is
// worked out once per log read, not for each row drawn: drawing frames
// of a turn of many files walks the log no more, and every row says the
// turn was rewound (what the agent did · rewound).
func TestFrameDoesNotWalkTheLog(t *testing.T) {
	m := testModel(t, rewoundFake(300, 200), 120, 200)
	press(t, m, kp("G"))
	if e := m.selected(); e == nil || e.ID != "1" {
		t.Fatalf("the cursor is on %+v, want turn 1", e)
	}
	walks := logsIndexed.Load()
	sc := plain(m)
	_ = plain(m)
	if n := logsIndexed.Load() - walks; n != 0 {
		t.Fatalf("two frames walked the log %d times", n)
	}
	mustContain(t, sc, "Files of turn 1 (200) · rewound by op-1")
	rows := 0
	for _, l := range strings.Split(sc, "\n") {
		l, _, _ = strings.Cut(l, "│") // the files pane's part
		if strings.Contains(l, "big/file") {
			rows++
			if !strings.Contains(l, "rewound") {
				t.Fatalf("a row of the rewound turn does not say so: %q", l)
			}
		}
	}
	if rows < 50 {
		t.Fatalf("%d rows of turn 1's files on screen:\n%s", rows, sc)
	}
}
