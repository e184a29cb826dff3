package cli

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/store"
)

// Exit codes, as CONTRACT.md names them.
const (
	exitOK        = 0 // done
	exitError     = 1 // an error, named on stderr
	exitUsage     = 2 // a command-line mistake
	exitPartial   = 3 // done in part: some paths could not be restored
	exitPlanShown = 4 // a plan shown and nothing changed
)

// errUsage marks a command-line mistake: exit 2.
var errUsage = errors.New("usage")

// usageErrorf is a command-line mistake, worded for the user.
func usageErrorf(format string, a ...any) error {
	return fmt.Errorf(format+": %w", append(a, errUsage)...)
}

// exitCodeError ends a command with a code other than 0 or 1 after the
// command has already said what happened; it prints nothing more.
type exitCodeError int

func (e exitCodeError) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// exitWith returns the error that makes the program exit with code, or nil
// for exitOK.
func exitWith(code int) error {
	if code == exitOK {
		return nil
	}
	return exitCodeError(code)
}

// globals are the flags every command takes.
type globals struct {
	root string // --root DIR
}

// commandMakers builds the subcommands; each cmd_<verb>.go adds its own in
// an init function, so a new command is one new file. The tree is built
// afresh by newRootCmd, so nothing is shared between runs.
var commandMakers []func(*globals) *cobra.Command

// register adds a subcommand constructor; call it from init.
func register(make func(*globals) *cobra.Command) {
	commandMakers = append(commandMakers, make)
}

// projectRoot is the one root resolver of the command line: --root or
// $CKPT_ROOT name the root exactly; otherwise the walk up from the working
// directory finds it. The result is absolute.
func (g *globals) projectRoot() (string, error) {
	r := g.root
	if r == "" {
		r = os.Getenv("CKPT_ROOT")
	}
	if r == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the project root: %w", err)
		}
		return store.FindRoot(wd), nil
	}
	abs, err := filepath.Abs(r)
	if err != nil {
		return "", fmt.Errorf("project root %s: %w", r, err)
	}
	return abs, nil
}

// storeOptions tune openStore.
type storeOptions struct {
	create  bool   // commands that write records make the store
	maxBlob string // --max-blob, "" for the default
}

// openStore opens the root's store. Interrupted operations finished on the
// way are told on stderr.
func (g *globals) openStore(so storeOptions) (*store.Store, error) {
	root, err := g.projectRoot()
	if err != nil {
		return nil, err
	}
	opt := store.Options{Create: so.create, Notify: func(msg string) { fmt.Fprintln(os.Stderr, "ckpt: "+escLines(msg)) }}
	if so.maxBlob != "" {
		n, err := parseSize(so.maxBlob)
		if err != nil {
			return nil, usageErrorf("--max-blob %q: %v", so.maxBlob, err)
		}
		opt.MaxBlob = n
	}
	s, err := store.Open(root, opt)
	if errors.Is(err, store.ErrNoStore) {
		return nil, fmt.Errorf("no checkpoint store in %s (nothing has been captured there; it would be in .osfoundry/checkpoints)", root)
	}
	return s, err
}

// absPaths is the one path absolutizer of the command line: paths typed
// relative to the working directory become absolute, so the store can
// place them under the root. The working directory is asked for once, not
// once a path as filepath.Abs does: a bulk capture names thousands.
func absPaths(ps []string) ([]string, error) {
	out := make([]string, len(ps))
	wd := ""
	for i, p := range ps {
		// A ".." is left for the store, which steps back from where a
		// link leads, as the kernel does, not from the link's folder.
		dots := strings.Contains(p, "..")
		if filepath.IsAbs(p) {
			if !dots {
				p = filepath.Clean(p)
			}
			out[i] = p
			continue
		}
		if wd == "" {
			var err error
			if wd, err = os.Getwd(); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
		}
		if dots {
			out[i] = wd + string(filepath.Separator) + p
		} else {
			out[i] = filepath.Join(wd, p)
		}
	}
	return out, nil
}

// Argument checks that report a usage error (exit 2) naming what is wanted.

func noArgs(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usageErrorf("%s takes no arguments%s", cmd.Name(), what)
		}
		return nil
	}
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s needs %s", cmd.Name(), what)
		}
		return nil
	}
}

func minArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageErrorf("%s needs %s", cmd.Name(), what)
		}
		return nil
	}
}

func maxArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return usageErrorf("%s takes %s, not %d arguments", cmd.Name(), what, len(args))
		}
		return nil
	}
}

// parseSize reads "8388608", "8MiB", "8M", "512k".
func parseSize(s string) (int64, error) {
	mult := int64(1)
	low := strings.ToLower(strings.TrimSpace(s))
	for _, u := range []struct {
		suf string
		m   int64
	}{{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10}, {"gb", 1e9}, {"mb", 1e6}, {"kb", 1e3}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}, {"b", 1}} {
		if strings.HasSuffix(low, u.suf) {
			low, mult = strings.TrimSuffix(low, u.suf), u.m
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(low), 10, 64)
	if err != nil || n <= 0 {
		if errors.Is(err, strconv.ErrRange) {
			return 0, errors.New("too large")
		}
		return 0, errors.New("not a size")
	}
	if n > math.MaxInt64/mult {
		return 0, errors.New("too large")
	}
	return n * mult, nil
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

func isTerminal(f *os.File) bool { return term.IsTerminal(f.Fd()) }

// report prints err for a user and returns the exit code it calls for.
// cmd is the command that ran (nil when none was found), for the pointer
// to its help.
func report(cmd *cobra.Command, err error) int {
	if err == nil {
		return exitOK
	}
	var code exitCodeError
	if errors.As(err, &code) {
		return int(code)
	}
	msg := err.Error()
	// The sentinel at the end of a wrapped error repeats what the sentence
	// before it already said.
	for _, s := range []error{errUsage, store.ErrNoStore, store.ErrRewound, store.ErrNewerTurn} {
		msg = strings.TrimSuffix(msg, ": "+s.Error())
	}
	msg = strings.ReplaceAll(msg, "store: ", "")
	fmt.Fprintln(os.Stderr, "ckpt: "+escLines(msg))
	if errors.Is(err, errUsage) {
		help := "ckpt --help"
		if cmd != nil && cmd.HasParent() {
			help = cmd.CommandPath() + " --help"
		}
		fmt.Fprintf(os.Stderr, "run `%s` for usage\n", help)
		return exitUsage
	}
	return exitError
}
