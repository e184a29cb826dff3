// Command ckpt-hook is what `ckpt install` points an agent's hooks at when
// it stands next to the ckpt binary: `ckpt-hook hook AGENT` does exactly
// what `ckpt hook AGENT` does, the agent's event arriving as JSON on
// standard input. An agent starts it once per tool call, so it is built
// from the store and the hook adapters alone, without the command line and
// the terminal UI, and starts in about half the time. Install it with ckpt:
//
//	CGO_ENABLED=0 go install . ./cmd/ckpt-hook
package main

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"ckpt/agent"
)

const usage = `usage: ckpt-hook hook AGENT [--root DIR]

ckpt-hook is the hook entry point ckpt install writes into an agent's
configuration; it does what ckpt hook AGENT does (see ckpt hook --help).
AGENT is one of %s.
`

func main() {
	args := os.Args[1:]
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Printf(usage, strings.Join(agent.Agents(), ", "))
		return
	}
	// As ckpt hook: always exit 0 with nothing on standard error, not even
	// the runtime's crash report (Codex and Gemini CLI read either as a
	// reason to block the tool); errors go to the store's log.
	if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		_ = unix.Dup2(int(null.Fd()), 2)
		os.Stderr = null
	}
	var opt agent.HookOptions
	if len(args) == 4 && args[2] == "--root" {
		opt.Root, args = args[3], args[:2]
	}
	if len(args) != 2 || args[0] != "hook" || !agent.Known(args[1]) {
		// Gemini CLI reads standard output as the hook's answer even then.
		if len(args) > 0 && args[len(args)-1] == "gemini" {
			fmt.Println("{}")
		}
		return
	}
	_ = agent.Hook(args[1], os.Stdin, os.Stdout, opt)
}
