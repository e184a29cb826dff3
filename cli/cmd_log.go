package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newLogCmd) }

// logJSON is one element of `log --json`.
type logJSON struct {
	Turn       string         `json:"turn"`
	TurnB64    string         `json:"turn_b64,omitempty"`
	Label      string         `json:"label"`
	At         string         `json:"at"`
	Kind       store.Kind     `json:"kind"`
	State      store.State    `json:"state"`
	Files      int            `json:"files"`
	HandEdited int            `json:"hand_edited"`
	Source     *store.Source  `json:"source,omitempty"`
	Head       string         `json:"head,omitempty"`
	RanGit     bool           `json:"ran_git,omitempty"`
	Target     string         `json:"target,omitempty"`
	TargetB64  string         `json:"target_b64,omitempty"`
	Turns      []string       `json:"turns,omitempty"`
	TurnsB64   map[int]string `json:"turns_b64,omitempty"`
	Retry      string         `json:"retry,omitempty"`
	Failed     []failureJSON  `json:"failed,omitempty"`
}

func newLogJSON(e *store.Entry) logJSON {
	return logJSON{Turn: e.ID, TurnB64: nameB64(e.ID), Label: e.Label, At: formatAt(e.At), Kind: e.Kind,
		State: e.State, Files: e.Files, HandEdited: max(e.HandEdited, 0), Source: e.Source, Head: e.Head, RanGit: e.RanGit,
		Target: e.Target, TargetB64: nameB64(e.Target), Turns: e.Turns, TurnsB64: namesB64(e.Turns),
		Retry: e.Retry, Failed: failuresJSON(e.Failed)}
}

// appendJSON appends j as printJSON writes an element of a []logJSON,
// without encoding/json's reflection for the fields every turn has.
func (j *logJSON) appendJSON(b []byte) []byte {
	o := openObject(b, 1)
	o.str("turn", j.Turn)
	o.strOmit("turn_b64", j.TurnB64)
	o.str("label", j.Label)
	o.str("at", j.At)
	o.str("kind", string(j.Kind))
	o.str("state", string(j.State))
	o.int("files", j.Files)
	o.int("hand_edited", j.HandEdited)
	if src := j.Source; src != nil {
		o.key("source")
		so := openObject(o.b, 2)
		so.strOmit("agent", src.Agent)
		so.strOmit("session", src.Session)
		so.strOmit("prompt", src.Prompt)
		so.strOmit("transcript", src.Transcript)
		o.b = so.close()
	}
	o.strOmit("head", j.Head)
	if j.RanGit {
		o.key("ran_git")
		o.b = append(o.b, "true"...)
	}
	o.strOmit("target", j.Target)
	o.strOmit("target_b64", j.TargetB64)
	if len(j.Turns) > 0 { // an operation's lists
		o.value("turns", j.Turns)
	}
	if len(j.TurnsB64) > 0 {
		o.value("turns_b64", j.TurnsB64)
	}
	o.strOmit("retry", j.Retry)
	if len(j.Failed) > 0 {
		o.value("failed", j.Failed)
	}
	return o.close()
}

func newLogCmd(g *globals) *cobra.Command {
	var asJSON, errs, clear bool
	var limit int
	cmd := &cobra.Command{
		Use:   "log [-n N] [-- PATH...]",
		Short: "Turns and operations, newest first",
		Long: `log lists the agent's turns and the rewinds, undos and redos, newest first,
with how many files each touched and how many were changed since the agent
wrote them. Errors that hooks logged in the store are told on stderr;
--errors prints them all, oldest first, and leaves them logged;
--errors --clear empties the log, and nothing else does; with --json both
print JSON (see CONTRACT.md).

-n N keeps the newest N rows. PATHs (after --, relative to the working
directory) keep only the turns that touched them; a folder stands for every
path under it.`,
		Example: `ckpt log
ckpt log -n 5
ckpt log -- src/app.js
ckpt log --json | jq '.[0].turn'
ckpt log --errors
ckpt log --errors --clear`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return usageErrorf("-n %d: want a count of 0 or more", limit)
			}
			limited := cmd.Flags().Changed("max-count") // -n 0 is no rows, as for git log
			if (errs || clear) && (len(args) > 0 || limited) {
				return usageErrorf("--errors takes no -n or PATH")
			}
			s, err := g.openStore(storeOptions{})
			if err != nil {
				return err
			}
			defer s.Close()
			if clear {
				return clearErrors(s, asJSON)
			}
			if errs {
				return listErrors(s, asJSON)
			}
			entries, err := s.Log(true)
			if err != nil {
				return err
			}
			if len(args) > 0 {
				if entries, err = touching(s, entries, args); err != nil {
					return err
				}
			}
			if limited && len(entries) > limit {
				entries = entries[:limit]
			}
			if errs, _ := s.Errors(); len(errs) > 0 {
				fmt.Fprintf(os.Stderr, "ckpt: %s in the store's error log (.osfoundry/checkpoints/errors.log); the newest:\n", present.Count(len(errs), "line"))
				for _, l := range errs[max(0, len(errs)-3):] {
					fmt.Fprintln(os.Stderr, "  "+esc(l))
				}
			}
			if asJSON {
				return writeJSONArray(os.Stdout, len(entries), func(b []byte, i int) []byte {
					j := newLogJSON(&entries[i])
					return j.appendJSON(b)
				})
			}
			if len(entries) == 0 {
				if limited && limit == 0 {
					return nil
				}
				if len(args) > 0 {
					fmt.Println("no turn touched " + esc(strings.Join(args, ", ")))
					return nil
				}
				fmt.Println("no turns yet")
				return nil
			}
			p := paint(autoColor(os.Stdout))
			now := time.Now()
			for _, e := range entries {
				fmt.Println(logLine(p, now, &e))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (see CONTRACT.md)")
	cmd.Flags().BoolVar(&errs, "errors", false, "print the errors hooks logged (they stay logged)")
	cmd.Flags().BoolVar(&clear, "clear", false, "with --errors: empty the error log")
	cmd.Flags().IntVarP(&limit, "max-count", "n", 0, "show only the newest N rows")
	return cmd
}

// logLine is one row of plain `ckpt log`: id, kind, state, age, files,
// label, then the agent, `git` for an agent turn that changed git's
// state (HEAD, its branch or the index; the UI marks its row the same),
// and what needs a look (paths changed since the agent, failed paths).
func logLine(p paint, now time.Time, e *store.Entry) string {
	extra := ""
	if e.Source != nil && e.Source.Agent != "" {
		extra = p.in(sgrDim, "  ["+esc(e.Source.Agent)+"]")
	}
	if e.Kind == store.KindAgent && e.RanGit {
		extra += p.in(sgrCyan, "  git")
	}
	if e.HandEdited > 0 {
		extra += p.in(sgrRed, fmt.Sprintf("  %d changed since the agent", e.HandEdited))
	}
	if len(e.Failed) > 0 {
		extra += p.in(sgrRed, fmt.Sprintf("  %s failed (the same command again retries)", present.Count(len(e.Failed), "path")))
	}
	return fmt.Sprintf("%s %-7s %s %9s  %9s  %s%s", p.in(sgrYellow, pad(esc(e.ID), 8)), e.Kind, p.in(stateColor(e.State), pad(string(e.State), 8)),
		present.Ago(now, e.At), present.Count(e.Files, "file"), esc(e.Label), extra)
}

// errorJSON is one line of the error log in `log --errors --json`: when
// it was logged (absent if the line does not start with a time) and what.
type errorJSON struct {
	At    string `json:"at,omitempty"`
	Error string `json:"error"`
}

// errorLine splits a line of the error log into its time and its message.
func errorLine(l string) errorJSON {
	at, msg, ok := strings.Cut(l, " ")
	if t, err := time.Parse(time.RFC3339, at); ok && err == nil {
		return errorJSON{At: t.UTC().Format(atLayout), Error: msg}
	}
	return errorJSON{Error: l}
}

// listErrors prints the store's logged errors, oldest first. They stay
// logged: only --clear empties the log.
func listErrors(s *store.Store, asJSON bool) error {
	lines, err := s.Errors()
	if err != nil {
		return err
	}
	if asJSON {
		out := make([]errorJSON, 0, len(lines))
		for _, l := range lines {
			out = append(out, errorLine(l))
		}
		return printJSON(out)
	}
	if len(lines) == 0 {
		fmt.Println("no errors logged")
		return nil
	}
	for _, l := range lines {
		fmt.Println(esc(l))
	}
	return nil
}

// clearErrors empties the store's error log and says how many lines went.
func clearErrors(s *store.Store, asJSON bool) error {
	lines, err := s.Errors()
	if err != nil {
		return err
	}
	if err := s.ClearErrors(); err != nil {
		return err
	}
	if asJSON {
		return printJSON(struct {
			Cleared int `json:"cleared"`
		}{len(lines)})
	}
	fmt.Printf("cleared %s from the error log\n", present.Count(len(lines), "error"))
	return nil
}

// touching keeps the agent turns among entries that captured one of the
// paths (given relative to the working directory), or a path under one
// of them when it names a folder.
func touching(s *store.Store, entries []store.Entry, paths []string) ([]store.Entry, error) {
	abs, err := absPaths(paths)
	if err != nil {
		return nil, err
	}
	var want []string
	for _, p := range abs {
		rel, err := s.Rel(p)
		if err != nil {
			return nil, err
		}
		want = append(want, rel)
	}
	matches := func(p string) bool {
		for _, w := range want {
			if p == w || w == "." || strings.HasPrefix(p, w+"/") {
				return true
			}
		}
		return false
	}
	var out []store.Entry
	for _, e := range entries {
		if e.Kind != store.KindAgent {
			continue
		}
		files, err := s.Files(e.ID, false)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if matches(f.Path) {
				out = append(out, e)
				break
			}
		}
	}
	return out, nil
}

// stateColor is the colour of a state word: an active row plain, a
// rewound, reverted or undone one dim, a failed one red.
func stateColor(st store.State) string {
	switch st {
	case store.StateRewound, store.StateReverted, store.StateUndone:
		return sgrDim
	case store.StateFailed:
		return sgrRed
	}
	return ""
}

// pad fills s with spaces to width columns, as %-Ns does, before any
// colour wraps it.
func pad(s string, width int) string {
	if n := ansi.StringWidth(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}
