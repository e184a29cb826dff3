package cli

import (
	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newRewindCmd) }

func newRewindCmd(g *globals) *cobra.Command {
	var f opFlags
	cmd := &cobra.Command{
		Use:   "rewind TURN",
		Short: "Put the folder back as it was before TURN",
		Long: `rewind undoes TURN and every later active turn. Without --yes it shows the
plan, and asks when standard input and standard error are terminals;
otherwise it changes nothing (exit 4). Files changed since the agent wrote
them have their current bytes kept, so ckpt undo brings them back.

The plan says what the turns did to git (HEAD moved, commits made, the index
changed). ckpt never moves refs or deletes objects: the plan prints the git
command that would put HEAD back. --git-index also puts git's index file back
as it was before TURN, under git's index.lock; ckpt undo gives it back.`,
		Example: `ckpt rewind 3 --dry-run
ckpt rewind 3 --yes
ckpt rewind 3 --yes --json
ckpt rewind 3 --except src/keep.go --yes
ckpt rewind 3 --git-index --yes`,
		Args:              exactArgs(1, "one TURN"),
		ValidArgsFunction: completeTurn(g, false),
		RunE: func(_ *cobra.Command, args []string) error {
			return runOperation(g, store.KindRewind, &f, args[0])
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringArrayVar(&f.except, "except", nil, "leave this path as it is now (repeatable)")
	cmd.Flags().BoolVar(&f.gitIndex, "git-index", false, "also put git's index back as it was before TURN (undo gives it back)")
	return cmd
}
