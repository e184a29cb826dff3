package main

import (
	"github.com/spf13/cobra"
)

func init() { register(newSealCmd) }

func newSealCmd(g *globals) *cobra.Command {
	var f turnFlags
	cmd := &cobra.Command{
		Use:   "seal --turn T PATH...",
		Short: "Record what the agent wrote, after the write",
		Long: `seal records what each PATH holds now as what turn T's agent left there,
so later views can tell the agent's change from changes made since.`,
		Example: `ckpt seal --turn 7 styles.css theme.css`,
		Args:    minArgs(1, "--turn T and at least one PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.needTurn(cmd, "at least one PATH"); err != nil {
				return err
			}
			paths, err := absPaths(args)
			if err != nil {
				return err
			}
			s, err := g.openStore(storeOptions{create: true, maxBlob: f.maxBlob})
			if err != nil {
				return err
			}
			defer s.Close()
			return s.Seal(f.turn, paths)
		},
	}
	f.add(cmd, false)
	return cmd
}
