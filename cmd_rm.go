package main

import (
	"github.com/spf13/cobra"

	"ckpt/store"
)

func init() { register(newRmCmd) }

func newRmCmd(g *globals) *cobra.Command {
	var f turnFlags
	cmd := &cobra.Command{
		Use:     "rm --turn T [--label L] PATH...",
		Short:   "Capture, delete, seal",
		Long:    `rm keeps each PATH's bytes in turn T, deletes it and records the deletion.`,
		Example: `ckpt rm --turn 7 legacy.js`,
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
			id, err := s.Remove(f.turn, store.TurnMeta{Label: f.label}, paths)
			if err != nil {
				return err
			}
			noteIncarnation(f.turn, id)
			return nil
		},
	}
	f.add(cmd, true)
	return cmd
}
