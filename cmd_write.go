package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"ckpt/store"
)

func init() { register(newWriteCmd) }

func newWriteCmd(g *globals) *cobra.Command {
	var f turnFlags
	cmd := &cobra.Command{
		Use:     "write --turn T [--label L] PATH",
		Short:   "Capture PATH, write standard input to it, seal it",
		Long:    `write is capture, write and seal in one: PATH gets standard input's bytes.`,
		Example: `printf 'body { color: red }\n' | ckpt write --turn 7 styles.css`,
		Args:    exactArgs(1, "--turn T and one PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.needTurn(cmd, "one PATH"); err != nil {
				return err
			}
			paths, err := absPaths(args)
			if err != nil {
				return err
			}
			data, err := io.ReadAll(os.Stdin)
			if err != nil {
				return fmt.Errorf("write: read standard input: %w", err)
			}
			s, err := g.openStore(storeOptions{create: true, maxBlob: f.maxBlob})
			if err != nil {
				return err
			}
			defer s.Close()
			id, err := s.Write(f.turn, store.TurnMeta{Label: f.label}, paths[0], data)
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
