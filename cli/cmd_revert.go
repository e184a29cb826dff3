package cli

import (
	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newRevertCmd) }

func newRevertCmd(g *globals) *cobra.Command {
	var f opFlags
	cmd := &cobra.Command{
		Use:   "revert [TURN] [--session S]",
		Short: "Take TURN's changes out of the folder, keeping every later change",
		Long: `revert takes one turn's changes (or, with --session, every active turn of
one agent session) out of the folder as it is now, and keeps what came
after them: later turns and your own edits. Each file is merged three ways:
what the turn left, the disk now, and the file before the turn.

A file whose later changes touch the turn's own lines is a conflict. By
default it is left exactly as it is and listed with its lines, the other
files are reverted, and revert exits 3; running it again retries just the
files still in conflict. --conflicts markers writes diff3 markers into such
files instead ("<<<<<<< now" … "||||||| turn T" … "=======" … ">>>>>>>
before turn T") and exits 0. Like a rewind it shows its plan first, and
ckpt undo gives the folder back exactly as before it.

The plan says what the turn did to git. --git-index also puts git's index
file back as it was before the turn, under git's index.lock: the index is
one file, so that drops what later turns staged too, and the plan names
those paths. ckpt never moves refs or deletes objects; undo gives the index
back.`,
		Example: `ckpt revert 3 --dry-run
ckpt revert 3 --yes
ckpt revert 3 --conflicts markers --yes --json
ckpt revert 3 --git-index --dry-run
ckpt revert --session 5f1c… --yes`,
		Args:              maxArgs(1, "one TURN (or --session S)"),
		ValidArgsFunction: completeTurn(g, false),
		RunE: func(_ *cobra.Command, args []string) error {
			turn := ""
			if len(args) == 1 {
				turn = args[0]
			}
			switch {
			case turn == "" && f.session == "":
				return usageErrorf("revert needs a TURN or --session S")
			case turn != "" && f.session != "":
				return usageErrorf("revert takes a TURN or --session S, not both")
			case f.conflicts != "refuse" && f.conflicts != "markers":
				return usageErrorf("--conflicts is refuse or markers, not %q", f.conflicts)
			}
			return runOperation(g, store.KindRevert, &f, turn)
		},
	}
	f.add(cmd, false)
	cmd.Flags().StringArrayVar(&f.except, "except", nil, "leave this path as it is now (repeatable)")
	cmd.Flags().StringVar(&f.session, "session", "", "revert every active turn of this agent session (see source.session in log --json)")
	cmd.Flags().StringVar(&f.conflicts, "conflicts", "refuse", "what a conflicting file gets: refuse (left as it is, exit 3) or markers (diff3 markers written in)")
	cmd.Flags().BoolVar(&f.gitIndex, "git-index", false, "also put git's index back as it was before TURN, dropping what was staged since (the plan names it; undo gives it back)")
	return cmd
}
