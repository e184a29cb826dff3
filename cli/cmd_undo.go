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
		Long: `undo takes back the newest rewind or revert (or redo of one) not yet undone.
Undoing a rewind brings its turns back; undoing a revert puts the reverted
turn's changes back, keeping every later change; undoing a retry (the same
rewind or revert run again for the paths it could not put back) puts those
paths back as the first run left it, which stays in effect. The plan's
heading says which. It is refused when a newer active turn wrote one of its
paths, unless --force.`,
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
