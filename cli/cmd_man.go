package cli

import (
	"fmt"

	mcobra "github.com/muesli/mango-cobra"
	"github.com/muesli/roff"
	"github.com/spf13/cobra"
)

func init() { register(newManCmd) }

func newManCmd(*globals) *cobra.Command {
	return &cobra.Command{
		Use:   "man",
		Short: "The manual page, in roff",
		Long: `man writes ckpt's manual page (section 1), made from the same commands,
flags and examples as --help, on standard output.`,
		Example: `ckpt man > ckpt.1 && man ./ckpt.1
ckpt man | gzip > /usr/local/share/man/man1/ckpt.1.gz`,
		Args: noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A tree of its own: the running root also holds hidden
			// stand-ins for its commands' flags, which the page would list.
			page, err := mcobra.NewManPage(1, newRoot(commandMakers...))
			if err != nil {
				return fmt.Errorf("man: %w", err)
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), page.Build(roff.NewDocument()))
			return err
		},
	}
}
