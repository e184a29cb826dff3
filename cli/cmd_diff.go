package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/diffview"
	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newDiffCmd) }

func newDiffCmd(g *globals) *cobra.Command {
	var color string
	var noPager bool
	var agent bool
	cmd := &cobra.Command{
		Use:   "diff TURN [PATH...]",
		Short: "Unified diff of a turn's files, pre-image → disk now",
		Long: `diff shows how each file TURN touched differs now from the bytes kept
before the turn, or only the PATHs named.

At a terminal the diff is coloured and control characters in the files are
escaped, so a file cannot clear the screen or retitle the terminal. Into a
pipe it is the raw unified diff: git apply -R takes it and puts the files
back as they were before TURN. --color=auto colours only at a terminal, when
NO_COLOR is not set and TERM is not dumb. At a terminal the diff goes
through $PAGER (less -R when PAGER is not set, with LESS=FRX as git sets
it, so a short diff prints and returns); PAGER=cat or --no-pager prints it
straight.

--agent diffs the pre-image against what the agent left instead of the disk
now: the agent's own change, also for a turn that was rewound.`,
		Example: `ckpt diff 3
ckpt diff 3 src/app.js
ckpt diff 3 --agent
ckpt diff 3 | git apply -R`,
		Args:              minArgs(1, "a TURN"),
		ValidArgsFunction: completeTurn(g, true),
		RunE: func(_ *cobra.Command, args []string) error {
			tty := isTerminal(os.Stdout)
			var colored bool
			switch color {
			case "auto":
				colored = tty && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
			case "always":
				colored = true
			case "never":
			default:
				return usageErrorf("--color %q: want auto, always or never", color)
			}
			var out io.Writer = os.Stdout
			if !noPager {
				if pg := startPager(); pg != nil {
					defer pg.wait()
					out = pg
				}
			}
			w := bufio.NewWriter(out)
			dw := diffWriter{w: w, color: colored, escape: tty || colored}
			err := runDiff(g, dw, args[0], args[1:], agent)
			if ferr := w.Flush(); err == nil && ferr != nil && out == io.Writer(os.Stdout) {
				err = ferr
			}
			return err
		},
	}
	cmd.Flags().StringVar(&color, "color", "auto", "colour the diff: auto, always or never")
	cmd.Flags().BoolVar(&noPager, "no-pager", false, "print at a terminal without $PAGER")
	cmd.Flags().BoolVar(&agent, "agent", false, "the agent's own change: pre-image → what the agent left")
	_ = cmd.RegisterFlagCompletionFunc("color", cobra.FixedCompletions([]cobra.Completion{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runDiff(g *globals, w diffWriter, turn string, paths []string, agent bool) error {
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
	// want filters the files; only tracks the named paths not met yet.
	want, only := map[string]bool{}, map[string]bool{}
	for _, p := range abs {
		rel, err := s.Rel(p)
		if err != nil {
			return err
		}
		want[rel], only[rel] = true, true
	}
	w.agent = agent
	if op := rewoundBy(s, turn); op != "" && !agent {
		fmt.Fprintf(os.Stderr, "ckpt: turn %s was rewound by %s: its files are as before it; --agent shows what the agent did\n", esc(turn), esc(op))
	}
	code := exitOK
	for _, f := range files {
		if len(want) > 0 && !want[f.Path] {
			continue
		}
		delete(only, f.Path)
		if f.Status == store.StatusRefused {
			w.note(f.Path, f.Reason)
			continue
		}
		if f.Pre.Kind == store.ImageSkipped {
			w.note(f.Path, "not kept: "+f.Pre.Reason)
			continue
		}
		old, err := s.ReadImage(f.Pre)
		if err != nil {
			w.note(f.Path, err.Error())
			code = exitError
			continue
		}
		img, now, err := s.ReadDisk(f.Path)
		if agent {
			img, now, err = agentLeft(s, f)
		}
		if err != nil {
			w.note(f.Path, err.Error())
			code = exitError
			continue
		}
		if note := kindChange(f.Pre, img); note != "" {
			w.note(f.Path, note)
		}
		if m := modeChange(f.Pre, img); m != "" {
			w.note(f.Path, m)
		}
		d := diffview.Compute(old, now, diffview.Options{})
		switch {
		case d.Binary || d.TooLarge:
			if bytes.Equal(old, now) {
				continue
			}
			// A unified diff cannot carry these; say so in a line patch
			// readers such as git apply pass over.
			w.note(f.Path, noteOf(d))
			continue
		case d.Added == 0 && d.Deleted == 0:
			continue
		}
		w.file(f.Path, turn, f.Pre.Kind == store.ImageAbsent, img.Kind == store.ImageAbsent)
		for _, r := range d.Rows() {
			w.row(r)
		}
	}
	for p := range only {
		fmt.Fprintf(os.Stderr, "ckpt: %s is not in turn %s\n", esc(p), esc(turn))
		code = exitError
	}
	return exitWith(code)
}

// agentLeft is what the agent left at f's path, as ReadDisk gives the disk.
func agentLeft(s *store.Store, f store.File) (store.Image, []byte, error) {
	switch {
	case f.Post == nil:
		return store.Image{}, nil, fmt.Errorf("the agent's write was never sealed: what it left was not recorded")
	case f.Post.Kind == store.ImageAbsent:
		return *f.Post, nil, nil
	case f.Post.Kind == store.ImageContent && !f.Post.Kept:
		return store.Image{}, nil, fmt.Errorf("what the agent left was not kept (over the size limit)")
	case f.Post.Kind == store.ImageLink:
		return *f.Post, []byte(f.Post.Link), nil
	}
	b, err := s.ReadImage(*f.Post)
	return *f.Post, b, err
}

// kindChange says, for a patch reader to pass over, that a path changed
// kind (a file became a folder, a folder a link); "" when it did not.
func kindChange(was, now store.Image) string {
	word := func(img store.Image) string {
		switch img.Kind {
		case store.ImageDir:
			return "a folder"
		case store.ImageLink:
			return "a symbolic link"
		case store.ImageContent, store.ImageSkipped:
			return "a file"
		}
		return ""
	}
	a, b := word(was), word(now)
	if a == "" || b == "" || a == b || was.Kind != store.ImageDir && now.Kind != store.ImageDir {
		return ""
	}
	return "was " + a + ", now " + b
}

// noteOf is the one-line summary of a diff that has no lines.
func noteOf(d *diffview.Diff) string {
	for _, r := range d.Rows() {
		if r.Kind == diffview.RowNote {
			return r.Text
		}
	}
	return "no changes"
}

// diffWriter writes a unified diff: raw, as patch tools read it, or for a
// person at a terminal, coloured and with control characters escaped.
type diffWriter struct {
	w      io.Writer
	color  bool
	escape bool
	agent  bool // the new side is what the agent left, not the disk now
}

func (d diffWriter) line(sgr, s string) {
	if d.escape {
		s = esc(s)
	}
	if d.color && sgr != "" {
		s = sgr + s + sgrReset
	}
	io.WriteString(d.w, s+"\n")
}

// name is a path as a diff header shows it: escaped for a person, quoted
// as git quotes it for a patch tool when it holds unusual bytes.
func (d diffWriter) name(prefix, p string) string {
	if d.escape {
		return esc(prefix + p)
	}
	return quotePath(prefix + p)
}

// file writes a file's --- and +++ headers; a side that does not exist is
// /dev/null, so patch tools create or delete the file.
func (d diffWriter) file(p, turn string, created, deleted bool) {
	from, to := d.name("a/", p), d.name("b/", p)
	if created {
		from = "/dev/null"
	}
	if deleted {
		to = "/dev/null"
	}
	bold := func(s string) {
		if d.color {
			s = sgrBold + s + sgrReset
		}
		io.WriteString(d.w, s+"\n")
	}
	bold("--- " + from + "\t(before turn " + esc(turn) + ")")
	if d.agent {
		bold("+++ " + to + "\t(as turn " + esc(turn) + " left it)")
	} else {
		bold("+++ " + to + "\t(now)")
	}
}

func (d diffWriter) row(r diffview.Row) {
	switch r.Kind {
	case diffview.RowContext:
		d.line("", " "+r.Text)
	case diffview.RowDel:
		d.line(sgrRed, "-"+r.Text)
	case diffview.RowAdd:
		d.line(sgrGreen, "+"+r.Text)
	case diffview.RowHunk:
		d.line(sgrCyan, r.Text)
	case diffview.RowNoEOL:
		d.line("", `\ No newline at end of file`)
	default:
		d.line("", "# "+r.Text)
	}
}

// note writes a sentence about a path that has no diff to show, as a line
// patch tools pass over.
func (d diffWriter) note(p, what string) {
	io.WriteString(d.w, "# "+esc(p)+": "+esc(what)+"\n")
}

// quotePath quotes a name the way git does when it holds a control
// character, a double quote, a backslash, bytes that are not UTF-8 or a
// character that hides or reorders text (a direction override, a
// zero-width space), so a patch read later shows one name for another;
// other names are left as they are.
func quotePath(p string) string {
	plain := utf8.ValidString(p) && present.Escape(p) == p
	for i := 0; plain && i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == 0x7f || c == '"' || c == '\\' {
			plain = false
		}
	}
	if plain {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20 || c >= 0x7f:
			b.WriteString(`\` + strconv.FormatInt(int64(c)|0o1000, 8)[1:])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
