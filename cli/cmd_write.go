package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newWriteCmd) }

func newWriteCmd(g *globals) *cobra.Command {
	var f turnFlags
	cmd := &cobra.Command{
		Use:     "write --turn T [--label L] PATH",
		Short:   "Capture PATH, write standard input to it, seal it",
		Long:    `write is capture, write and seal in one: PATH gets standard input's bytes.`,
		Example: `printf 'body { color: red }\n' | ckpt write --turn 7 styles.css`,
		Args:    exactArgs(1, "--turn T and one PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, g, args, "one PATH", func(s *store.Store, meta store.TurnMeta, paths []string) (store.TurnID, error) {
				data, err := io.ReadAll(os.Stdin)
				if err != nil {
					return "", fmt.Errorf("write: read standard input: %w", err)
				}
				return s.Write(f.id(), meta, paths[0], data)
			})
		},
	}
	f.add(cmd, true)
	return cmd
}
