package cli

import (
	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/store"
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
		Args:    f.pathArgs("--turn T and at least one PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, g, args, "at least one PATH", func(s *store.Store, _ store.TurnMeta, paths []string) (store.TurnID, error) {
				return "", s.Seal(f.id(), paths)
			})
		},
	}
	f.add(cmd, false)
	f.addPaths(cmd)
	return cmd
}
