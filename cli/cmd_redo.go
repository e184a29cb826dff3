package cli

import (
	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newRedoCmd) }

func newRedoCmd(g *globals) *cobra.Command {
	var f opFlags
	cmd := &cobra.Command{
		Use:     "redo",
		Short:   "Apply again the most recently undone rewind",
		Long:    `redo applies again the rewind the newest undo took back.`,
		Example: `ckpt redo --yes`,
		Args:    noArgs(""),
		RunE: func(*cobra.Command, []string) error {
			return runOperation(g, store.KindRedo, &f, "")
		},
	}
	f.add(cmd, true)
	return cmd
}
