package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

// opFlags are the flags of rewind, undo and redo.
type opFlags struct {
	dryRun, yes, force, json bool
	gitIndex                 bool // rewind and revert
	plan                     string
	except                   []string // rewind and revert
	session                  string   // revert only
	conflicts                string   // revert only: refuse or markers
}

func (f *opFlags) add(cmd *cobra.Command, force bool) {
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "show the plan and change nothing (exit 4)")
	cmd.Flags().BoolVar(&f.yes, "yes", false, "apply without asking")
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON (see CONTRACT.md)")
	cmd.Flags().StringVar(&f.plan, "plan", "", "apply exactly the plan with this id, as shown; if anything changed since, change nothing (exit 1)")
	if force {
		cmd.Flags().BoolVar(&f.force, "force", false, cmd.Name()+" even over a newer turn that wrote the same paths")
	}
}

// runOperation plans a rewind, undo or redo, shows it, asks, and applies
// exactly what was shown.
func runOperation(g *globals, kind store.Kind, f *opFlags, turn string) error {
	s, err := g.openStore(storeOptions{})
	if err != nil {
		return err
	}
	defer s.Close()
	var p *store.Plan
	switch kind {
	case store.KindRewind:
		var keep []string
		if keep, err = absPaths(f.except); err != nil {
			return fmt.Errorf("--except %w", err)
		}
		p, err = s.PlanRewindWith(turn, store.RewindOptions{Keep: keep, GitIndex: f.gitIndex})
	case store.KindRevert:
		var keep []string
		if keep, err = absPaths(f.except); err != nil {
			return fmt.Errorf("--except %w", err)
		}
		p, err = s.PlanRevert(turn, store.RevertOptions{Session: f.session, Markers: f.conflicts == "markers", Keep: keep, GitIndex: f.gitIndex})
	case store.KindUndo:
		p, err = s.PlanUndo(f.force)
	case store.KindRedo:
		p, err = s.PlanRedo(f.force)
	}
	if nt, ok := errors.AsType[*store.NotTouchedError](err); ok {
		return fmt.Errorf("--except %s: the %s does not touch it, so there is nothing to leave as it is", esc(nt.Path), nt.Kind)
	}
	if errors.Is(err, store.ErrUnknownTurn) && strings.HasPrefix(turn, "op-") {
		return fmt.Errorf("%s %q: no such turn; op-N names an operation (`ckpt undo` takes back the newest one; `ckpt log` lists the turns)", kind, turn)
	}
	if err != nil {
		return err
	}
	// --plan ID applies the plan that was shown, and only that one.
	if f.plan != "" && f.plan != p.ID {
		return fmt.Errorf("%w: plan %s was shown before the store or the disk changed, and nothing was changed (the plan now is %s; run the command without --plan to see it)",
			store.ErrPlanChanged, esc(f.plan), p.ID)
	}
	if (!f.yes && f.plan == "") || f.dryRun {
		undone := undoneOf(s, p)
		interactive := !f.dryRun && isTerminal(os.Stdin) && isTerminal(os.Stderr)
		if !interactive {
			if f.json {
				if err := printJSON(planJSON(p)); err != nil {
					return err
				}
			} else {
				printPlan(os.Stdout, p, undone)
			}
			return exitWith(exitPlanShown)
		}
		printPlan(os.Stderr, p, undone)
		fmt.Fprintf(os.Stderr, "%s? [y/N] ", planTitle(p, undone))
		var answer string
		fmt.Fscanln(os.Stdin, &answer)
		if ans := strings.ToLower(strings.TrimSpace(answer)); ans != "y" && ans != "yes" {
			fmt.Fprintln(os.Stderr, "nothing changed")
			if f.json {
				if err := printJSON(planJSON(p)); err != nil {
					return err
				}
			}
			return exitWith(exitPlanShown)
		}
	}
	total := len(p.Steps)
	progress := func(done, n int) {}
	if total > 200 && isTerminal(os.Stderr) {
		progress = func(done, n int) {
			if done%100 == 0 || done == n {
				fmt.Fprintf(os.Stderr, "\r%s: %d/%d paths", kind, done, n)
				if done == n {
					fmt.Fprintln(os.Stderr)
				}
			}
		}
	}
	apply := p
	if f.yes && f.plan == "" {
		// Nothing was shown: --yes takes the plan as it stands once the
		// store is locked (a capture in flight has then finished).
		fresh := *p
		fresh.ID = ""
		apply = &fresh
	}
	res, err := s.Apply(apply, progress)
	if err != nil {
		return err
	}
	if f.json {
		if err := printJSON(newResultJSON(res)); err != nil {
			return err
		}
	} else {
		printResult(kind, p, res)
	}
	if len(res.Failed) > 0 {
		return exitWith(exitPartial)
	}
	return nil
}

// linesWord names a conflict's lines: "lines 3-5, 9", or "the whole file".
func linesWord(lines []store.LineRange) string {
	if len(lines) == 0 {
		return "the whole file"
	}
	var each []string
	for _, l := range lines {
		if l.Start == l.End {
			each = append(each, fmt.Sprint(l.Start))
		} else {
			each = append(each, fmt.Sprintf("%d-%d", l.Start, l.End))
		}
	}
	return "lines " + strings.Join(each, ", ")
}

// titleOf is the plan's heading, as the UI words it too.
func titleOf(p *store.Plan) string { return present.OpTitle(p.Kind, p.Target) }

// undoneOf is the log entry of the operation an undo or redo plan acts
// on, so the plan can say what undoing that kind does; nil for another
// plan, or when it cannot be read (the plan then reads as a rewind's).
func undoneOf(s *store.Store, p *store.Plan) *store.Entry {
	if p.Kind != store.KindUndo && p.Kind != store.KindRedo || p.Target == "" {
		return nil
	}
	sh, err := s.Show(p.Target, false)
	if err != nil {
		return nil
	}
	return &sh.Entry
}

// planTitle is the plan's heading and question: an undo or redo names
// what it acts on ("Undo op-4, the revert of turn 3"), as the UI does.
func planTitle(p *store.Plan, undone *store.Entry) string {
	t := titleOf(p)
	if undone != nil {
		if name := present.UndoneName(string(undone.Kind), undone.Target, undone.Retry, len(undone.Turns)); name != "" {
			t += ", " + name
		}
	}
	return t
}

func printPlan(w io.Writer, p *store.Plan, undone *store.Entry) {
	turns := make([]string, len(p.Turns))
	for i, t := range p.Turns {
		turns[i] = esc(t)
	}
	ids := strings.Join(turns, ", ")
	var what string
	switch p.Kind {
	case store.KindUndo, store.KindRedo:
		var kind, retry string
		if undone != nil {
			kind, retry = string(undone.Kind), undone.Retry
		}
		what = present.UndoVerb(string(p.Kind), kind, retry, turns)
	case store.KindRevert:
		what = "takes out turns " + ids
		if p.Session != "" {
			// Listed in the order they are taken out.
			slices.Reverse(turns)
			ids = strings.Join(turns, ", ")
			what = "session " + esc(p.Session) + ", newest first: takes out turns " + ids
		}
	default:
		what = "undoes turns " + ids
	}
	if len(turns) == 1 {
		what = strings.Replace(what, "turns "+ids, "turn "+ids, 1)
	}
	fmt.Fprintf(w, "%s (%s):\n", planTitle(p, undone), what)
	if p.Retry != "" {
		fmt.Fprintf(w, "  retries the paths %s could not put back\n", p.Retry)
	}
	hand := 0
	for _, st := range p.Steps {
		if st.Do == store.ActKeep {
			continue
		}
		do := string(st.Do)
		if st.Do == store.ActLeave {
			do = "kept"
		}
		line := fmt.Sprintf("  %-8s %s", do, esc(st.Path))
		if st.Reason != "" {
			line += "  (" + esc(st.Reason) + ")"
		}
		if st.HandEdited {
			line += "  [" + present.ChangedSinceAgent + "]"
			hand++
		}
		if st.KeptHunks > 0 {
			line += "  [" + present.Count(st.KeptHunks, "hunk") + " kept as now]"
		}
		switch {
		case st.Conflicts != nil && st.Do == store.ActRestore:
			line += "  [conflict: written with markers]"
		case st.Merged && st.Do == store.ActRestore:
			line += "  [merged: later changes kept]"
		}
		fmt.Fprintln(w, line)
	}
	keep := 0
	for _, st := range p.Steps {
		if st.Do == store.ActKeep {
			keep++
		}
	}
	if keep > 0 {
		what := present.Count(keep, "path") + " already as they should be"
		if keep == 1 {
			what = "1 path already as it should be"
		}
		fmt.Fprintf(w, "  %s: left alone\n", what)
	}
	if hand > 0 {
		what := present.Count(hand, "file") + " were"
		if hand == 1 {
			what = "1 file was"
		}
		fmt.Fprintf(w, "%s %s; the current bytes are kept, and `ckpt undo` brings them back.\n", what, present.ChangedSinceAgent)
	}
	for _, l := range gitLines(p) {
		fmt.Fprintln(w, l)
	}
	for _, warn := range p.Warnings {
		fmt.Fprintln(w, "warning: "+esc(present.Warning(string(warn.Kind), warn.Turn, warn.Path, warn.From, warn.To)))
	}
	fmt.Fprintf(w, "plan %s (--plan %s applies exactly this)\n", p.ID, p.ID)
}

// gitLines say what the plan's turns did to git and what the plan does
// to git's index; the UI's preview says the same.
func gitLines(p *store.Plan) []string {
	if p.Kind == store.KindRevert {
		return revertGitLines(p)
	}
	var out []string
	if g := p.Git; g != nil {
		pg := present.Git(*g)
		out = append(out, pg.Lead()+": "+pg.Words())
		if cmds := pg.Commands(); len(cmds) > 0 {
			out = append(out, "  ckpt moves no refs (the commits stay in the reflog); to put HEAD back yourself:")
			for _, c := range cmds {
				out = append(out, "    "+c)
			}
		}
		if g.IndexChanged && !p.GitIndex && p.Kind == store.KindRewind {
			out = append(out, "  git's index is left as it is; --git-index puts it back as it was before turn "+esc(p.Target))
		}
	}
	if p.Index != nil {
		switch p.Kind {
		case store.KindRewind:
			out = append(out, "git's index: put back as it was before turn "+esc(p.Target)+" (under git's index.lock)")
		default:
			out = append(out, "git's index: given back as it was before "+esc(p.Target))
		}
	}
	return out
}

// revertGitLines are gitLines for a revert: what its turns did to git
// while they ran, and what putting the index back drops.
func revertGitLines(p *store.Plan) []string {
	var out []string
	what := present.RevertWhat(p.Target, p.Session, len(p.Turns))
	if g := p.Git; g != nil {
		pg := present.Git(*g)
		out = append(out, "git during "+what+": "+pg.Words())
		cmds := pg.Commands()
		switch {
		case len(cmds) > 0 && p.HeadSince:
			out = append(out, "  ckpt moves no refs, and HEAD moved after it too: no command puts back only its part")
		case len(cmds) > 0:
			out = append(out, "  ckpt moves no refs (the commits stay in the reflog); to put HEAD back yourself:")
			for _, c := range cmds {
				out = append(out, "    "+c)
			}
		}
	}
	drops := ""
	if len(p.IndexDrops) > 0 {
		names := make([]string, len(p.IndexDrops))
		for i, n := range p.IndexDrops {
			names[i] = esc(n)
		}
		drops = "what was staged after it: " + strings.Join(names, ", ")
	}
	switch {
	case p.Index != nil:
		out = append(out, "git's index: put back as it was before "+what+" (under git's index.lock)")
		if drops != "" {
			out = append(out, "  this drops "+drops)
		}
	case p.Git != nil && p.Git.IndexChanged && !p.GitIndex:
		line := "  git's index is left as it is; --git-index puts it back as it was before " + what
		if drops != "" {
			line += ", dropping " + drops
		}
		out = append(out, line)
	}
	return out
}

// gitJSON is a plan's "git": what its turns did to git.
type gitJSON struct {
	Head         [2]string `json:"head"` // the commits HEAD named before the turns and now
	Refs         [2]string `json:"refs"` // the branches ("" detached)
	Commits      int       `json:"commits"`
	IndexChanged bool      `json:"index_changed"`
	Turns        []string  `json:"turns,omitempty"` // the turns that changed git
	// IndexRestore says the plan writes git's index back.
	IndexRestore bool `json:"index_restore,omitempty"`
	// IndexDrops, in a revert, are the staged paths that changed after its
	// turns, which putting the index back drops.
	IndexDrops []string `json:"index_drops,omitempty"`
}

// planJSON is a plan shown and not applied, as JSON: the result it would
// have, and "git" when its turns changed git's state.
func planJSON(p *store.Plan) any {
	out := struct {
		resultJSON
		Git *gitJSON `json:"git,omitempty"`
	}{resultJSON: newResultJSON(p.Result())}
	if g := p.Git; g != nil || p.Index != nil {
		out.Git = &gitJSON{IndexRestore: p.Index != nil, IndexDrops: p.IndexDrops}
		if g != nil {
			out.Git.Head = [2]string{g.FromCommit, g.ToCommit}
			out.Git.Refs = [2]string{g.FromRef, g.ToRef}
			out.Git.Commits, out.Git.IndexChanged, out.Git.Turns = g.Commits, g.IndexChanged, g.Turns
		}
	}
	return out
}

func printResult(kind store.Kind, p *store.Plan, r *store.Result) {
	fmt.Printf("%s: %s — %d restored, %d deleted, %d failed", r.Op, strings.ToLower(titleOf(p)[:1])+titleOf(p)[1:], len(r.Restored), len(r.Deleted), len(r.Failed))
	if len(r.Kept) > 0 {
		fmt.Printf(", %d kept as they are", len(r.Kept))
	}
	// Every path failed: nothing changed, and there is nothing to undo.
	changedNothing := len(r.Failed) > 0 && len(r.Restored)+len(r.Deleted) == 0
	if kind != store.KindUndo && !changedNothing {
		fmt.Print(" (`ckpt undo` to undo)")
	}
	fmt.Println()
	for _, f := range r.Failed {
		fmt.Printf("  failed  %s: %s\n", esc(f.Path), esc(f.Reason))
	}
	if p.Index != nil {
		if kind == store.KindUndo {
			fmt.Printf("git's index: given back as it was before %s, under git's index.lock\n", esc(p.Target))
		} else {
			fmt.Println("git's index: put back under git's index.lock (`ckpt undo` gives it back)")
		}
	}
	for _, c := range r.Conflicts {
		if slices.ContainsFunc(r.Failed, func(f store.Failure) bool { return f.Path == c.Path }) {
			continue
		}
		fmt.Printf("  markers %s: %s\n", esc(c.Path), linesWord(c.Lines))
	}
	if len(r.Failed) > 0 {
		fmt.Println("running the same command again retries the failed paths")
	}
}
