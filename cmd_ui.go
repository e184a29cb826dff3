package main

import (
	"context"
	"errors"
	"fmt"
	"os"

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

// runUI runs the terminal UI: `ckpt` or `ckpt ui [--root DIR]`.
func runUI(args []string) int {
	a, err := parseArgs(args, []string{"root"}, nil)
	if err != nil {
		return fail(err)
	}
	if len(a.pos) > 0 {
		return fail(fmt.Errorf("ui takes no arguments (use --root DIR): %w", errUsage))
	}
	root, err := rootOf(a)
	if err != nil {
		return fail(err)
	}
	return openUI(root)
}

// openUI opens the terminal UI on the project at root (used by demo).
func openUI(root string) int {
	a := &args{vals: map[string]string{"root": root}, set: map[string]bool{}}
	s, err := openStore(a, false)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	ro := ui.RunOptions{NoColor: os.Getenv("NO_COLOR") != "", Editor: os.Getenv("EDITOR")}
	if err := ui.Run(context.Background(), uiStore{s}, ro); err != nil {
		return fail(fmt.Errorf("terminal UI: %w", err))
	}
	return 0
}
