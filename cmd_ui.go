package main

import (
	"context"
	"fmt"
	"os"

	"ckpt/store"
	"ckpt/ui"
)

// The store is what the UI reads.
var _ ui.Store = (*store.Store)(nil)

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
	if err := ui.Run(context.Background(), s, ui.RunOptions{NoColor: os.Getenv("NO_COLOR") != ""}); err != nil {
		return fail(fmt.Errorf("terminal UI: %w", err))
	}
	return 0
}
