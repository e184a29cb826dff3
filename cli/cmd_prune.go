package cli

import (
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newPruneCmd) }

func newPruneCmd(g *globals) *cobra.Command {
	var (
		keep      int
		olderThan string
		dryRun    bool
	)
	cmd := &cobra.Command{
		Use:   "prune (--keep N | --older-than DUR | --dry-run)",
		Short: "Drop old turns and the blobs nothing refers to",
		Long: `prune drops turns beyond the newest N, or older than DUR, then deletes the
blobs no remaining record refers to.`,
		Example: `ckpt prune --keep 50
ckpt prune --older-than 7d --dry-run`,
		Args: noArgs(" (use --keep N, --older-than DUR or --dry-run)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var o store.PruneOptions
			if keep < 0 {
				return usageErrorf("--keep %d is not a count", keep)
			}
			if keep == 0 && cmd.Flags().Changed("keep") {
				// Keep 0 would drop every turn; a path's copies go with purge.
				return usageErrorf("--keep 0 keeps no turn: give at least 1 (ckpt purge PATH removes one path's copies)")
			}
			o.Keep = keep
			if olderThan != "" {
				d, err := parseDuration(olderThan)
				if err != nil {
					return usageErrorf("--older-than %q: %v", olderThan, err)
				}
				o.OlderThan = d
			}
			if o.Keep == 0 && o.OlderThan == 0 && !dryRun {
				// --dry-run alone drops no turn: it says what collecting
				// and packing the blobs would do.
				return usageErrorf("prune needs --keep N or --older-than DUR (or --dry-run alone, to see what the blobs would gain)")
			}
			o.DryRun = dryRun
			s, err := g.openStore(storeOptions{})
			if err != nil {
				return err
			}
			defer s.Close()
			res, err := s.Prune(o)
			if err != nil {
				return err
			}
			verb := "dropped"
			if o.DryRun {
				verb = "would drop"
			}
			sort.Strings(res.Turns)
			packed := ""
			if res.Packed > 0 {
				pack := "packed"
				if o.DryRun {
					pack = "would pack"
				}
				packed = fmt.Sprintf(", %s %s kept loose", pack, present.Count(res.Packed, "blob"))
			}
			fmt.Printf("%s %s and %s%s (%s)\n", verb, present.Count(len(res.Turns), "turn"), present.Count(res.Blobs, "blob"), packed, freedText(res.BytesFreed, o.DryRun))
			if o.DryRun {
				return exitWith(exitPlanShown)
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&keep, "keep", 0, "keep the newest N turns")
	cmd.Flags().StringVar(&olderThan, "older-than", "", "drop turns older than DUR (72h, 7d)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "say what would go and delete nothing (exit 4)")
	return cmd
}

// freedText says how many bytes a prune freed, or would free; packing
// small blobs can cost a few bytes of framing instead.
func freedText(n int64, dryRun bool) string {
	switch {
	case n < 0 && dryRun:
		return present.Bytes(-n) + " more would be taken"
	case n < 0:
		return present.Bytes(-n) + " more taken"
	case dryRun:
		return present.Bytes(n) + " would be freed"
	}
	return present.Bytes(n) + " freed"
}
