package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/store"
	"github.com/ckpt-dev/ckpt/watch"
)

func init() { register(newTurnCmd) }

func newTurnCmd(g *globals) *cobra.Command {
	var label string
	cmd := &cobra.Command{
		Use:   "turn [--label L]",
		Short: "Cut a new turn now for the running ckpt watch",
		Long: `turn closes the turn ckpt watch has open; its next change opens a new one,
labelled L when given. Run it from anywhere in the project, for example
just before typing the next prompt to an agent that has no hooks.`,
		Example: `ckpt turn --label "add the login page"`,
		Args:    noArgs(" (use --label L)"),
		RunE: func(*cobra.Command, []string) error {
			root, err := g.projectRoot()
			if err != nil {
				return err
			}
			ans, err := watch.Ask(watchStoreFolder(root), "turn "+strings.ReplaceAll(label, "\n", " "), 2*time.Second)
			if errors.Is(err, store.ErrNoWatcher) {
				return fmt.Errorf("no ckpt watch runs for %s (start one with `ckpt watch`)", esc(root))
			}
			if err != nil {
				return err
			}
			if ans != "ok" {
				return errors.New(ans)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&label, "label", "", "the label of the turn the next change opens")
	return cmd
}
