package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"ckpt/store"
	"ckpt/ui"
)

// The store is what the UI reads.
var _ ui.Store = (*store.Store)(nil)

func init() { register(newUICmd) }

func newUICmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "ui",
		Short: "The terminal UI on the project's store (ckpt alone does the same)",
		Long: `ui lists the turns, shows what each changed and rewinds them; every rewind
can be undone. Press ? in the UI for its keys.`,
		Example: `ckpt ui
ckpt --root ~/src/site`,
		Args: noArgs(" (use --root DIR)"),
		RunE: func(*cobra.Command, []string) error { return runUI(g) },
	}
}

// errNoTerminal is the UI started without a terminal to draw on.
var errNoTerminal = errors.New("the terminal UI needs a terminal; in a script or a pipe use `ckpt log`, `ckpt show TURN` or `ckpt rewind TURN` (`ckpt --help` lists them)")

// runUI runs the terminal UI on the project root.
func runUI(g *globals) error {
	root, err := g.projectRoot()
	if err != nil {
		return err
	}
	return openUI(root)
}

// openUI opens the terminal UI on the project at root (used by demo).
func openUI(root string) error {
	if !hasTerminal() {
		return errNoTerminal
	}
	s, err := (&globals{root: root}).openStore(storeOptions{})
	if err != nil {
		return err
	}
	defer s.Close()
	if err := ui.Run(context.Background(), s, ui.RunOptions{NoColor: os.Getenv("NO_COLOR") != ""}); err != nil {
		return fmt.Errorf("terminal UI: %w", err)
	}
	return nil
}

// hasTerminal reports whether the UI can draw and read keys: standard
// output is a terminal, and so is standard input or the controlling
// terminal the UI falls back to.
func hasTerminal() bool {
	if !isTerminal(os.Stdout) {
		return false
	}
	if isTerminal(os.Stdin) {
		return true
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return false
	}
	tty.Close()
	return true
}
