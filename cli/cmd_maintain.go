package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/present"
)

func init() { register(newMaintainCmd) }

func newMaintainCmd(g *globals) *cobra.Command {
	var now bool
	cmd := &cobra.Command{
		Use:   "maintain [--now]",
		Short: "Merge packs and prune within the retention budget",
		Long: `maintain does what is due: merges small packs (and writes the lookup index
across them) once there are enough of them, and, at most once an hour, drops
the turns the retention budget in .osfoundry/ckpt.json has no room for (30
days and 2 GiB unless it says otherwise), keeping the newest turns and every
turn an undo or redo still needs. The hooks start it in the background at the
end of each agent turn; --now does both at once.`,
		Example: `ckpt maintain --now`,
		Hidden:  true,
		Args:    noArgs(""),
		RunE: func(*cobra.Command, []string) error {
			s, err := g.openStore(storeOptions{})
			if err != nil {
				return err
			}
			defer s.Close()
			root, _ := g.projectRoot()
			b, err := loadBudget(root)
			if err != nil {
				return fmt.Errorf("retention budget: %w", err)
			}
			res, err := s.Maintain(b, now)
			if err != nil {
				return err
			}
			if r := res.Repack; r != nil && !r.Busy {
				fmt.Printf("packs: merged %d, %s now\n", r.Merged, present.Count(r.Packs, "pack"))
			}
			if r := res.Retain; r != nil {
				fmt.Printf("retention: dropped %s and %s; store %s → %s\n", present.Count(len(r.Turns), "turn"),
					present.Count(r.Blobs, "blob"), present.Bytes(r.Before), present.Bytes(r.After))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&now, "now", false, "repack and apply the budget now, due or not")
	return cmd
}
