package present

import (
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 files"}, {1, "1 file"}, {2, "2 files"}} {
		if got := Count(c.n, "file"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestAge(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.Local)
	for _, c := range []struct {
		ago      time.Duration
		age, phr string
	}{
		{40 * time.Second, "40s", "40s ago"},
		{5 * time.Minute, "5m", "5m ago"},
		{3 * time.Hour, "3h", "3h ago"},
		{47 * time.Hour, "47h", "47h ago"},
		{3 * 24 * time.Hour, "3d", "3d ago"},
		{30 * 24 * time.Hour, "Oct 31", "Oct 31"},
		{-time.Second, "0s", "0s ago"}, // a clock a little ahead
	} {
		if got := Age(now, now.Add(-c.ago)); got != c.age {
			t.Errorf("Age(-%v) = %q, want %q", c.ago, got, c.age)
		}
		if got := Ago(now, now.Add(-c.ago)); got != c.phr {
			t.Errorf("Ago(-%v) = %q, want %q", c.ago, got, c.phr)
		}
	}
	if Age(now, time.Time{}) != "?" {
		t.Errorf("a zero time is not ?")
	}
}

// TestEveryStatusSaid: each status the store reports has its own letter
// and words.
func TestEveryStatusSaid(t *testing.T) {
	seen := map[string]store.Status{}
	for _, s := range []store.Status{store.StatusSkipped, store.StatusMissingBlob, store.StatusHandEdited,
		store.StatusCreated, store.StatusDeleted, store.StatusModified, store.StatusUnchanged, store.StatusUnknown} {
		l := StatusLetter(s)
		if other, dup := seen[l]; dup {
			t.Errorf("%q and %q share the letter %q", s, other, l)
		}
		seen[l] = s
		if StatusWord(s) == "" || StatusShort(s) == "" {
			t.Errorf("%q has no words", s)
		}
	}
	if StatusLetter(store.StatusRefused) != "X" {
		t.Errorf("refused is not X")
	}
	if w := StatusWord(store.Status("\x1b[2Jodd")); w != `\x1b[2Jodd` {
		t.Errorf("an unknown status is not escaped: %q", w)
	}
}

func TestOpTitle(t *testing.T) {
	for _, c := range []struct {
		kind store.Kind
		want string
	}{{store.KindRewind, "Rewind to before turn 3"}, {store.KindUndo, "Undo 3"}, {store.KindRedo, "Redo 3"}} {
		if got := OpTitle(c.kind, "3"); got != c.want {
			t.Errorf("OpTitle(%s) = %q, want %q", c.kind, got, c.want)
		}
	}
	if got := OpSummary(store.KindRewind, "3", 2, 1); got != "rewound 2 turns · 1 file" {
		t.Errorf("OpSummary = %q", got)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 512: "512 B", 6144: "6.0 KiB", 9 << 20: "9.0 MiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestWarning(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		kind, turn, path, from string
		to, want               string
	}{
		{"head moved", "head-moved", "3", "", "0123456789abcdef", "fedcba9876543210", "git HEAD moved since turn 3 (01234567 → fedcba98)"},
		{"short hashes", "head-moved", "3", "", "abc", "def", "git HEAD moved since turn 3 (abc → def)"},
		{"in flight", "in-flight", "4", "src/a.go", "", "", "turn 4 captured src/a.go but has not sealed it: the agent may be writing right now"},
		{"unknown kind", "later", "5", "", "", "", "later (turn 5)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Warning(tc.kind, tc.turn, tc.path, tc.from, tc.to); got != tc.want {
				t.Errorf("Warning = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAgeChange: Age reads the same until AgeChange has passed, and
// differently once it has.
func TestAgeChange(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.Local)
	for _, ago := range []time.Duration{
		-1500 * time.Millisecond, -time.Nanosecond, 0, 300 * time.Millisecond, 5 * time.Second, 59*time.Second + 999*time.Millisecond,
		time.Minute, 5*time.Minute + 30*time.Second, 59 * time.Minute, 3*time.Hour + time.Second, 47*time.Hour + 59*time.Minute,
		48 * time.Hour, 13*24*time.Hour + 23*time.Hour,
	} {
		at := now.Add(-ago)
		next, ok := AgeChange(now, at)
		if !ok || next <= 0 {
			t.Fatalf("AgeChange(%v old) = %v, %v: want a wait", ago, next, ok)
		}
		if a, b := Age(now, at), Age(now.Add(next-time.Nanosecond), at); a != b {
			t.Errorf("%v old: Age changes from %q to %q before AgeChange's %v", ago, a, b, next)
		}
		if a, b := Age(now, at), Age(now.Add(next), at); a == b {
			t.Errorf("%v old: Age still reads %q after AgeChange's %v", ago, a, next)
		}
	}
	for _, at := range []time.Time{{}, now.Add(-15 * 24 * time.Hour)} {
		if _, ok := AgeChange(now, at); ok {
			t.Errorf("AgeChange(%v) says a fixed Age changes", at)
		}
	}
}

// AgeWidth is the width of Age, at every unit and across each unit's
// change of digits.
func TestAgeWidth(t *testing.T) {
	now := time.Date(2026, 11, 29, 22, 43, 45, 0, time.Local)
	ats := []time.Time{{}, now.Add(time.Hour)}
	for _, unit := range []time.Duration{time.Second, time.Minute, time.Hour, 24 * time.Hour} {
		for n := range 120 {
			ats = append(ats, now.Add(-time.Duration(n)*unit), now.Add(-time.Duration(n)*unit-unit/2))
		}
	}
	for d := range 60 {
		ats = append(ats, now.AddDate(0, 0, -14-d))
	}
	for _, at := range ats {
		a := Age(now, at)
		if w := AgeWidth(now, at); w != len(a) || w > MaxAgeWidth {
			t.Errorf("AgeWidth(%v) = %d, Age is %q", now.Sub(at), w, a)
		}
	}
}

// KindChange names a change of kind in people's words, and nothing for
// the same kind (a large file is a file), a creation or a deletion.
func TestKindChange(t *testing.T) {
	for _, c := range []struct{ was, now, want string }{
		{"dir", "content", "folder → file"},
		{"content", "dir", "file → folder"},
		{"symlink", "dir", "link → folder"},
		{"content", "symlink", "file → link"},
		{"skipped", "content", ""},
		{"content", "content", ""},
		{"absent", "dir", ""},
		{"dir", "absent", ""},
		{"dir", "", ""},
	} {
		if got := KindChange(c.was, c.now); got != c.want {
			t.Errorf("KindChange(%q, %q) = %q, want %q", c.was, c.now, got, c.want)
		}
	}
}

// UndoVerb says what an undo or redo does for each kind it acts on: an
// undo of a revert never claims to bring turns back, and of a retry it
// says the operation retried stays.
func TestUndoVerb(t *testing.T) {
	for _, c := range []struct{ op, undone, retry, want string }{
		{"undo", "rewind", "", "brings back turns 2, 3"},
		{"undo", "revert", "", "puts back the changes of turns 2, 3, keeping every later change"},
		{"undo", "revert", "op-1", "puts the paths it retried back as op-1 left them; op-1 stays in effect"},
		{"undo", "rewind", "op-1", "puts the paths it retried back as op-1 left them; op-1 stays in effect"},
		{"redo", "rewind", "", "undoes turns 2, 3 again"},
		{"redo", "revert", "", "takes out the changes of turns 2, 3 again, keeping every later change"},
		{"redo", "revert", "op-1", "retries again what op-1 could not put back"},
		{"undo", "", "", "brings back turns 2, 3"},
	} {
		if got := UndoVerb(c.op, c.undone, c.retry, []string{"2", "3"}); got != c.want {
			t.Errorf("UndoVerb(%s, %s, %q) = %q, want %q", c.op, c.undone, c.retry, got, c.want)
		}
	}
	if got := UndoVerb("undo", "revert", "", []string{"2"}); got != "puts back the changes of turn 2, keeping every later change" {
		t.Errorf("one turn: %q", got)
	}
	for _, c := range []struct{ kind, target, retry, want string }{
		{"rewind", "3", "", "the rewind to before turn 3"},
		{"revert", "3", "", "the revert of turn 3"},
		{"revert", "", "", "the revert of the session's 2 turns"},
		{"revert", "3", "op-1", "the retry of op-1"},
		{"undo", "op-1", "", ""},
	} {
		if got := UndoneName(c.kind, c.target, c.retry, 2); got != c.want {
			t.Errorf("UndoneName(%s, %s, %q) = %q, want %q", c.kind, c.target, c.retry, got, c.want)
		}
	}
}
