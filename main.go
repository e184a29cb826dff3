// Command ckpt makes an AI coding agent's work undoable, turn by turn.
//
// Before an agent writes a file, ckpt keeps the file's bytes; afterwards it
// records what the agent wrote. Package cli holds the commands; CONTRACT.md
// lists them, with their flags, JSON and exit codes.
package main

import (
	"os"

	"github.com/ckpt-dev/ckpt/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:]))
}
