package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newShowCmd) }

func newShowCmd(g *globals) *cobra.Command {
	var asJSON, agent bool
	cmd := &cobra.Command{
		Use:   "show TURN",
		Short: "A turn's files and how each stands against the disk",
		Long: `show lists the files TURN touched, each with a status letter: M modified,
A created, D deleted, = unchanged, ! changed since the agent wrote it,
S skipped (over the size limit), ? blob missing, X refused.

A rewound turn's files are back as they were before it; show says which
operation rewound it, and --agent shows each file's change as the agent made
it (the pre-image against what the agent left), for any turn.`,
		Example: `ckpt show 3
ckpt show 3 --agent
ckpt show 3 --json`,
		Args:              exactArgs(1, "one TURN"),
		ValidArgsFunction: completeTurn(g, false),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := g.openStore(storeOptions{})
			if err != nil {
				return err
			}
			defer s.Close()
			files, err := s.Files(args[0], true)
			if err != nil {
				return err
			}
			if agent {
				for i := range files {
					files[i].Status, files[i].Reason = agentStatus(files[i]), agentReason(files[i])
				}
			}
			if asJSON {
				type fileJSON struct {
					Path       string       `json:"path"`
					PathB64    string       `json:"path_b64,omitempty"`
					Pre        string       `json:"pre"`
					Status     store.Status `json:"status"`
					Reason     string       `json:"reason,omitempty"`
					HandEdited bool         `json:"hand_edited,omitempty"`
					Cmd        string       `json:"cmd,omitempty"`
				}
				out := struct {
					Turn    string     `json:"turn"`
					TurnB64 string     `json:"turn_b64,omitempty"`
					Files   []fileJSON `json:"files"`
				}{Turn: args[0], TurnB64: nameB64(args[0]), Files: []fileJSON{}}
				for _, f := range files {
					out.Files = append(out.Files, fileJSON{Path: f.Path, PathB64: nameB64(f.Path), Pre: string(f.Pre.Kind), Status: f.Status, Reason: f.Reason,
						HandEdited: f.HandEdited && f.Status != store.StatusHandEdited, Cmd: f.Shell})
				}
				return printJSON(out)
			}
			if op := rewoundBy(s, args[0]); op != "" && !agent {
				fmt.Printf("turn %s was rewound by %s: its files are as before it (--agent shows what the agent did)\n", esc(args[0]), esc(op))
			}
			for _, f := range files {
				why := ""
				if f.Reason != "" {
					why = "  (" + esc(f.Reason) + ")"
				}
				if f.Shell != "" {
					why += "  $ " + esc(f.Shell)
				}
				fmt.Printf("%s  %-12s %s%s\n", present.StatusLetter(f.Status), f.Status, esc(f.Path), why)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (see CONTRACT.md)")
	cmd.Flags().BoolVar(&agent, "agent", false, "each file's change as the agent made it (pre-image → what it left)")
	return cmd
}

// rewoundBy is the operation that rewound turn, or "" (also when the log
// cannot be read: show still lists the files).
func rewoundBy(s *store.Store, turn string) string {
	entries, err := s.Log(false)
	if err != nil {
		return ""
	}
	return store.RewoundBy(entries, turn)
}

// agentStatus is a file's change as the agent made it: its pre-image
// against what the agent left, in the statuses show uses. A status that
// says the record itself is unusable (refused, skipped, missing blob)
// stands.
func agentStatus(f store.File) store.Status {
	switch {
	case f.Status == store.StatusRefused, f.Status == store.StatusSkipped, f.Status == store.StatusMissingBlob:
		return f.Status
	case f.Post == nil:
		return store.StatusUnknown
	case f.Pre.Kind == store.ImageAbsent && f.Post.Kind != store.ImageAbsent:
		return store.StatusCreated
	case f.Pre.Kind != store.ImageAbsent && f.Post.Kind == store.ImageAbsent:
		return store.StatusDeleted
	case f.Pre.Kind == f.Post.Kind && f.Pre.SHA256 == f.Post.SHA256 && f.Pre.Link == f.Post.Link:
		return store.StatusUnchanged
	}
	return store.StatusModified
}

// agentReason keeps a record's reason, and says why a file has no agent
// change to show.
func agentReason(f store.File) string {
	if f.Post == nil && f.Reason == "" {
		return "the agent's write was never sealed"
	}
	return f.Reason
}
