package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newMaintainCmd) }

func newMaintainCmd(g *globals) *cobra.Command {
	var now bool
	var quiet time.Duration
	cmd := &cobra.Command{
		Use:   "maintain [--now]",
		Short: "Merge packs and prune within the retention budget",
		Long: `maintain does what is due: packs the loose blobs the hooks kept once 1,024
have piled up, merges small packs (and writes the lookup index across them)
once there are enough of them, and, at most once an hour, drops
the turns the retention budget in .osfoundry/ckpt.json has no room for (30
days and 2 GiB unless it says otherwise), keeping the newest turns and every
turn an undo or redo still needs. The hooks start it in the background at the
end and the start of each agent turn, and ckpt exec after its command, with
--when-quiet: one pass at a time, after the store has been left alone that
long. --now does both at once.`,
		Example: `ckpt maintain --now`,
		Hidden:  true,
		Args:    noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			var res *store.MaintainResult
			if cmd.Flags().Changed("when-quiet") && !now {
				res, err = s.MaintainWhenQuiet(b, quiet)
			} else {
				res, err = s.Maintain(b, now)
			}
			if err != nil || res == nil {
				return err // nil: another pass runs, or the store never went quiet
			}
			if res.Baseline {
				fmt.Println("baseline: its log folded into a new table")
			}
			if r := res.Repack; r != nil && !r.Busy {
				loose := ""
				if r.Loose > 0 {
					loose = ", packed " + present.Count(r.Loose, "loose blob")
				}
				fmt.Printf("packs: merged %d%s, %s now\n", r.Merged, loose, present.Count(r.Packs, "pack"))
			}
			if r := res.Retain; r != nil {
				fmt.Printf("retention: dropped %s and %s; store %s → %s\n", present.Count(len(r.Turns), "turn"),
					present.Count(r.Blobs, "blob"), present.Bytes(r.Before), present.Bytes(r.After))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&now, "now", false, "repack and apply the budget now, due or not")
	cmd.Flags().DurationVar(&quiet, "when-quiet", 0, "run only as the one pass, once nothing has been written to the store for this long (how hooks start it)")
	return cmd
}
