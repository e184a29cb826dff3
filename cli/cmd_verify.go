package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/present"
)

func init() { register(newVerifyCmd) }

func newVerifyCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check every record and blob",
		Long: `verify reads every record and checks every blob against its hash; it exits
1 when it finds damage, naming each damaged file.`,
		Example: `ckpt verify
ckpt verify --json`,
		Args: noArgs(""),
		RunE: func(*cobra.Command, []string) error {
			s, err := g.openStore(storeOptions{})
			if err != nil {
				return err
			}
			defer s.Close()
			found, err := s.Verify()
			if err != nil {
				return err
			}
			if asJSON {
				type findingJSON struct {
					File   string `json:"file"`
					Reason string `json:"reason"`
				}
				packs, loose := s.PackCounts()
				out := struct {
					OK       bool          `json:"ok"`
					Findings []findingJSON `json:"findings"`
					Packs    int           `json:"packs"`
					Loose    int           `json:"loose"`
				}{OK: len(found) == 0, Findings: []findingJSON{}, Packs: packs, Loose: loose}
				for _, f := range found {
					out.Findings = append(out.Findings, findingJSON{f.File, f.Reason})
				}
				if err := printJSON(out); err != nil {
					return err
				}
			} else if len(found) == 0 {
				fmt.Println("store is sound: every record and blob checks out")
			} else {
				for _, f := range found {
					fmt.Printf("damaged: .osfoundry/checkpoints/%s: %s\n", esc(f.File), esc(f.Reason))
				}
			}
			if len(found) > 0 {
				return fmt.Errorf("%s damaged in the store", present.Count(len(found), "file"))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (see CONTRACT.md)")
	return cmd
}
