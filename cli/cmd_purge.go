package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/present"
)

func init() { register(newPurgeCmd) }

func newPurgeCmd(g *globals) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "purge PATH... [--yes]",
		Short: "Remove every kept copy of a path from the store",
		Long: `purge removes every copy ckpt kept of each PATH (a folder: everything under
it) — a secret that should never have been kept: from the turns' records, the
operations' steps, the shell baseline, the blobs and the packs; and redacts
what those copies held from the turns' conversation files (a prompt that pasted
it, a command that wrote it; see the store's package doc). The turns keep
their entry for the path, marked purged; a rewind, undo or redo reports it as
purged and leaves the file as it is. Bytes that other paths' records hold too
stay, as those paths' copies. Without --yes it lists what it would purge (and
asks, on a terminal).

A file that is still there is kept again by the next shell sweep unless
.ckptignore names it.`,
		Example: `ckpt purge .env --yes
ckpt purge secrets/`,
		Args: minArgs(1, "at least one PATH"),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := g.openStore(storeOptions{})
			if err != nil {
				return err
			}
			defer s.Close()
			var paths []string
			for _, a := range args {
				abs, err := filepath.Abs(a)
				if err != nil {
					return usageErrorf("%s: %v", esc(a), err)
				}
				rel, err := s.Rel(abs)
				if err != nil {
					return usageErrorf("%v", err)
				}
				paths = append(paths, strings.TrimSuffix(rel, "/"))
			}
			turns, n, err := s.PurgeTargets(paths)
			if err != nil {
				return err
			}
			if !yes {
				fmt.Printf("would purge %s kept in %s from %s: %s\n", esc(strings.Join(paths, ", ")), present.Count(n, "record"),
					present.Count(len(turns), "turn"), esc(strings.Join(turns, ", ")))
				if !isTerminal(os.Stdin) || !isTerminal(os.Stderr) {
					fmt.Println("run again with --yes to purge")
					return exitWith(exitPlanShown)
				}
				fmt.Fprint(os.Stderr, "purge? [y/N] ")
				var answer string
				fmt.Fscanln(os.Stdin, &answer)
				if ans := strings.ToLower(strings.TrimSpace(answer)); ans != "y" && ans != "yes" {
					fmt.Fprintln(os.Stderr, "nothing changed")
					return exitWith(exitPlanShown)
				}
			}
			res, err := s.Purge(paths)
			if err != nil {
				return err
			}
			fmt.Printf("purged %s from %s and %s; deleted %s\n", esc(strings.Join(paths, ", ")),
				present.Count(len(res.Turns), "turn"), present.Count(len(res.Ops), "operation"), present.Count(res.Blobs, "blob"))
			if res.Shared > 0 {
				fmt.Printf("kept %s that other paths' records hold too\n", present.Count(res.Shared, "blob"))
			}
			if res.Conversations > 0 {
				fmt.Printf("redacted the purged bytes from %s\n", present.Count(res.Conversations, "conversation file"))
			}
			for _, p := range paths {
				if _, err := os.Lstat(filepath.Join(s.Root(), filepath.FromSlash(p))); err == nil {
					fmt.Printf("%s is still there: add it to .ckptignore, or the next shell sweep keeps it again\n", esc(p))
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "purge without asking")
	return cmd
}
