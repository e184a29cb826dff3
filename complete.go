package main

import (
	"github.com/spf13/cobra"

	"ckpt/store"
)

// completeTurns completes the first n arguments with turn ids, each
// described by its label; read-only, so it never creates a store.
func completeTurns(g *globals, n int) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) >= n {
			return nil, cobra.ShellCompDirectiveDefault
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
