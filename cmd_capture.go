package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"ckpt/store"
)

func init() { register(newCaptureCmd) }

// turnFlags are the flags of the commands that record a turn.
type turnFlags struct {
	turn, label, maxBlob string
}

func (f *turnFlags) add(cmd *cobra.Command, label bool) {
	cmd.Flags().StringVar(&f.turn, "turn", "", "the turn's id (required)")
	if label {
		cmd.Flags().StringVar(&f.label, "label", "", "the turn's label, such as the prompt")
	}
	cmd.Flags().StringVar(&f.maxBlob, "max-blob", "", "keep files up to this size; larger ones are recorded skipped (default 8MiB)")
}

// needTurn checks --turn was given.
func (f *turnFlags) needTurn(cmd *cobra.Command, what string) error {
	if f.turn == "" {
		return usageErrorf("%s needs --turn T and %s", cmd.Name(), what)
	}
	return nil
}

func newCaptureCmd(g *globals) *cobra.Command {
	var f turnFlags
	cmd := &cobra.Command{
		Use:   "capture --turn T [--label L] PATH...",
		Short: "Keep files' bytes before an agent writes them",
		Long: `capture keeps the current bytes (or absence) of each PATH as turn T's
pre-image, before an agent writes it. The first capture of a path in a turn
wins. A capture naming a turn already rewound starts a new turn (T.2).`,
		Example: `ckpt capture --turn 7 --label "restyle the page" styles.css theme.css`,
		Args:    minArgs(1, "--turn T and at least one PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, g, args, "at least one PATH", func(s *store.Store, meta store.TurnMeta, paths []string) (string, error) {
				return s.Capture(f.turn, meta, paths)
			})
		},
	}
	f.add(cmd, true)
	return cmd
}

// run is what capture, seal, write and rm share: it checks --turn, makes
// the paths absolute, opens the store for writing records and calls do,
// which records into a turn and returns that turn's id ("" for no new
// one). what names the paths the command needs, for the usage error.
func (f *turnFlags) run(cmd *cobra.Command, g *globals, args []string, what string,
	do func(s *store.Store, meta store.TurnMeta, paths []string) (string, error)) error {
	if err := f.needTurn(cmd, what); err != nil {
		return err
	}
	paths, err := absPaths(args)
	if err != nil {
		return err
	}
	s, err := g.openStore(storeOptions{create: true, maxBlob: f.maxBlob})
	if err != nil {
		return err
	}
	defer s.Close()
	id, err := do(s, store.TurnMeta{Label: f.label}, paths)
	if err != nil {
		return err
	}
	if id != "" {
		noteIncarnation(f.turn, id)
	}
	return nil
}

// noteIncarnation says when a turn id named a rewound turn, so the records
// went to a new turn.
func noteIncarnation(asked, got string) {
	if asked != got {
		fmt.Fprintf(os.Stderr, "ckpt: turn %s was rewound, so this is turn %s\n", esc(asked), esc(got))
	}
}
