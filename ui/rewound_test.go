package ui

import (
	"strings"
	"testing"
)

// TestRewoundTurnShowsTheAgent: a rewound turn's files are back as before
// it, so the UI shows what the agent did (and which operation rewound it),
// not a turn of unchanged files with no diff.
func TestRewoundTurnShowsTheAgent(t *testing.T) {
	f := sample()
	m := testModel(t, f, 140, 36)
	press(t, m, keys("j", "r", "y")...) // rewinds turns 2 and 3
	// The cursor stays on turn 2, now rewound: its diff is reloaded as
	// what the agent did (it deleted legacy.js).
	mustContain(t, plain(m), "rewound by op-1", "- // old helpers")
	press(t, m, kp("k")) // turn 3
	s := plain(m)
	mustContain(t, s, "rewound by op-1", "A src/config.js", "the agent: created · rewound")
	if strings.Contains(s, "= src/config.js") || strings.Contains(s, "no changes") {
		t.Fatalf("a rewound turn reads as unchanged:\n%s", s)
	}
	press(t, m, keys("tab", "enter")...)
	mustContain(t, plain(m), "what the agent did", "+ module.exports = { port: 3000 };")
	press(t, m, kp("v")) // the user's mode from here on
	if m.diffMode() == modeAgent {
		t.Fatal("v did not change the mode")
	}
}

// TestKeptHandEditKeepsItsMark: a hand-edited file kept by the rewind
// keeps its ! in the preview and in the rewound turn's files.
func TestKeptHandEditKeepsItsMark(t *testing.T) {
	f := sample()
	m := testModel(t, f, 140, 36)
	press(t, m, kp("r")) // turn 3: src/config.js and server.js (hand-edited)
	for i, r := range m.dlg.rows {
		if r.step.Path == "server.js" {
			m.dlg.cur.cur = i
		}
	}
	press(t, m, kp("space"))
	mustContain(t, plain(m), "! keep    server.js")
	press(t, m, kp("y"))
	mustContain(t, plain(m), "! server.js", "kept, changed since the agent")
}

// TestRewoundTurnNarrow: at 80×24 a rewound turn's file row, short of
// room for the agent's change in words, says rewound, never a bare
// "created" that reads as the disk now.
func TestRewoundTurnNarrow(t *testing.T) {
	m := testModel(t, sample(), 80, 24)
	press(t, m, keys("j", "r", "y", "k")...) // turns 2 and 3 rewound; turn 3
	for _, l := range strings.Split(plain(m), "\n") {
		l, _, _ = strings.Cut(l, "│")
		if strings.Contains(l, "src/config.js") {
			if strings.HasSuffix(strings.TrimSpace(l), "created") || !strings.Contains(l, "rewound") {
				t.Fatalf("turn 3's src/config.js reads %q, want it rewound:\n%s", l, plain(m))
			}
			return
		}
	}
	t.Fatalf("no row for src/config.js:\n%s", plain(m))
}
