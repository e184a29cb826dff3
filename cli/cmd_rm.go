package cli

import (
	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newRmCmd) }

func newRmCmd(g *globals) *cobra.Command {
	var f turnFlags
	cmd := &cobra.Command{
		Use:     "rm --turn T [--label L] PATH...",
		Short:   "Capture, delete, seal",
		Long:    `rm keeps each PATH's bytes in turn T, deletes it and records the deletion.`,
		Example: `ckpt rm --turn 7 legacy.js`,
		Args:    f.pathArgs("--turn T and at least one PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, g, args, "at least one PATH", func(s *store.Store, meta store.TurnMeta, paths []string) (store.TurnID, error) {
				return s.Remove(f.id(), meta, paths)
			})
		},
	}
	f.add(cmd, true)
	f.addPaths(cmd)
	return cmd
}
