package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/store"
)

// completeTurn completes a command's first argument with turn ids, each
// described by its label (read-only: it never creates a store); later
// arguments are paths when thenPaths, else nothing.
func completeTurn(g *globals, thenPaths bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			if thenPaths {
				return nil, cobra.ShellCompDirectiveDefault
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		s, err := g.openStore(storeOptions{})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer s.Close()
		entries, err := s.Log(false)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, e := range entries {
			if e.Kind != store.KindAgent {
				continue
			}
			out = append(out, cobra.CompletionWithDesc(e.ID, esc(e.Label)))
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}

// initCompletion adds cobra's `completion bash|zsh|fish|powershell`
// command now, rather than when the tree runs, so that its mistakes are
// usage errors (exit 2) like every other command's.
func initCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sh := range c.Commands() {
			sh.Args = noArgs("")
			shells = append(shells, sh.Name())
		}
		c.Example = `source <(ckpt completion bash)
ckpt completion zsh > "${fpath[1]}/_ckpt"
ckpt completion fish > ~/.config/fish/completions/ckpt.fish`
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return usageErrorf("completion: no shell %q (want %s)", args[0], strings.Join(shells, ", "))
		}
	}
}
