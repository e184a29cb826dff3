package cli

import (
	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/agent"
)

func init() { register(newUninstallCmd) }

func newUninstallCmd(g *globals) *cobra.Command {
	var dry bool
	cmd := &cobra.Command{
		Use:   "uninstall AGENT",
		Short: "Take out exactly what install put in",
		Long: `uninstall takes ckpt's hooks out of AGENT's project config, whatever ckpt
binary they run, leaving the rest of the file as it was; a file install
created is removed again.`,
		Example:   `ckpt uninstall claude`,
		Args:      exactArgs(1, "one AGENT"),
		ValidArgs: agent.Agents(),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConfig(g, "uninstall", args[0], dry, false)
		},
	}
	cmd.Flags().BoolVar(&dry, "dry-run", false, "show the change and write nothing (exit 4)")
	return cmd
}
