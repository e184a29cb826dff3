package cli

import (
	"strings"
	"testing"
	"time"
)

func TestLogJSON(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	p.turn(t, "1", "first turn", []string{"a.txt", "new.txt"}, func() {
		writeTexts(t, p.root, map[string]string{"a.txt": "a1\n", "new.txt": "n\n"})
	})
	p.turn(t, "fix-login", "second \x1b[2J turn", []string{"b.txt"}, func() {
		writeText(t, p.root, "b.txt", "b1\n")
	})
	es := ckptLog(t, p.root)
	if len(es) != 2 {
		t.Fatalf("log --json: %d entries, want 2: %+v", len(es), es)
	}
	if es[0].Turn != "fix-login" || es[1].Turn != "1" {
		t.Errorf("log --json order %q, %q; want newest first: fix-login, 1", es[0].Turn, es[1].Turn)
	}
	if es[0].At < es[1].At {
		t.Errorf("at %q of the newer turn sorts before %q", es[0].At, es[1].At)
	}
	for _, e := range es {
		if e.Kind != "agent" || e.State != "active" || e.HandEdited != 0 {
			t.Errorf("turn %s: kind %q state %q hand_edited %d; want agent active 0", e.Turn, e.Kind, e.State, e.HandEdited)
		}
		at, err := time.Parse(wantAtLayout, e.At)
		if err != nil || time.Since(at) > time.Hour || time.Until(at) > time.Minute {
			t.Errorf("turn %s: at %q is not a UTC time of this run (%v)", e.Turn, e.At, err)
		}
	}
	if es[1].Label != "first turn" || es[1].Files != 2 || es[0].Files != 1 {
		t.Errorf("labels/files: %+v", es)
	}
	if es[0].Label != "second \x1b[2J turn" {
		t.Errorf("JSON label %q, want the raw label", es[0].Label)
	}
	// The text log escapes control characters: no raw ESC reaches a terminal.
	if r := ckptOK(t, p.root, "log"); strings.ContainsRune(r.Stdout, 0x1b) || !strings.Contains(r.Stdout, "fix-login") {
		t.Errorf("text log shows a raw escape or lacks a turn:\n%q", r.Stdout)
	}

	// A change made after the agent's write counts as hand_edited.
	writeText(t, p.root, "b.txt", "b by hand\n")
	es = ckptLog(t, p.root)
	if e := findEntry(t, es, "fix-login"); e.HandEdited != 1 {
		t.Errorf("after editing b.txt by hand: turn fix-login hand_edited %d, want 1", e.HandEdited)
	}
	if e := findEntry(t, es, "1"); e.HandEdited != 0 {
		t.Errorf("turn 1 hand_edited %d, want 0", e.HandEdited)
	}
}

// TestLogCountAndPaths: -n keeps the newest rows; paths after -- keep the
// turns that touched them, a folder standing for what is under it.
func TestLogCountAndPaths(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a\n", "src/b.txt": "b\n"})
	p.turn(t, "1", "first", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "A\n") })
	p.turn(t, "2", "second", []string{"src/b.txt"}, func() { writeText(t, p.root, "src/b.txt", "B\n") })
	p.turn(t, "3", "third", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "AA\n") })
	rows := func(r ckptRun) []string {
		var ids []string
		for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			ids = append(ids, strings.Fields(l)[0])
		}
		return ids
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"log", "-n", "2"}, "3 2"},
		{[]string{"log", "--max-count=1"}, "3"},
		{[]string{"log", "--", "a.txt"}, "3 1"},
		{[]string{"log", "--", "src"}, "2"},
		{[]string{"log", "-n", "1", "--", "a.txt"}, "3"},
	} {
		if got := strings.Join(rows(ckptOK(t, p.root, c.args...)), " "); got != c.want {
			t.Errorf("%v: rows %q, want %q", c.args, got, c.want)
		}
	}
	var js []logJSON
	decodeJSON(t, ckptOK(t, p.root, "log", "--json", "-n", "1", "--", "src/b.txt"), &js)
	if len(js) != 1 || js[0].Turn != "2" {
		t.Errorf("log --json -n 1 -- src/b.txt: %+v", js)
	}
	if r := ckptOK(t, p.root, "log", "--", "nothing.txt"); !strings.Contains(r.Stdout, "no turn touched nothing.txt") {
		t.Errorf("no match: %s", r)
	}
	ckptCode(t, p.root, exitUsage, "log", "-n", "-1")
}
