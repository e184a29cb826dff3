package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func init() { register(newDemoCmd) }

func newDemoCmd(*globals) *cobra.Command {
	var dir string
	var noUI bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Make a sample project with a few agent turns and open the UI on it",
		Long: `demo makes a small web project in a new folder, records three agent turns on
it (one file changed afterwards by hand), then opens the UI there. With
--no-ui, or without a terminal, it prints the folder's path instead.`,
		Example: `ckpt demo
dir=$(ckpt demo --no-ui) && ckpt log --root "$dir"`,
		Args: noArgs(" (use --dir DIR)"),
		RunE: func(*cobra.Command, []string) error {
			d, err := makeDemo(dir)
			if err != nil {
				return err
			}
			if noUI || !hasTerminal() || !isTerminal(os.Stdin) {
				fmt.Println(d)
				return nil
			}
			fmt.Printf("ckpt demo: a sample project with %d agent turns is in %s\n", len(demoTurns), d)
			return openUI(d)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "where to make it: a new or empty folder (default: a new temporary folder)")
	cmd.Flags().BoolVar(&noUI, "no-ui", false, "print the folder's path instead of opening the UI")
	return cmd
}
