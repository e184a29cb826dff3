// Command ckpt makes an AI coding agent's work undoable, turn by turn.
package main

import (
	"fmt"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 {
		return runUI(nil)
	}
	switch args[0] {
	case "ui":
		return runUI(args[1:])
	case "hook":
		return runHook(args[1:])
	case "install":
		return runInstall(args[1:])
	case "uninstall":
		return runUninstall(args[1:])
	}
	fmt.Fprintf(os.Stderr, "ckpt: unknown command %q\n", args[0])
	return 2
}
