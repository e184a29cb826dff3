package cli

import (
	"strings"
	"testing"

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
