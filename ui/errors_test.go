package ui

import (
	"strings"
	"testing"
)

// TestDismissKeepsTheLog: x hides the notice and nothing else; the store's
// error log is untouched and E still shows every error.
func TestDismissKeepsTheLog(t *testing.T) {
	f := sample()
	f.errs = []string{
		"2026-11-29T12:00:00Z hook claude: read .claude/settings.local.json: unexpected end of JSON input",
		"2026-11-29T14:30:00Z hook codex: capture src/app.js: permission denied",
	}
	m := testModel(t, f, 120, 30)
	s := plain(m)
	mustContain(t, s, "2 errors logged (E shows, x hides): hook codex: capture src/app.js: permission denied")
	if strings.Contains(s, "2026-11-29T") {
		t.Fatalf("the status line spends its width on a timestamp:\n%s", s)
	}
	calls := f.count()
	press(t, m, kp("x"))
	if len(f.errs) != 2 || f.count() != calls {
		t.Fatalf("x touched the store: %d errors left, %d calls", len(f.errs), f.count()-calls)
	}
	if strings.Contains(plain(m), "errors logged") {
		t.Fatal("x did not hide the notice")
	}
	if m.bindings().Dismiss.Enabled() {
		t.Fatal("x is offered with no notice to hide")
	}
	press(t, m, kp("E"))
	s = plain(m)
	mustContain(t, s, "Logged errors (2, newest first)", "permission denied", "unexpected end of JSON input", "--errors --clear")
	if strings.Index(s, "permission denied") > strings.Index(s, "unexpected end of JSON") {
		t.Fatalf("errors not newest first:\n%s", s)
	}
	mustContain(t, s, "30m ago") // ages, not timestamps
	press(t, m, kp("esc"))
	if m.errs.open {
		t.Fatal("esc did not close the errors view")
	}
	// An error of the UI's own: x hides it, then the log's notice would
	// show again only if new errors came.
	m.errText = "apply: disk full"
	mustContain(t, plain(m), "disk full", "x hides")
	press(t, m, kp("x"))
	if m.errText != "" {
		t.Fatal("x did not hide the error")
	}
}

// TestDismissOnlyWhatIsShown: while the status line shows the result of
// an action, x is not offered for logged errors it does not show.
func TestDismissOnlyWhatIsShown(t *testing.T) {
	f := sample()
	f.errs = []string{"2026-11-29T12:00:00Z hook claude: bad JSON"}
	m := testModel(t, f, 120, 30)
	m.setStatus("nothing to undo")
	if m.bindings().Dismiss.Enabled() {
		t.Fatal("x offered while the status line shows something else")
	}
	if !m.bindings().Errors.Enabled() {
		t.Fatal("E not offered with an error logged")
	}
}

// TestErrorAfterStatusShows: an error a hook logs while the status line
// holds an operation's hint (which lasts while the operation is in
// effect) takes the status line: the hint would hide it for as long.
func TestErrorAfterStatusShows(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 30)
	press(t, m, keys("j", "r", "y")...)
	mustContain(t, plain(m), "— u to undo")
	f.mu.Lock()
	f.errs = append(f.errs, "2026-11-29T15:00:00Z hook claude: capture src/app.js: permission denied")
	f.mu.Unlock()
	drive(t, m, loadInfo(f))
	mustContain(t, plain(m), "1 error logged (E shows, x hides): hook claude: capture src/app.js: permission denied")
	press(t, m, kp("x"))
	mustContain(t, plain(m), "— u to undo") // the hint again, the error hidden
}
