package cli

import (
	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newUndoCmd) }

func newUndoCmd(g *globals) *cobra.Command {
	var f opFlags
	cmd := &cobra.Command{
		Use:   "undo",
		Short: "Undo the newest rewind not yet undone",
		Long: `undo brings back what the newest rewind (or redo) changed. It is refused
when a newer active turn wrote one of its paths, unless --force.`,
		Example: `ckpt undo --dry-run
ckpt undo --yes`,
		Args: noArgs(""),
		RunE: func(*cobra.Command, []string) error {
			return runOperation(g, store.KindUndo, &f, "")
		},
	}
	f.add(cmd, true)
	return cmd
}
