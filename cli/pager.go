package cli

import (
	"io"
	"os"
	"os/exec"
	"strings"
)

// pager is the program a long output goes through at a terminal, as git
// pages: $PAGER, else less. Empty or "cat" means no pager.
type pager struct {
	cmd *exec.Cmd
	in  io.WriteCloser
}

// startPager starts $PAGER (default less) reading what the caller writes
// and showing it on standard output, when standard output is a terminal
// (not a dumb one).
// It returns nil when there is nothing to start (no terminal, PAGER empty
// or cat, the program missing): the caller then writes to standard output
// itself. As git does, LESS defaults to FRX, so less passes colours
// through and exits at once when the output fits on the screen.
func startPager() *pager {
	if !isTerminal(os.Stdout) || os.Getenv("TERM") == "dumb" {
		// A dumb terminal cannot draw a pager's screen.
		return nil
	}
	prog, set := os.LookupEnv("PAGER")
	if !set {
		if _, err := exec.LookPath("less"); err != nil {
			return nil
		}
		prog = "less"
	}
	prog = strings.TrimSpace(prog)
	if prog == "" || prog == "cat" {
		return nil
	}
	cmd := exec.Command("/bin/sh", "-c", prog)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Env = os.Environ()
	if _, ok := os.LookupEnv("LESS"); !ok {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	if _, ok := os.LookupEnv("LV"); !ok {
		cmd.Env = append(cmd.Env, "LV=-c")
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil
	}
	if err := cmd.Start(); err != nil {
		return nil
	}
	return &pager{cmd: cmd, in: in}
}

// Write writes to the pager; a pager the user quit early makes it fail,
// which the caller takes as the end of the output.
func (p *pager) Write(b []byte) (int, error) { return p.in.Write(b) }

// wait closes the pager's input and waits for the user to leave it.
func (p *pager) wait() {
	_ = p.in.Close()
	_ = p.cmd.Wait()
}
