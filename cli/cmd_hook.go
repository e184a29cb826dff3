package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/agent"
)

func init() { register(newHookCmd) }

func newHookCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "hook AGENT",
		Short: "An agent's hook entry point: its hook JSON on standard input",
		Long: `hook is what an agent's hook configuration runs (ckpt install writes it):
the agent's hook event arrives as JSON on standard input. AGENT is one of
` + strings.Join(agent.Agents(), ", ") + `.

hook always exits 0 and writes nothing on standard error, usage mistakes
included, since an agent may read either as a reason to block its tool; it
logs its errors in the store, where ckpt log and the UI show them.`,
		Example:   `echo '{"hook_event_name":"PreToolUse",…}' | ckpt hook claude`,
		Args:      exactArgs(1, "one AGENT"),
		ValidArgs: agent.Agents(),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !agent.Known(args[0]) {
				return usageErrorf("unknown agent %q (want %s)", args[0], strings.Join(agent.Agents(), ", "))
			}
			return agent.Hook(args[0], os.Stdin, os.Stdout, agent.HookOptions{Root: g.root})
		},
	}
}

// runHook runs `ckpt hook AGENT`. It always returns exitOK and nothing
// reaches standard error, not even the runtime's own crash report (written
// to fd 2 directly): Codex and Gemini CLI read stderr text, and any other
// exit code, as a reason to block the tool. Errors go to the store's log.
func runHook(root *cobra.Command, args []string) int {
	agent.SilenceStderr()
	root.SetErr(io.Discard)
	// Not through fang: a hook prints no help, and every agent tool call
	// pays for whatever runs here.
	if err := root.Execute(); err != nil && slices.Contains(args, "gemini") {
		// Gemini CLI reads stdout as the hook's answer even then. A usage
		// mistake never reached the agent package, which answers itself.
		if errors.Is(err, errUsage) {
			fmt.Println("{}")
		}
	}
	return exitOK
}
