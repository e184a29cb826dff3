package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newShowCmd) }

func newShowCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show TURN",
		Short: "A turn's files and how each stands against the disk",
		Long: `show lists the files TURN touched, each with a status letter: M modified,
A created, D deleted, = unchanged, ! changed since the agent wrote it,
S skipped (over the size limit), ? blob missing, X refused.`,
		Example: `ckpt show 3
ckpt show 3 --json`,
		Args:              exactArgs(1, "one TURN"),
		ValidArgsFunction: completeTurn(g, false),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := g.openStore(storeOptions{})
			if err != nil {
				return err
			}
			defer s.Close()
			files, err := s.Files(args[0], true)
			if err != nil {
				return err
			}
			if asJSON {
				type fileJSON struct {
					Path       string       `json:"path"`
					PathB64    string       `json:"path_b64,omitempty"`
					Pre        string       `json:"pre"`
					Status     store.Status `json:"status"`
					Reason     string       `json:"reason,omitempty"`
					HandEdited bool         `json:"hand_edited,omitempty"`
					Cmd        string       `json:"cmd,omitempty"`
					Shared     []string     `json:"shared,omitempty"`
				}
				out := struct {
					Turn    string     `json:"turn"`
					TurnB64 string     `json:"turn_b64,omitempty"`
					Files   []fileJSON `json:"files"`
				}{Turn: args[0], TurnB64: nameB64(args[0]), Files: []fileJSON{}}
				for _, f := range files {
					out.Files = append(out.Files, fileJSON{Path: f.Path, PathB64: nameB64(f.Path), Pre: string(f.Pre.Kind), Status: f.Status, Reason: f.Reason,
						HandEdited: f.HandEdited && f.Status != store.StatusHandEdited, Cmd: f.Shell, Shared: f.Shared})
				}
				return printJSON(out)
			}
			for _, f := range files {
				why := ""
				if f.Reason != "" {
					why = "  (" + esc(f.Reason) + ")"
				}
				if f.Shell != "" {
					why += "  $ " + esc(f.Shell)
				}
				fmt.Printf("%s  %-12s %s%s\n", present.StatusLetter(f.Status), f.Status, esc(f.Path), why)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (see CONTRACT.md)")
	return cmd
}
