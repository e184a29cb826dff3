// Command ckpt makes an AI coding agent's work undoable, turn by turn.
//
// Before an agent writes a file, ckpt keeps the file's bytes; afterwards it
// records what the agent wrote. `ckpt` opens a terminal UI to browse the
// turns and rewind them; the subcommands below do the same from scripts
// and agent hooks. See README.md and the store package for the format.
package main

import (
	"fmt"
	"os"

	"ckpt/store"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0"

const usage = `ckpt makes an AI coding agent's work undoable, turn by turn.

usage:
  ckpt [ui] [--root DIR]                      the terminal UI
  ckpt demo [--dir DIR] [--no-ui]             a sample project with agent turns
  ckpt capture --turn T [--label L] PATH...   keep pre-images before an agent writes
  ckpt seal --turn T PATH...                  record what the agent wrote
  ckpt write --turn T [--label L] PATH        capture, write standard input to PATH, seal
  ckpt rm --turn T [--label L] PATH...        capture, delete, seal
  ckpt log [--json]                           turns and operations, newest first
  ckpt show TURN [--json]                     a turn's files against the disk
  ckpt diff TURN [PATH...]                    unified diff, pre-image → disk now
  ckpt rewind TURN [--dry-run] [--yes] [--json]
  ckpt undo [--dry-run] [--yes] [--force] [--json]
  ckpt redo [--dry-run] [--yes] [--force] [--json]
  ckpt prune [--keep N] [--older-than DUR] [--dry-run]
  ckpt verify [--json]                        check every record and blob
  ckpt hook claude|gemini|codex|opencode      an agent's hook (JSON on stdin)
  ckpt install AGENT [--dry-run]              add ckpt's hooks to the agent's project config
  ckpt uninstall AGENT                        take them out again
  ckpt --version

Every command takes --root DIR (or $CKPT_ROOT); capture, seal, write and rm
take --max-blob SIZE (default 8MiB).
exit: 0 done, 1 error, 2 usage, 3 done in part, 4 plan shown, nothing changed
`

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 {
		return runUI(nil)
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "ui":
		return runUI(rest)
	case "demo":
		return cmdDemo(rest)
	case "capture":
		return cmdCapture(rest)
	case "seal":
		return cmdSeal(rest)
	case "write":
		return cmdWrite(rest)
	case "rm":
		return cmdRm(rest)
	case "log":
		return cmdLog(rest)
	case "show":
		return cmdShow(rest)
	case "diff":
		return cmdDiff(rest)
	case "rewind":
		return cmdOperation(store.KindRewind, rest)
	case "undo":
		return cmdOperation(store.KindUndo, rest)
	case "redo":
		return cmdOperation(store.KindRedo, rest)
	case "prune":
		return cmdPrune(rest)
	case "verify":
		return cmdVerify(rest)
	case "hook":
		return runHook(rest)
	case "install":
		return runInstall(rest)
	case "uninstall":
		return runUninstall(rest)
	case "--version", "version", "-v":
		fmt.Printf("ckpt %s\nstore format: %s\n", version, store.FormatName)
		return 0
	case "help", "--help", "-h":
		fmt.Print(usage)
		return 0
	}
	if len(cmd) > 0 && cmd[0] == '-' {
		// Flags alone, such as `ckpt --root DIR`, open the UI.
		return runUI(args)
	}
	fmt.Fprintf(os.Stderr, "ckpt: unknown command %q\n%s", cmd, usage)
	return 2
}
