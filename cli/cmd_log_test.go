package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// TestLogErrors: log --errors prints what hooks logged and keeps it;
// --errors --clear empties the log.
func TestLogErrors(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a\n"})
	p.turn(t, "1", "first", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "A\n") })
	s, err := store.Open(p.root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.LogError("hook claude: %s", "bad JSON on stdin")
	s.Close()
	r := ckptOK(t, p.root, "log", "--errors")
	if !strings.Contains(r.Stdout, "bad JSON on stdin") {
		t.Fatalf("the logged error is not listed\n%s", r)
	}
	r = ckptOK(t, p.root, "log", "--errors")
	if !strings.Contains(r.Stdout, "bad JSON on stdin") {
		t.Fatalf("printing the errors cleared them\n%s", r)
	}
	r = ckptOK(t, p.root, "log", "--errors", "--clear")
	if !strings.Contains(r.Stdout, "cleared 1 error") {
		t.Fatalf("--clear does not say what it cleared\n%s", r)
	}
	r = ckptOK(t, p.root, "log", "--errors")
	if !strings.Contains(r.Stdout, "no errors logged") {
		t.Fatalf("--clear left the errors\n%s", r)
	}
}

// TestLogErrorsJSON: log --errors --json prints the error log as JSON,
// oldest first, each line's time apart from its message; with --clear it
// says how many lines went.
func TestLogErrorsJSON(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a\n"})
	p.turn(t, "1", "first", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "A\n") })
	var got []struct{ At, Error string }
	decodeJSON(t, ckptOK(t, p.root, "log", "--errors", "--json"), &got)
	if got == nil || len(got) != 0 {
		t.Fatalf("no errors logged: %#v, want []", got)
	}
	s, err := store.Open(p.root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.LogError("hook claude: %s", "bad JSON on stdin")
	s.LogError("hook codex: %s", "no such turn")
	s.Close()
	decodeJSON(t, ckptOK(t, p.root, "log", "--errors", "--json"), &got)
	if len(got) != 2 || got[0].Error != "hook claude: bad JSON on stdin" || got[1].Error != "hook codex: no such turn" {
		t.Fatalf("log --errors --json: %#v", got)
	}
	if at, err := time.Parse(time.RFC3339Nano, got[0].At); err != nil || at.IsZero() || !strings.HasSuffix(got[0].At, "Z") {
		t.Fatalf("log --errors --json: at %q (%v), want the UTC time it was logged", got[0].At, err)
	}
	var cleared struct{ Cleared int }
	decodeJSON(t, ckptOK(t, p.root, "log", "--errors", "--clear", "--json"), &cleared)
	if cleared.Cleared != 2 {
		t.Fatalf("log --errors --clear --json: %+v, want 2 cleared", cleared)
	}
	if r := ckptOK(t, p.root, "log", "--errors"); !strings.Contains(r.Stdout, "no errors logged") {
		t.Fatalf("--clear --json left the errors\n%s", r)
	}
}

// TestLogLineGit: a plain log row marks an agent turn that ran git, as
// the UI does, and no other.
func TestLogLineGit(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	e := store.Entry{ID: "2", Kind: store.KindAgent, State: store.StateActive, At: now.Add(-time.Minute), Files: 3,
		Label: "rename the notes", RanGit: true, Source: &store.Source{Agent: "claude"}}
	if got := logLine(paint(false), now, &e); !strings.HasSuffix(got, "rename the notes  [claude]  git") {
		t.Fatalf("a turn that ran git: %q", got)
	}
	e.RanGit = false
	if got := logLine(paint(false), now, &e); strings.Contains(got, "git") {
		t.Fatalf("a turn that ran no git: %q", got)
	}
}
