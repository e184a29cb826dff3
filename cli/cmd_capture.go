package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newCaptureCmd) }

// turnFlags are the flags of the commands that record a turn.
type turnFlags struct {
	turn, label, maxBlob string
	stdin, nul           bool // paths from standard input, NUL-terminated
}

func (f *turnFlags) add(cmd *cobra.Command, label bool) {
	cmd.Flags().StringVar(&f.turn, "turn", "", "the turn's id (required)")
	if label {
		cmd.Flags().StringVar(&f.label, "label", "", "the turn's label, such as the prompt")
	}
	cmd.Flags().StringVar(&f.maxBlob, "max-blob", "", "keep files up to this size; larger ones are recorded skipped (default 8MiB)")
}

// addPaths adds --stdin-paths and -z, for lists of paths too long for a
// command line (or from find -print0).
func (f *turnFlags) addPaths(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.stdin, "stdin-paths", false, "read the paths from standard input, one per line (after any PATH given)")
	cmd.Flags().BoolVarP(&f.nul, "null", "z", false, "with --stdin-paths: paths end with a NUL byte, not a newline")
}

// pathArgs asks for at least one PATH, unless they come from standard
// input.
func (f *turnFlags) pathArgs(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 && !f.stdin {
			return usageErrorf("%s needs %s", cmd.Name(), what)
		}
		return nil
	}
}

// stdinPaths reads the paths --stdin-paths gives: one per line (or per
// NUL with -z); empty ones are skipped.
func (f *turnFlags) stdinPaths(r io.Reader) ([]string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read the paths from standard input: %w", err)
	}
	sep := "\n"
	if f.nul {
		sep = "\x00"
	}
	var paths []string
	for p := range strings.SplitSeq(string(data), sep) {
		if !f.nul {
			p = strings.TrimSuffix(p, "\r")
		}
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// id is the turn --turn names; the store checks it.
func (f *turnFlags) id() store.TurnID { return store.TurnID(f.turn) }

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
		Example: `ckpt capture --turn 7 --label "restyle the page" styles.css theme.css
git ls-files -z | ckpt capture --turn 7 --stdin-paths -z`,
		Args: f.pathArgs("--turn T and at least one PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, g, args, "at least one PATH", func(s *store.Store, meta store.TurnMeta, paths []string) (store.TurnID, error) {
				return s.Capture(f.id(), meta, paths)
			})
		},
	}
	f.add(cmd, true)
	f.addPaths(cmd)
	return cmd
}

// run is what capture, seal, write and rm share: it checks --turn, makes
// the paths absolute, opens the store for writing records and calls do,
// which records into a turn and returns that turn's id ("" for no new
// one). what names the paths the command needs, for the usage error.
func (f *turnFlags) run(cmd *cobra.Command, g *globals, args []string, what string,
	do func(s *store.Store, meta store.TurnMeta, paths []string) (store.TurnID, error)) error {
	if err := f.needTurn(cmd, what); err != nil {
		return err
	}
	if f.nul && !f.stdin {
		return usageErrorf("%s: -z says how --stdin-paths ends each path; give both or neither", cmd.Name())
	}
	if f.stdin {
		more, err := f.stdinPaths(cmd.InOrStdin())
		if err != nil {
			return err
		}
		if args = append(args, more...); len(args) == 0 {
			return usageErrorf("%s needs %s; standard input held none", cmd.Name(), what)
		}
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
		noteIncarnation(f.id(), id)
	}
	return nil
}

// noteIncarnation says when a turn id named a rewound turn, so the records
// went to a new turn.
func noteIncarnation(asked, got store.TurnID) {
	if asked != got {
		fmt.Fprintf(os.Stderr, "ckpt: turn %s was rewound, so this is turn %s\n", esc(asked.String()), esc(got.String()))
	}
}
