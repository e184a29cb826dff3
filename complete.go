package main

import (
	"github.com/spf13/cobra"

	"ckpt/store"
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
