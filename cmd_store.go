package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"ckpt/diffview"
	"ckpt/store"
)

// atLayout is CONTRACT.md's fixed time layout: the strings sort as the times do.
const atLayout = "2006-01-02T15:04:05.000000000Z"

var esc = diffview.Escape

func isTerminal(f *os.File) bool { return term.IsTerminal(f.Fd()) }

func cmdCapture(in []string) int {
	a, err := parseArgs(in, []string{"turn", "label", "root", "max-blob"}, nil)
	if err != nil {
		return fail(err)
	}
	if a.vals["turn"] == "" || len(a.pos) == 0 {
		return fail(fmt.Errorf("capture needs --turn T and at least one PATH: %w", errUsage))
	}
	s, err := openStore(a, true)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	id, err := s.Capture(a.vals["turn"], store.TurnMeta{Label: a.vals["label"]}, absPaths(a.pos))
	if err != nil {
		return fail(err)
	}
	noteIncarnation(a.vals["turn"], id)
	return 0
}

func noteIncarnation(asked, got string) {
	if asked != got {
		fmt.Fprintf(os.Stderr, "ckpt: turn %s was rewound, so this is turn %s\n", esc(asked), esc(got))
	}
}

func cmdSeal(in []string) int {
	a, err := parseArgs(in, []string{"turn", "root", "max-blob"}, nil)
	if err != nil {
		return fail(err)
	}
	if a.vals["turn"] == "" || len(a.pos) == 0 {
		return fail(fmt.Errorf("seal needs --turn T and at least one PATH: %w", errUsage))
	}
	s, err := openStore(a, true)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	return fail(s.Seal(a.vals["turn"], absPaths(a.pos)))
}

func cmdWrite(in []string) int {
	a, err := parseArgs(in, []string{"turn", "label", "root", "max-blob"}, nil)
	if err != nil {
		return fail(err)
	}
	if a.vals["turn"] == "" || len(a.pos) != 1 {
		return fail(fmt.Errorf("write needs --turn T and one PATH: %w", errUsage))
	}
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		return fail(fmt.Errorf("write: read standard input: %w", err))
	}
	s, err := openStore(a, true)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	id, err := s.Write(a.vals["turn"], store.TurnMeta{Label: a.vals["label"]}, absPaths(a.pos)[0], data)
	if err != nil {
		return fail(err)
	}
	noteIncarnation(a.vals["turn"], id)
	return 0
}

func cmdRm(in []string) int {
	a, err := parseArgs(in, []string{"turn", "label", "root", "max-blob"}, nil)
	if err != nil {
		return fail(err)
	}
	if a.vals["turn"] == "" || len(a.pos) == 0 {
		return fail(fmt.Errorf("rm needs --turn T and at least one PATH: %w", errUsage))
	}
	s, err := openStore(a, true)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	id, err := s.Remove(a.vals["turn"], store.TurnMeta{Label: a.vals["label"]}, absPaths(a.pos))
	if err != nil {
		return fail(err)
	}
	noteIncarnation(a.vals["turn"], id)
	return 0
}

// logJSON is one element of `log --json`.
type logJSON struct {
	Turn       string          `json:"turn"`
	Label      string          `json:"label"`
	At         string          `json:"at"`
	Kind       store.Kind      `json:"kind"`
	State      store.State     `json:"state"`
	Files      int             `json:"files"`
	HandEdited int             `json:"hand_edited"`
	Source     *store.Source   `json:"source,omitempty"`
	Head       string          `json:"head,omitempty"`
	Target     string          `json:"target,omitempty"`
	Turns      []string        `json:"turns,omitempty"`
	Retry      string          `json:"retry,omitempty"`
	Failed     []store.Failure `json:"failed,omitempty"`
}

func cmdLog(in []string) int {
	a, err := parseArgs(in, []string{"root"}, []string{"json"})
	if err != nil {
		return fail(err)
	}
	if len(a.pos) > 0 {
		return fail(fmt.Errorf("log takes no arguments: %w", errUsage))
	}
	s, err := openStore(a, false)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	entries, err := s.Log(true)
	if err != nil {
		return fail(err)
	}
	if errs, _ := s.Errors(); len(errs) > 0 {
		fmt.Fprintf(os.Stderr, "ckpt: %d lines in the store's error log (.osfoundry/checkpoints/errors.log); the newest:\n", len(errs))
		for _, l := range errs[max(0, len(errs)-3):] {
			fmt.Fprintln(os.Stderr, "  "+esc(l))
		}
	}
	if a.set["json"] {
		out := make([]logJSON, 0, len(entries))
		for _, e := range entries {
			out = append(out, logJSON{Turn: e.ID, Label: e.Label, At: e.At.UTC().Format(atLayout), Kind: e.Kind,
				State: e.State, Files: e.Files, HandEdited: max(e.HandEdited, 0), Source: e.Source, Head: e.Head,
				Target: e.Target, Turns: e.Turns, Retry: e.Retry, Failed: e.Failed})
		}
		return printJSON(out)
	}
	if len(entries) == 0 {
		fmt.Println("no turns yet")
		return 0
	}
	now := time.Now()
	for _, e := range entries {
		extra := ""
		if e.HandEdited > 0 {
			extra = fmt.Sprintf("  %d changed since the agent", e.HandEdited)
		}
		who := ""
		if e.Source != nil && e.Source.Agent != "" {
			who = "  [" + esc(e.Source.Agent) + "]"
		}
		fmt.Printf("%-8s %-7s %-8s %9s  %3d files  %s%s%s\n", esc(e.ID), e.Kind, e.State, ago(now, e.At), e.Files, esc(e.Label), who, extra)
	}
	return 0
}

// ago says how long ago t was, in the largest whole unit.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

func printJSON(v any) int {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fail(err)
	}
	return 0
}

var statusLetter = map[store.Status]string{
	store.StatusModified: "M", store.StatusCreated: "A", store.StatusDeleted: "D",
	store.StatusUnchanged: "=", store.StatusHandEdited: "!", store.StatusSkipped: "S",
	store.StatusMissingBlob: "?", store.StatusRefused: "X", store.StatusFailed: "F",
}

func cmdShow(in []string) int {
	a, err := parseArgs(in, []string{"root"}, []string{"json"})
	if err != nil {
		return fail(err)
	}
	if len(a.pos) != 1 {
		return fail(fmt.Errorf("show needs one TURN: %w", errUsage))
	}
	s, err := openStore(a, false)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	files, err := s.Files(a.pos[0], true)
	if err != nil {
		return fail(err)
	}
	if a.set["json"] {
		type fileJSON struct {
			Path       string       `json:"path"`
			Pre        string       `json:"pre"`
			Status     store.Status `json:"status"`
			Reason     string       `json:"reason,omitempty"`
			HandEdited bool         `json:"hand_edited,omitempty"`
		}
		out := struct {
			Turn  string     `json:"turn"`
			Files []fileJSON `json:"files"`
		}{Turn: a.pos[0], Files: []fileJSON{}}
		for _, f := range files {
			out.Files = append(out.Files, fileJSON{Path: f.Path, Pre: string(f.Pre.Kind), Status: f.Status, Reason: f.Reason,
				HandEdited: f.HandEdited && f.Status != store.StatusHandEdited})
		}
		return printJSON(out)
	}
	for _, f := range files {
		why := ""
		if f.Reason != "" {
			why = "  (" + esc(f.Reason) + ")"
		}
		fmt.Printf("%s  %-12s %s%s\n", statusLetter[f.Status], f.Status, esc(f.Path), why)
	}
	return 0
}

func cmdDiff(in []string) int {
	a, err := parseArgs(in, []string{"root"}, nil)
	if err != nil {
		return fail(err)
	}
	if len(a.pos) < 1 {
		return fail(fmt.Errorf("diff needs a TURN: %w", errUsage))
	}
	s, err := openStore(a, false)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	files, err := s.Files(a.pos[0], false)
	if err != nil {
		return fail(err)
	}
	only := map[string]bool{}
	for _, p := range absPaths(a.pos[1:]) {
		rel, err := s.Rel(p)
		if err != nil {
			return fail(err)
		}
		only[rel] = true
	}
	code := 0
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
			code = 1
			continue
		}
		_, now, err := s.ReadDisk(f.Path)
		if err != nil {
			fmt.Printf("# %s: %s\n", esc(f.Path), esc(err.Error()))
			code = 1
			continue
		}
		d := diffview.Compute(old, now, diffview.Options{})
		if d.Added == 0 && d.Deleted == 0 && !d.Binary && !d.TooLarge {
			continue
		}
		fmt.Printf("--- a/%s\t(before turn %s)\n+++ b/%s\t(now)\n", esc(f.Path), esc(a.pos[0]), esc(f.Path))
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
		fmt.Fprintf(os.Stderr, "ckpt: %s is not in turn %s\n", esc(p), esc(a.pos[0]))
		code = 1
	}
	return code
}

// cmdOperation runs rewind, undo and redo: plan, show, ask, apply.
func cmdOperation(kind store.Kind, in []string) int {
	bools := []string{"dry-run", "yes", "json"}
	if kind != store.KindRewind {
		bools = append(bools, "force")
	}
	valued := []string{"root", "plan"}
	if kind == store.KindRewind {
		valued = append(valued, "except")
	}
	a, err := parseArgs(in, valued, bools)
	if err != nil {
		return fail(err)
	}
	if (kind == store.KindRewind) != (len(a.pos) == 1) || len(a.pos) > 1 {
		if kind == store.KindRewind {
			return fail(fmt.Errorf("rewind needs one TURN: %w", errUsage))
		}
		return fail(fmt.Errorf("%s takes no arguments: %w", kind, errUsage))
	}
	s, err := openStore(a, false)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	var p *store.Plan
	switch kind {
	case store.KindRewind:
		var keep []string
		for _, k := range a.multi["except"] {
			abs, err := filepath.Abs(k)
			if err != nil {
				return fail(fmt.Errorf("--except %s: %w", k, err))
			}
			keep = append(keep, abs)
		}
		p, err = s.PlanRewindKeep(a.pos[0], keep)
	case store.KindUndo:
		p, err = s.PlanUndo(a.set["force"])
	case store.KindRedo:
		p, err = s.PlanRedo(a.set["force"])
	}
	if err != nil {
		return fail(err)
	}
	// --plan ID applies the plan that was shown, and only that one.
	if want := a.vals["plan"]; want != "" && want != p.ID {
		return fail(fmt.Errorf("plan %s is out of date: the store or the disk changed since it was shown, and nothing was changed (the plan now is %s; run the command without --plan to see it): %w",
			esc(want), p.ID, store.ErrPlanChanged))
	}
	if (!a.set["yes"] && a.vals["plan"] == "") || a.set["dry-run"] {
		interactive := !a.set["dry-run"] && isTerminal(os.Stdin) && isTerminal(os.Stderr)
		if !interactive {
			if a.set["json"] {
				printJSON(p.Result())
			} else {
				printPlan(os.Stdout, p)
			}
			return 4
		}
		printPlan(os.Stderr, p)
		fmt.Fprintf(os.Stderr, "%s? [y/N] ", titleOf(p))
		var answer string
		fmt.Fscanln(os.Stdin, &answer)
		if ans := strings.ToLower(strings.TrimSpace(answer)); ans != "y" && ans != "yes" {
			fmt.Fprintln(os.Stderr, "nothing changed")
			if a.set["json"] {
				printJSON(p.Result())
			}
			return 4
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
	if a.set["yes"] && a.vals["plan"] == "" {
		// Nothing was shown: --yes takes the plan as it stands once the
		// store is locked (a capture in flight has then finished).
		fresh := *p
		fresh.ID = ""
		apply = &fresh
	}
	res, err := s.Apply(apply, progress)
	if err != nil {
		return fail(err)
	}
	if a.set["json"] {
		printJSON(res)
	} else {
		printResult(kind, p, res)
	}
	if len(res.Failed) > 0 {
		return 3
	}
	return 0
}

func titleOf(p *store.Plan) string {
	switch p.Kind {
	case store.KindUndo:
		return "Undo " + p.Target
	case store.KindRedo:
		return "Redo " + p.Target
	}
	return "Rewind to before turn " + esc(p.Target)
}

func printPlan(w io.Writer, p *store.Plan) {
	turns := make([]string, len(p.Turns))
	for i, t := range p.Turns {
		turns[i] = esc(t)
	}
	verb := "undoes turns"
	if p.Kind == store.KindUndo {
		verb = "brings back turns"
	}
	fmt.Fprintf(w, "%s (%s %s):\n", titleOf(p), verb, strings.Join(turns, ", "))
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
			line += "  [changed since the agent wrote it]"
			hand++
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
		fmt.Fprintf(w, "  %d paths already as they should be: left alone\n", keep)
	}
	if hand > 0 {
		what := fmt.Sprintf("%d files were", hand)
		if hand == 1 {
			what = "1 file was"
		}
		fmt.Fprintf(w, "%s changed since the agent wrote it; the current bytes are kept, and `ckpt undo` brings them back.\n", what)
	}
	for _, warn := range p.Warnings {
		fmt.Fprintln(w, "warning: "+esc(warn))
	}
	fmt.Fprintf(w, "plan %s (--plan %s applies exactly this)\n", p.ID, p.ID)
}

func printResult(kind store.Kind, p *store.Plan, r *store.Result) {
	fmt.Printf("%s: %s — %d restored, %d deleted, %d failed", r.Op, strings.ToLower(titleOf(p)[:1])+titleOf(p)[1:], len(r.Restored), len(r.Deleted), len(r.Failed))
	if len(r.Kept) > 0 {
		fmt.Printf(", %d kept as they are", len(r.Kept))
	}
	if kind != store.KindUndo {
		fmt.Print(" (`ckpt undo` to undo)")
	}
	fmt.Println()
	for _, f := range r.Failed {
		fmt.Printf("  failed  %s: %s\n", esc(f.Path), esc(f.Reason))
	}
	if len(r.Failed) > 0 {
		fmt.Println("running the same command again retries the failed paths")
	}
}

func cmdPrune(in []string) int {
	a, err := parseArgs(in, []string{"root", "keep", "older-than"}, []string{"dry-run"})
	if err != nil {
		return fail(err)
	}
	var o store.PruneOptions
	if k := a.vals["keep"]; k != "" {
		if _, err := fmt.Sscan(k, &o.Keep); err != nil || o.Keep < 0 {
			return fail(fmt.Errorf("--keep %q is not a count: %w", k, errUsage))
		}
	}
	if d := a.vals["older-than"]; d != "" {
		dur, err := parseDuration(d)
		if err != nil {
			return fail(fmt.Errorf("--older-than %q: %v: %w", d, err, errUsage))
		}
		o.OlderThan = dur
	}
	if o.Keep == 0 && o.OlderThan == 0 || len(a.pos) > 0 {
		return fail(fmt.Errorf("prune needs --keep N or --older-than DUR: %w", errUsage))
	}
	o.DryRun = a.set["dry-run"]
	s, err := openStore(a, false)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	res, err := s.Prune(o)
	if err != nil {
		return fail(err)
	}
	verb := "dropped"
	if o.DryRun {
		verb = "would drop"
	}
	sort.Strings(res.Turns)
	fmt.Printf("%s %d turns and %d blobs (%s)\n", verb, len(res.Turns), res.Blobs, diffview.Bytes(res.BytesFreed))
	if o.DryRun {
		return 4
	}
	return 0
}

// parseDuration accepts Go durations and days ("7d").
func parseDuration(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		var n float64
		if _, err := fmt.Sscan(d, &n); err == nil && n > 0 {
			return time.Duration(n * float64(24*time.Hour)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, errors.New("not a duration like 72h or 7d")
	}
	return d, nil
}

func cmdVerify(in []string) int {
	a, err := parseArgs(in, []string{"root"}, []string{"json"})
	if err != nil {
		return fail(err)
	}
	s, err := openStore(a, false)
	if err != nil {
		return fail(err)
	}
	defer s.Close()
	found, err := s.Verify()
	if err != nil {
		return fail(err)
	}
	if a.set["json"] {
		type findingJSON struct {
			File   string `json:"file"`
			Reason string `json:"reason"`
		}
		out := struct {
			OK       bool          `json:"ok"`
			Findings []findingJSON `json:"findings"`
		}{OK: len(found) == 0, Findings: []findingJSON{}}
		for _, f := range found {
			out.Findings = append(out.Findings, findingJSON{f.File, f.Reason})
		}
		printJSON(out)
	} else if len(found) == 0 {
		fmt.Println("store is sound: every record and blob checks out")
	} else {
		for _, f := range found {
			fmt.Printf("damaged: .osfoundry/checkpoints/%s: %s\n", esc(f.File), esc(f.Reason))
		}
	}
	if len(found) > 0 {
		fmt.Fprintf(os.Stderr, "ckpt: %d damaged files in the store\n", len(found))
		return 1
	}
	return 0
}
