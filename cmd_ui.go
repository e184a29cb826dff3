package main

import (
	"fmt"
	"os"
)

// runUI runs the terminal UI: `ckpt` or `ckpt ui [--root DIR]`.
func runUI(args []string) int {
	fmt.Fprintln(os.Stderr, "ckpt: the terminal UI is not built yet")
	return 1
}

// openUI opens the terminal UI on the project at root (used by demo).
func openUI(root string) int {
	fmt.Fprintln(os.Stderr, "ckpt: the terminal UI is not built yet")
	return 1
}
