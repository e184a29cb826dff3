//go:build linux

package cli

// Runs at a terminal, through a pseudo-terminal: ckpt ui --watch, and the
// question rewind, undo and revert ask before they change anything.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// ckpt ui --watch runs ckpt watch while the UI is open: a change in the
// tree becomes a watched turn, and q closes the UI and the watch with it
// (exit 0), after which ckpt turn finds no watch to cut a turn for.
func TestUIWatchThroughBinary(t *testing.T) {
	controller, terminal := openPTY(t)
	if err := unix.IoctlSetWinsize(int(terminal.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 30, Col: 100}); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeText(t, root, "a.txt", "a 0\n")
	cmd := ckptCommand(context.Background(), ckptCall{Root: root, Env: []string{"TERM=xterm-256color"}}, "ui", "--watch", "--quiet", "1s")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = terminal, terminal, terminal
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	terminal.Close()
	go io.Copy(io.Discard, controller) // the screens; ends with EIO once it exits
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer cmd.Process.Kill()

	watched := func() []logRow {
		r := ckpt(t, root, "log", "--json")
		var rows []logRow
		if r.Code == 0 {
			json.Unmarshal([]byte(r.Stdout), &rows)
		}
		return rows
	}
	// ckpt turn answers once the watch runs.
	for i := 0; ; i++ {
		if r := ckpt(t, root, "turn", "--label", "by hand"); r.Code == 0 {
			break
		}
		if i == 300 {
			t.Fatalf("ckpt ui --watch never ran a watch")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// A change made while the first sweep still runs is in its copy, so
	// the file changes again until a turn holds a change.
	var rows []logRow
	for i := 0; len(rows) == 0; i++ {
		if i == 300 {
			t.Fatalf("no watched turn after a change")
		}
		if i%20 == 0 {
			writeText(t, root, "a.txt", fmt.Sprintf("a %d\n", i+1))
		}
		time.Sleep(100 * time.Millisecond)
		rows = watched()
	}
	// The first turn after the cut takes its label; on a loaded machine
	// a later write may have made another by the time the log is read.
	first := rows[len(rows)-1]
	if e := first; e.Kind != "agent" || e.Source == nil || e.Source.Agent != "watch" || e.Label != "by hand" {
		t.Errorf("watched turn %+v, want source watch, labelled as ckpt turn asked", e)
	}
	if st := ckptShow(t, root, first.Turn).statuses(); st["a.txt"] == "" {
		t.Errorf("show %s: %v, want a.txt", first.Turn, st)
	}
	if _, err := controller.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("ckpt ui --watch after q: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("ckpt ui --watch did not end on q")
	}
	r := ckptCode(t, root, exitError, "turn")
	wantSubstrings(t, "ckpt turn after the UI closed", r.Stderr, "no ckpt watch")
}

// promptRun runs ckpt with standard input and standard error on a
// terminal and standard output into a pipe, typing answer; it returns the
// exit code, standard output and what the terminal showed.
func promptRun(t *testing.T, root, answer string, args ...string) (int, string, string) {
	t.Helper()
	controller, terminal := openPTY(t)
	cmd := ckptCommand(context.Background(), ckptCall{Root: root, Env: []string{"TERM=xterm-256color"}}, args...)
	var stdout bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = terminal, &stdout, terminal
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	terminal.Close()
	if _, err := controller.Write([]byte(answer + "\n")); err != nil {
		t.Fatal(err)
	}
	var screen bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&screen, controller); close(done) }()
	err := cmd.Wait()
	<-done
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), screen.String()
}

// At a terminal, rewind, undo and revert show the plan and ask on
// standard error, with JSON on standard output: no changes nothing (exit
// 4), yes applies what was shown.
func TestOperationPromptsAtATerminal(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n"})
	p.turn(t, "1", "one", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "a 1\n") })
	applied := func(out string) bool {
		t.Helper()
		var o struct {
			Applied *bool `json:"applied"`
		}
		if err := json.Unmarshal([]byte(out), &o); err != nil || o.Applied == nil {
			t.Fatalf("stdout is no operation JSON: %v\n%s", err, out)
		}
		return *o.Applied
	}

	code, out, screen := promptRun(t, p.root, "n", "rewind", "1", "--json")
	if code != exitPlanShown || applied(out) || !strings.Contains(screen, "[y/N]") || !strings.Contains(screen, "nothing changed") {
		t.Errorf("rewind answered n: exit %d\nstdout:\n%s\nterminal:\n%s", code, out, screen)
	}
	if strings.Contains(out, "[y/N]") {
		t.Errorf("the question went to stdout:\n%s", out)
	}
	if got := readText(t, p.root, "a.txt"); got != "a 1\n" {
		t.Fatalf("a declined rewind changed a.txt to %q", got)
	}
	code, out, screen = promptRun(t, p.root, "y", "rewind", "1", "--json")
	if code != 0 || !applied(out) || !strings.Contains(screen, "restore") {
		t.Errorf("rewind answered y: exit %d\nstdout:\n%s\nterminal:\n%s", code, out, screen)
	}
	if got := readText(t, p.root, "a.txt"); got != "a 0\n" {
		t.Errorf("a.txt after the rewind: %q", got)
	}
	if code, _, screen = promptRun(t, p.root, "yes", "undo"); code != 0 || !strings.Contains(screen, "[y/N]") {
		t.Errorf("undo answered yes: exit %d\nterminal:\n%s", code, screen)
	}
	if got := readText(t, p.root, "a.txt"); got != "a 1\n" {
		t.Errorf("a.txt after the undo: %q", got)
	}
	if code, _, _ = promptRun(t, p.root, "", "revert", "1"); code != exitPlanShown {
		t.Errorf("revert answered with enter alone: exit %d, want 4", code)
	}
	if got := readText(t, p.root, "a.txt"); got != "a 1\n" {
		t.Errorf("a declined revert changed a.txt to %q", got)
	}
}
