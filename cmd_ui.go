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

// uiStore is the store as the UI asks for it.
type uiStore struct{ *store.Store }

var _ ui.Store = uiStore{}

// PlanRewind plans a rewind; this store cannot leave paths out of one yet.
func (u uiStore) PlanRewind(turn string, keep []string) (*store.Plan, error) {
	if len(keep) > 0 {
		return nil, errors.New("this store cannot keep files out of a rewind yet")
	}
	return u.Store.PlanRewind(turn)
}

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
	ro := ui.RunOptions{NoColor: os.Getenv("NO_COLOR") != "", Editor: os.Getenv("EDITOR")}
	if err := ui.Run(context.Background(), uiStore{s}, ro); err != nil {
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
