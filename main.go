// Command ckpt makes an AI coding agent's work undoable, turn by turn.
//
// Before an agent writes a file, ckpt keeps the file's bytes; afterwards it
// records what the agent wrote. Package cli holds the commands; CONTRACT.md
// lists them, with their flags, JSON and exit codes.
package main

import (
	"os"
	"runtime/debug"

	"github.com/ckpt-dev/ckpt/cli"
)

func main() {
	tuneGC()
	os.Exit(cli.Run(os.Args[1:]))
}

// tuneGC is the one runtime setting the binaries make (library code
// makes none): a warm sweep allocates a listing of the whole tree that is
// garbage a moment later, and a higher collection target spares about a
// fifth of its CPU time; the soft limit keeps a first sweep, which holds
// files' bytes, from growing its heap five times over.
func tuneGC() {
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(256 << 20)
}
