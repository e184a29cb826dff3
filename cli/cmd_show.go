package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newShowCmd) }

func newShowCmd(g *globals) *cobra.Command {
	var asJSON, agent, conversation bool
	cmd := &cobra.Command{
		Use:   "show TURN [--agent | --conversation]",
		Short: "A turn's files and how each stands against the disk",
		Long: `show lists the files TURN touched, each with a status letter: M modified,
T modified into another kind of entry (a folder became a file, a link a
folder: "(folder → file)" says which), A created, D deleted, = unchanged,
! changed since the agent wrote it,
S skipped (over the size limit), ? blob missing, X refused, ~ being
written (the agent's hook kept it and has not said the write is done). A header
names the turn's label, state and agent; files a shell command changed are
listed under the command.

A rewound turn's files are back as they were before it; show says which
operation rewound it, and --agent shows each file's change as the agent made
it (the pre-image against what the agent left), for any turn.

--conversation prints what was said instead: the prompt, the agent's final
reply and its tool calls in order (name, path or command, ok or failed),
read from the transcript the agent's hook named (Claude Code, Codex, Gemini
CLI, Qwen Code, Copilot CLI), or, for opencode and pi, which keep none ckpt
reads, from what ckpt's plugin forwarded (kept in the store).`,
		Example: `ckpt show 3
ckpt show 3 --agent
ckpt show 3 --conversation
ckpt show 3 --json`,
		Args:              exactArgs(1, "one TURN"),
		ValidArgsFunction: completeTurn(g, false),
		RunE: func(_ *cobra.Command, args []string) error {
			if agent && conversation {
				return usageErrorf("--agent shows the files, --conversation what was said: give one")
			}
			s, err := g.openStore(storeOptions{})
			if err != nil {
				return err
			}
			defer s.Close()
			if conversation {
				return printConversation(s, args[0], asJSON)
			}
			shown, err := s.Show(args[0], true)
			if err != nil {
				return err
			}
			files := shown.Files
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
					Became     string       `json:"became,omitempty"`
					Reason     string       `json:"reason,omitempty"`
					HandEdited bool         `json:"hand_edited,omitempty"`
					Writing    bool         `json:"writing,omitempty"`
					Cmd        string       `json:"cmd,omitempty"`
					Shared     []string     `json:"shared,omitempty"`
				}
				out := struct {
					Turn    string     `json:"turn"`
					TurnB64 string     `json:"turn_b64,omitempty"`
					Files   []fileJSON `json:"files"`
				}{Turn: args[0], TurnB64: nameB64(args[0]), Files: []fileJSON{}}
				for _, f := range files {
					var became string
					if now := shownNow(f, agent); present.KindChange(f.Pre.Kind, now.Kind) != "" {
						became = string(now.Kind)
					}
					out.Files = append(out.Files, fileJSON{Path: f.Path, PathB64: nameB64(f.Path), Pre: string(f.Pre.Kind), Status: f.Status, Became: became, Reason: f.Reason,
						HandEdited: f.HandEdited && f.Status != store.StatusHandEdited, Writing: f.Writing && !agent, Cmd: f.Shell, Shared: f.Shared})
				}
				return printJSON(out)
			}
			return printShow(shown, args[0], files, agent)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (see CONTRACT.md)")
	cmd.Flags().BoolVar(&agent, "agent", false, "each file's change as the agent made it (pre-image → what it left)")
	cmd.Flags().BoolVar(&conversation, "conversation", false, "print the prompt, the agent's reply and its tool calls, from the agent's transcript")
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
	case f.Status == store.StatusRefused, f.Status == store.StatusSkipped, f.Status == store.StatusPurged, f.Status == store.StatusMissingBlob:
		return f.Status
	case f.Post == nil:
		return store.StatusUnknown
	case f.Pre.Kind == store.ImageAbsent && f.Post.Kind != store.ImageAbsent:
		return store.StatusCreated
	case f.Pre.Kind != store.ImageAbsent && f.Post.Kind == store.ImageAbsent:
		return store.StatusDeleted
	case f.Pre.Kind == f.Post.Kind && f.Pre.SHA256 == f.Post.SHA256 && f.Pre.Link == f.Post.Link && modeChange(f.Pre, *f.Post) == "":
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

// printShow writes a turn for a person: a header (id, label, state, where
// it came from), then its files, those a shell command changed grouped
// under the command, said once.
func printShow(shown *store.Shown, turn string, files []store.File, agent bool) error {
	p := paint(autoColor(os.Stdout))
	printHeader(p, shown.Entry)
	if op := shown.RewoundBy; op != "" && !agent {
		fmt.Printf("turn %s was rewound by %s: its files are as before it (--agent shows what the agent did)\n\n", esc(turn), esc(op))
	} else if op != "" {
		fmt.Printf("turn %s was rewound by %s; what the agent did (before it → what it left):\n\n", esc(turn), esc(op))
	}
	line := func(f store.File, indent string) {
		why := ""
		now := shownNow(f, agent)
		kind := present.KindChange(f.Pre.Kind, now.Kind)
		if m := modeChange(f.Pre, now); m != "" {
			why = "  (" + m + ")"
		} else if kind != "" {
			why = "  (" + kind + ")"
		}
		why += reasonNote(f.Reason)
		st := shownStatus(f, agent)
		letter := present.StatusLetter(st)
		if kind != "" && st == store.StatusModified {
			letter = present.KindLetter
		}
		fmt.Printf("%s%s  %s %s%s\n", indent, p.in(statusColor(st), letter), pad(string(st), 12), esc(f.Path), why)
	}
	// Files tools wrote first, then each command's, in the order the
	// commands first appear.
	var cmds []string
	byCmd := map[string][]store.File{}
	for _, f := range files {
		if f.Shell == "" {
			line(f, "")
			continue
		}
		if byCmd[f.Shell] == nil {
			cmds = append(cmds, f.Shell)
		}
		byCmd[f.Shell] = append(byCmd[f.Shell], f)
	}
	for _, c := range cmds {
		fmt.Println(p.in(sgrCyan, "$ "+esc(c)))
		for _, f := range byCmd[c] {
			line(f, "  ")
		}
	}
	if len(files) == 0 {
		fmt.Println("no files (the turn asked or answered without writing)")
	}
	return nil
}

// shownNow is what show compares a file's pre-image with: the disk, or
// with --agent what the agent left.
func shownNow(f store.File, agent bool) store.Image {
	if agent && f.Post != nil {
		return *f.Post
	}
	return f.Disk
}

// reasonNote is a file's reason as its line ends: "  (reason)", or
// "  — reason" when the reason has parentheses of its own (a purged
// path's "purged from the store (ckpt purge)"), so none are doubled.
func reasonNote(reason string) string {
	switch {
	case reason == "":
		return ""
	case strings.ContainsAny(reason, "()"):
		return "  — " + esc(reason)
	}
	return "  (" + esc(reason) + ")"
}

// statusWriting is shown for a path an active turn captured and has not
// sealed yet: the agent is writing it, so its bytes now say nothing yet.
const statusWriting store.Status = "writing"

// shownStatus is the status show prints for f: being written comes
// before what the disk says (a failed path stays failed); --agent shows
// the agent's change, which has no "being written".
func shownStatus(f store.File, agent bool) store.Status {
	if f.Writing && !agent && f.Status != store.StatusFailed {
		return statusWriting
	}
	return f.Status
}

// printHeader writes a turn's id, state and age, its label and where it
// came from, then a blank line.
func printHeader(p paint, e store.Entry) {
	fmt.Println(p.in(sgrYellow, "turn "+esc(e.ID)) + "  " + p.in(stateColor(e.State), string(e.State)) + "  " + present.Ago(time.Now(), e.At))
	if e.Label != "" {
		fmt.Println("  " + p.in(sgrBold, esc(e.Label)))
	}
	if src := sourceLine(e.Source); src != "" {
		fmt.Println("  " + p.in(sgrDim, src))
	}
	fmt.Println()
}

// sourceLine says where a turn came from: the agent, its session and its
// prompt id, as far as they are known.
func sourceLine(src *store.Source) string {
	if src == nil || src.Agent == "" {
		return ""
	}
	out := "from " + esc(src.Agent)
	if src.Session != "" {
		out += ", session " + esc(src.Session)
	}
	if src.Prompt != "" {
		out += ", prompt " + esc(src.Prompt)
	}
	return out
}

// statusColor is the colour of a file's status letter, as git colours a
// diff: created green, deleted and damaged red, changed since the agent
// yellow.
func statusColor(st store.Status) string {
	switch st {
	case store.StatusCreated:
		return sgrGreen
	case store.StatusDeleted, store.StatusMissingBlob, store.StatusFailed, store.StatusRefused:
		return sgrRed
	case store.StatusHandEdited, store.StatusSkipped, store.StatusPurged, statusWriting:
		return sgrYellow
	}
	return ""
}

// modeChange is "mode 644 → 755" when the permission bits of a file or
// folder moved between was and now (alone or with its bytes); "" otherwise.
func modeChange(was, now store.Image) string {
	if was.Kind != now.Kind || was.Mode == 0 || now.Mode == 0 || was.Mode == now.Mode ||
		was.Kind != store.ImageContent && was.Kind != store.ImageDir {
		return ""
	}
	return fmt.Sprintf("mode %03o → %03o", was.Mode&0o7777, now.Mode&0o7777)
}
