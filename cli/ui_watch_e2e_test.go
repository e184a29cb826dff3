//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	if e := rows[0]; e.Kind != "agent" || e.Source == nil || e.Source.Agent != "watch" || e.Label != "by hand" {
		t.Errorf("watched turn %+v, want source watch, labelled as ckpt turn asked", e)
	}
	if st := ckptShow(t, root, rows[0].Turn).statuses(); st["a.txt"] == "" {
		t.Errorf("show %s: %v, want a.txt", rows[0].Turn, st)
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
