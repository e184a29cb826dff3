package ui

import (
	"strings"
	"testing"
)

// TestShellMark: a file a shell command changed is marked in the files
// pane, and the diff pane names the command with control characters
// escaped.
func TestShellMark(t *testing.T) {
	f := newFake()
	f.write("1", "tidy", t0, "a.txt", []byte("a\n"))
	f.turns[0].files[0].Shell = "sed -i s/a/b/ a.txt \x1b[2J"
	m := testModel(t, f, 120, 30)
	s := plain(m)
	mustContain(t, s, "a.txt", "$", `changed by the shell command $ sed -i s/a/b/ a.txt \x1b[2J`)
	if strings.Contains(screen(m), "\x1b[2J") {
		t.Fatal("the command's control characters reached the screen")
	}
}
