// Command ckpt-hook is what `ckpt install` points an agent's hooks at when
// it stands next to the ckpt binary: `ckpt-hook hook AGENT` does exactly
// what `ckpt hook AGENT` does, the agent's event arriving as JSON on
// standard input. An agent starts it once per tool call, so it is built
// from the store and the hook adapters alone, without the command line and
// the terminal UI, and starts sooner (README, Speed, measures it). Install it
// with ckpt:
//
//	CGO_ENABLED=0 go install . ./cmd/ckpt-hook
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/agent"
)

const usage = `usage: ckpt-hook [--root DIR] hook AGENT

ckpt-hook is the hook entry point ckpt install writes into an agent's
configuration; it does what ckpt hook AGENT does (see ckpt hook --help).
AGENT is one of %s.
`

func main() {
	tuneGC()
	args := os.Args[1:]
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Printf(usage, strings.Join(agent.Agents(), ", "))
		return
	}
	// As ckpt hook: always exit 0 with nothing on standard error; errors
	// go to the store's log.
	agent.SilenceStderr()
	name, opt, ok := parse(args)
	if !ok {
		// Gemini CLI reads standard output as the hook's answer even then;
		// a known agent's adapter answers for itself.
		if slices.Contains(args, "gemini") {
			fmt.Println("{}")
		}
		return
	}
	_ = agent.Hook(name, os.Stdin, os.Stdout, opt)
}

// parse reads the arguments ckpt hook takes: hook AGENT, with --root DIR
// (or --root=DIR) before or after them.
func parse(args []string) (string, agent.HookOptions, bool) {
	var opt agent.HookOptions
	var pos []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--root" && i+1 < len(args):
			opt.Root = args[i+1]
			i++
		case strings.HasPrefix(a, "--root="):
			opt.Root = strings.TrimPrefix(a, "--root=")
		case strings.HasPrefix(a, "-"):
			return "", opt, false
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) != 2 || pos[0] != "hook" || !agent.Known(pos[1]) || opt.Root == "" && slices.Contains(args, "--root=") {
		return "", opt, false
	}
	return pos[1], opt, true
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
