package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/agent"
	"github.com/ckpt-dev/ckpt/agent/setup"
	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newDoctorCmd) }

func newDoctorCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor [AGENT...]",
		Short: "Say why an agent's edits would not be captured",
		Long: `doctor checks, for each agent (or those named): whether ckpt's hooks are
installed in the project and run this binary, whether Codex has approved them
and trusts the project, whether Gemini CLI trusts the folder, whether the
agent's version is one ckpt's harness ran, when a hook last ran here, and the
errors the hooks logged.

It exits 1 when capture would not happen — for a named agent, or, with none
named, for an installed agent or because no agent is installed — and spells
out the fix.`,
		Example: `ckpt doctor
ckpt doctor codex
ckpt doctor --json`,
		ValidArgs: agent.Agents(),
		RunE: func(_ *cobra.Command, args []string) error {
			for _, a := range args {
				if !agent.Known(a) {
					return usageErrorf("unknown agent %q (want %s)", a, strings.Join(agent.Agents(), ", "))
				}
			}
			root, err := g.projectRoot()
			if err != nil {
				return err
			}
			exe, err := ckptPath()
			if err != nil {
				return fmt.Errorf("doctor: find the ckpt binary: %w", err)
			}
			return runDoctor(root, hookExe(exe), args, asJSON, agentVersion)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the findings as JSON")
	return cmd
}

func runDoctor(root, exe string, names []string, asJSON bool, version func(string) (string, error)) error {
	named := len(names) > 0
	// The first to open the store says what it finished or gave back,
	// and what it could not give back is still open.
	var told []string
	var left []store.LeftOpen
	var leftErr error
	var openErr error // why what is left open is not known, for --json
	if s, err := store.Open(root, store.Options{Notify: func(msg string) { told = append(told, msg) }}); err == nil {
		left, leftErr = s.LeftOpen()
		openErr = leftErr
		s.Close()
	} else if !errors.Is(err, store.ErrNoStore) {
		openErr = err
	}
	if !named {
		names = agent.Agents()
	}
	// One agent at a time would wait on each agent's --version in turn
	// (Node-based ones take seconds to start).
	ds := make([]*setup.Diagnosis, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() {
			ds[i], errs[i] = setup.Diagnose(n, setup.DoctorOptions{Root: root, Exe: exe, Version: version, SameBuild: sameBuild})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	failed, installed := false, 0
	for _, d := range ds {
		if d.Installed {
			installed++
		}
		if !d.Capture && (named || d.Installed) {
			failed = true
		}
	}
	if installed == 0 {
		failed = true
	}
	if asJSON {
		if openErr != nil {
			fmt.Fprintln(os.Stderr, "ckpt: "+escLines(openErr.Error()))
		}
		if err := printJSON(doctorJSONOf(root, ds, left, openErr == nil)); err != nil {
			return err
		}
	} else {
		printDoctor(ds, named)
		printBudget(root, told, left, leftErr)
		printWatcher(root)
	}
	if failed {
		if !asJSON && installed == 0 {
			fmt.Printf("no agent has ckpt's hooks in %s: run `ckpt install AGENT` (%s)\n", esc(root), strings.Join(agent.Agents(), ", "))
		}
		return exitWith(exitError)
	}
	return nil
}

func printDoctor(ds []*setup.Diagnosis, named bool) {
	for i, d := range ds {
		if i > 0 {
			fmt.Println()
		}
		if !d.Installed && !named {
			fmt.Printf("%s: not installed (ckpt install %s)\n", d.Agent, d.Agent)
			continue
		}
		verdict := "edits are captured"
		if !d.Capture {
			verdict = "edits would NOT be captured"
		}
		fmt.Printf("%s: %s\n", d.Agent, verdict)
		for _, c := range d.Checks {
			mark := "ok  "
			switch {
			case c.Unchecked:
				mark = "--  " // not checked: neither ok nor failed
			case !c.OK && c.Blocking:
				mark = "FAIL"
			case !c.OK:
				mark = "warn"
			}
			fmt.Printf("  %s %-10s %s\n", mark, c.Name, esc(c.Detail))
			if c.Fix != "" && (!c.OK || c.Name == "binary") {
				fmt.Printf("       %-10s fix: %s\n", "", esc(c.Fix))
			}
		}
	}
}

// agentExe is each agent's command on $PATH.
var agentExe = map[string]string{"claude": "claude", "codex": "codex", "gemini": "gemini", "opencode": "opencode",
	"pi": "pi", "copilot": "copilot", "cline": "cline", "qwen": "qwen"}

// agentVersion runs the agent's `--version` and picks the version number
// out of what it prints.
func agentVersion(name string) (string, error) {
	path, err := exec.LookPath(agentExe[name])
	if err != nil {
		return "", fmt.Errorf("%s is not on $PATH; its version is not checked", agentExe[name])
	}
	// Node-based agents take seconds to start, many more on a busy machine.
	const limit = 60 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Stdin = nil
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	// pi prints its version on standard error.
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return "", fmt.Errorf("%s --version did not answer within %s; its version is not checked", path, limit)
	}
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", path, err)
	}
	if v := versionIn(string(out)); v != "" {
		return v, nil
	}
	return "", fmt.Errorf("%s --version printed no version", path)
}

// versionNumber is a version as agents print it: numbers joined by dots,
// perhaps with a suffix ("1.0.102", "0.24.4-preview").
var versionNumber = regexp.MustCompile(`^v?([0-9]+(\.[0-9]+)+\S*?)\.?$`)

// versionIn picks the first version number out of what --version printed:
// not a figure in a line before it (Copilot CLI's first run says
// "Package extraction took 5195ms" first).
func versionIn(out string) string {
	for _, w := range strings.Fields(out) {
		if m := versionNumber.FindStringSubmatch(w); m != nil {
			return m[1]
		}
	}
	return ""
}

// doctorJSON is an agent's diagnosis as doctor --json writes it, with
// the folders and files ckpt left open to their owner in the project:
// the same in every agent's object.
type doctorJSON struct {
	*setup.Diagnosis
	LeftOpen []leftOpenJSON `json:"left_open"`
}

// leftOpenJSON is a folder or file ckpt opened to its owner and could not
// give its mode back yet (store.LeftOpen).
type leftOpenJSON struct {
	Path      string `json:"path"` // "." for the project root
	PathB64   string `json:"path_b64,omitempty"`
	Kind      string `json:"kind"` // "dir" or "file"
	Mode      string `json:"mode"` // the permission bits it gets back, in octal: "555"
	Op        string `json:"op"`   // the operation that opened a folder; "" for a file
	Tries     int    `json:"tries"`
	TriesLeft int    `json:"tries_left"`
	Fix       string `json:"fix"`
}

// doctorJSONOf is ds as doctor --json writes them, each with left, or
// with null where what is left open is not known.
func doctorJSONOf(root string, ds []*setup.Diagnosis, left []store.LeftOpen, known bool) []doctorJSON {
	var open []leftOpenJSON
	if known {
		open = make([]leftOpenJSON, len(left))
	}
	for i, l := range left {
		kind := "dir"
		if l.File {
			kind = "file"
		}
		open[i] = leftOpenJSON{Path: l.Path, PathB64: nameB64(l.Path), Kind: kind, Mode: fmt.Sprintf("%03o", l.Mode),
			Op: l.Op, Tries: l.Tries, TriesLeft: l.Left, Fix: leftOpenFix(root, l)}
	}
	out := make([]doctorJSON, len(ds))
	for i, d := range ds {
		out[i] = doctorJSON{Diagnosis: d, LeftOpen: open}
	}
	return out
}

// printBudget says what opening the store finished or gave back (told),
// what is still open to its owner (left, or the error reading it), how
// big the store is against the retention budget, and how its blobs are
// kept: nothing when the root has no store.
func printBudget(root string, told []string, left []store.LeftOpen, leftErr error) {
	s, err := store.Open(root, store.Options{})
	if err != nil {
		return
	}
	defer s.Close()
	fmt.Println()
	for _, m := range told {
		fmt.Printf("store: %s\n", esc(m))
	}
	printLeftOpen(root, left, leftErr)
	b, err := loadBudget(root)
	if err != nil {
		fmt.Printf("store: retention budget unreadable, nothing is pruned by itself: %s\n", esc(err.Error()))
	}
	size, _ := s.DiskUsage()
	packs, loose := s.PackCounts()
	of := ""
	if b.MaxSize > 0 {
		of = fmt.Sprintf(" of %s (%d%%)", present.Bytes(b.MaxSize), size*100/b.MaxSize)
	}
	from := "the default budget"
	if b.From != "" {
		from = store.ConfigFile
	}
	fmt.Printf("store: %s on disk%s; budget: %s (%s); %s, %s\n", present.Bytes(size), of, b, from,
		present.Count(packs, "pack"), present.Count(loose, "loose blob"))
}

// printLeftOpen names the folders and files ckpt opened to their owner
// and could not give their modes back yet, with those modes and what the
// user can do.
func printLeftOpen(root string, left []store.LeftOpen, err error) {
	if err != nil {
		fmt.Printf("store: %s\n", esc(err.Error()))
		return
	}
	for _, l := range left {
		what, by := "folder "+esc(l.Path), ""
		switch {
		case l.File:
			what = "file " + esc(l.Path)
		case l.Path == ".":
			what = "project root"
		}
		if l.Op != "" {
			by = " by " + l.Op
		}
		fmt.Printf("store: the %s was opened to its owner%s and is still open: it gets its mode %03o back", what, by, l.Mode)
		if l.Tries > 0 {
			fmt.Printf(" (%s could not give it back; %d more will try)", present.Count(l.Tries, "command"), l.Left)
		}
		fmt.Println()
		fmt.Printf("       fix: %s\n", esc(leftOpenFix(root, l)))
	}
}

// leftOpenFix is what the user can do about l.
func leftOpenFix(root string, l store.LeftOpen) string {
	return fmt.Sprintf("make it changeable again (an immutable flag, say) and run any ckpt command, which gives it back, or give it its mode yourself: chmod %03o %s",
		l.Mode, setup.ShellQuote(filepath.Join(root, l.Path)))
}
