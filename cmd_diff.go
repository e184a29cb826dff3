package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"ckpt/diffview"
	"ckpt/store"
)

func init() { register(newDiffCmd) }

func newDiffCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "diff TURN [PATH...]",
		Short: "Unified diff of a turn's files, pre-image → disk now",
		Long: `diff shows how each file TURN touched differs now from the bytes kept
before the turn, or only the PATHs named.`,
		Example: `ckpt diff 3
ckpt diff 3 src/app.js`,
		Args:              minArgs(1, "a TURN"),
		ValidArgsFunction: completeTurn(g, true),
		RunE: func(_ *cobra.Command, args []string) error {
			return runDiff(g, args[0], args[1:])
		},
	}
	return cmd
}

func runDiff(g *globals, turn string, paths []string) error {
	s, err := g.openStore(storeOptions{})
	if err != nil {
		return err
	}
	defer s.Close()
	files, err := s.Files(turn, false)
	if err != nil {
		return err
	}
	abs, err := absPaths(paths)
	if err != nil {
		return err
	}
	only := map[string]bool{}
	for _, p := range abs {
		rel, err := s.Rel(p)
		if err != nil {
			return err
		}
		only[rel] = true
	}
	code := exitOK
	for _, f := range files {
		if len(only) > 0 && !only[f.Path] {
			continue
		}
		delete(only, f.Path)
		if f.Status == store.StatusRefused {
			fmt.Printf("# %s: %s\n", esc(f.Path), esc(f.Reason))
			continue
		}
		var old []byte
		if f.Pre.Kind == store.ImageSkipped {
			fmt.Printf("# %s: %s\n", esc(f.Path), esc("not kept: "+f.Pre.Reason))
			continue
		}
		if old, err = s.ReadImage(f.Pre); err != nil {
			fmt.Printf("# %s: %s\n", esc(f.Path), esc(err.Error()))
			code = exitError
			continue
		}
		_, now, err := s.ReadDisk(f.Path)
		if err != nil {
			fmt.Printf("# %s: %s\n", esc(f.Path), esc(err.Error()))
			code = exitError
			continue
		}
		d := diffview.Compute(old, now, diffview.Options{})
		if d.Added == 0 && d.Deleted == 0 && !d.Binary && !d.TooLarge {
			continue
		}
		fmt.Printf("--- a/%s\t(before turn %s)\n+++ b/%s\t(now)\n", esc(f.Path), esc(turn), esc(f.Path))
		for _, r := range d.Rows() {
			switch r.Kind {
			case diffview.RowContext:
				fmt.Println(" " + r.Text)
			case diffview.RowDel:
				fmt.Println("-" + r.Text)
			case diffview.RowAdd:
				fmt.Println("+" + r.Text)
			case diffview.RowNoEOL:
				fmt.Println(`\ No newline at end of file`)
			default:
				fmt.Println(r.Text)
			}
		}
	}
	for p := range only {
		fmt.Fprintf(os.Stderr, "ckpt: %s is not in turn %s\n", esc(p), esc(turn))
		code = exitError
	}
	return exitWith(code)
}
