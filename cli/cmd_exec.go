package cli

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/agent"
	"github.com/ckpt-dev/ckpt/agent/setup"
	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newExecCmd) }

func newExecCmd(g *globals) *cobra.Command {
	var f turnFlags
	cmd := &cobra.Command{
		Use:   "exec --turn T [--label L] -- CMD [ARGS...]",
		Short: "Run a command with a sweep of the tree before and after it",
		Long: `exec runs CMD with the same sweep the hooks make around an agent's shell
command. Before it, every file that changed since the last sweep has its
bytes kept (a hand edit, in no turn); after it, every path CMD changed,
created or deleted is recorded in turn T, so rewinding T undoes CMD. Folders
the project's .gitignore files ignore, and .ckptignore patterns, are not
swept; ignored files such as .env are.

CMD's standard input, output and error are its own, and exec exits with
CMD's status (128+N when a signal N ended it). When the sweep after CMD
fails, exec says so on stderr and exits 1 if CMD itself succeeded.`,
		Example: `ckpt exec --turn 7 --label "format" -- gofmt -w .
ckpt exec --turn 7 -- sh -c 'sed -i s/foo/bar/ *.go && rm -f old.go'`,
		Args: minArgs(1, "--turn T and a command to run"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.needTurn(cmd, "a command to run"); err != nil {
				return err
			}
			s, err := g.openStore(storeOptions{create: true, maxBlob: f.maxBlob})
			if err != nil {
				return err
			}
			defer s.Close()
			err = runSwept(s, f.id(), store.TurnMeta{Label: f.label}, args)
			// Like a turn's end: the background pass, if one is due, once
			// the store has been quiet a while (a script may run another
			// exec at once).
			if os.Getenv("CKPT_BACKGROUND") != "off" {
				if root, rerr := g.projectRoot(); rerr == nil {
					if merr := agent.StartMaintenance(s, root, true); merr != nil {
						s.LogError("exec: %v", merr)
					}
				}
			}
			return err
		},
	}
	// Flags after CMD are CMD's own.
	cmd.Flags().SetInterspersed(false)
	f.add(cmd, true)
	return cmd
}

// runSwept sweeps, runs argv with the terminal's streams, and sweeps again.
func runSwept(s *store.Store, turn store.TurnID, meta store.TurnMeta, argv []string) error {
	line := commandLine(argv)
	if _, err := s.SweepBefore(turn, meta, line); err != nil {
		return fmt.Errorf("sweep before %s: %w", esc(line), err)
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	// A Ctrl-C reaches the command (same process group); ckpt stays to
	// record what it changed before it stopped.
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGHUP)
	runErr := c.Run()
	signal.Stop(sig)
	code := exitOK
	var ee *exec.ExitError
	switch {
	case errors.As(runErr, &ee):
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	case runErr != nil:
		// Never started: nothing to sweep.
		fmt.Fprintf(os.Stderr, "ckpt: exec %s: %s\n", esc(argv[0]), escLines(runErr.Error()))
		return exitWith(127)
	}
	res, err := s.SweepAfter(turn, meta, line)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ckpt: sweep after %s: %s\n", esc(line), escLines(strings.ReplaceAll(err.Error(), "store: ", "")))
		return exitWith(max(code, exitError))
	}
	if res.Fresh {
		fmt.Fprintln(os.Stderr, "ckpt: there was no baseline to compare with, so what the command changed is not recorded; every file is now kept, and the next command is covered")
	}
	for _, p := range res.Problems {
		fmt.Fprintln(os.Stderr, "ckpt: "+esc(p))
	}
	if res.Turn != "" {
		noteIncarnation(turn, res.Turn)
	}
	// The command is over: what git does from now on is not the turn's.
	if err := s.CloseTurn(cmp.Or(res.Turn, turn)); err != nil {
		fmt.Fprintf(os.Stderr, "ckpt: note git's state after %s: %s\n", esc(line), escLines(strings.ReplaceAll(err.Error(), "store: ", "")))
	}
	return exitWith(code)
}

// commandLine is argv as a shell would take it back.
func commandLine(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = setup.ShellQuote(a)
	}
	return strings.Join(q, " ")
}
