// Package cli is ckpt's command line: one cmd_<verb>.go for each command,
// with its tests beside it. The root's main.go runs it.
//
// `ckpt` opens a terminal UI to browse the turns and rewind them; the
// subcommands do the same from scripts and agent hooks. CONTRACT.md lists
// the commands, flags, JSON and exit codes; the store package documents the
// format on disk.
package cli

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"

	"charm.land/fang/v2"
	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/store"
)

// version is set at link time with -ldflags "-X MODULE/cli.version=…"; when
// it is not, the module version or VCS revision the binary was built from is
// used.
var version string

// Run parses args, runs the command they name and returns the exit code;
// only main exits.
func Run(args []string) int {
	args = commandFirst(args)
	// Every agent tool call starts a hook, so a hook builds only the
	// commands it needs: the root and hook itself.
	hook := newRoot(newHookCmd)
	hook.SetArgs(args)
	if cmd, _, _ := hook.Find(args); cmd != nil && cmd.Name() == "hook" && cmd.Parent() == hook && !asksHelp(args) {
		return runHook(hook, args)
	}
	root := newRootCmd()
	root.SetArgs(args)
	return report(executed(root, args), execute(root))
}

// commandFirst moves the command's name in front of the flags typed
// before it, so `ckpt --json log` is `ckpt log --json`: cobra finds a
// command past the root's own flags (--root DIR), but takes the word after
// any other flag for that flag's value and finds no command. A word naming
// a command is the command when the word before it is no flag waiting for
// its value: not a flag, a flag with its `=value`, or one of the
// command's own that takes none (`-n 2 log` and `--dry-run rewind 1` move
// the command; in `--label log write …` the command is write).
func commandFirst(args []string) []string {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") {
		return args
	}
	root := newRootCmd()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return args
		}
		if isFlag(a) {
			if known, value := flagOf(root, true, a); known && value {
				i++ // --root DIR
			}
			continue
		}
		sub := subcommand(root, a)
		if sub == nil || !flagDone(sub, args[i-1]) {
			continue // the value of a flag before it
		}
		return slices.Concat([]string{a}, args[:i], args[i+1:])
	}
	return args
}

func isFlag(word string) bool { return strings.HasPrefix(word, "-") && word != "-" }

// flagDone reports whether word, just before cmd's name, leaves nothing
// waiting for a value: it is no flag, has its value, or is a flag of
// cmd's that takes none.
func flagDone(cmd *cobra.Command, word string) bool {
	if !isFlag(word) || strings.Contains(word, "=") || word == "-h" || word == "--help" {
		return true
	}
	known, value := flagOf(cmd, false, word)
	return known && !value
}

// subcommand is root's command named (or aliased) name, nil if none.
func subcommand(root *cobra.Command, name string) *cobra.Command {
	for _, c := range root.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return c
		}
	}
	return nil
}

// flagOf looks word (`--root`, `-n`, `--root=DIR`) up in cmd's flags (the
// root's persistent ones, with persistent): whether it is one, and whether
// it waits for its value in the next word.
func flagOf(cmd *cobra.Command, persistent bool, word string) (known, value bool) {
	fs := cmd.Flags()
	if persistent {
		fs = cmd.PersistentFlags()
	}
	name, hasValue := word, false
	if i := strings.IndexByte(word, '='); i >= 0 {
		name, hasValue = word[:i], true
	}
	switch {
	case strings.HasPrefix(name, "--"):
		f := fs.Lookup(name[2:])
		return f != nil, f != nil && !hasValue && f.NoOptDefVal == ""
	case len(name) == 2:
		f := fs.ShorthandLookup(name[1:])
		return f != nil, f != nil && !hasValue && f.NoOptDefVal == ""
	}
	return false, false
}

// asksHelp reports whether args ask for help, which fang styles.
func asksHelp(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "--help" })
}

// execute runs the command tree through fang, which styles help and adds
// the man page; errors are left to the caller, which picks the exit code.
func execute(root *cobra.Command) error {
	return fang.Execute(context.Background(), root,
		fang.WithVersion(versionString()),
		fang.WithoutManpage(), // cmd_man.go: listed, and its mistakes are usage errors
		fang.WithErrorHandler(func(io.Writer, fang.Styles, error) {}),
	)
}

// executed is the command args name, for pointing a usage error at its help.
func executed(root *cobra.Command, args []string) *cobra.Command {
	cmd, _, err := root.Find(args)
	if err != nil {
		return nil
	}
	return cmd
}

// newRootCmd builds the whole command tree: `ckpt` alone opens the UI.
func newRootCmd() *cobra.Command { return newRoot(commandMakers...) }

// newRoot builds the root command with the subcommands makers build.
func newRoot(makers ...func(*globals) *cobra.Command) *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:   "ckpt",
		Short: "Make an AI coding agent's work undoable, turn by turn",
		Long: `ckpt keeps a file's bytes before an AI coding agent writes it and records
what the agent wrote, turn by turn. ckpt alone opens the terminal UI on the
project's store; the commands do the same from scripts and agent hooks.

The project root is --root DIR or $CKPT_ROOT; otherwise the first folder up
from the working directory holding .osfoundry/checkpoints or .git.

Exit codes: 0 done, 1 error, 2 usage, 3 done in part, 4 plan shown and
nothing changed. ckpt man writes the manual page; ckpt completion SHELL a
completion script for bash, zsh or fish.`,
		Example: `# open the UI on the project you are in
ckpt
# list turns and rewind one
ckpt log
ckpt rewind 3
# a sample project to try it on
ckpt demo`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			hint := ""
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				hint = fmt.Sprintf("; did you mean %q?", s[0])
			}
			return usageErrorf("unknown command %q%s", args[0], hint)
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runUI(g)
		},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SuggestionsMinimumDistance = 2
	root.PersistentFlags().StringVar(&g.root, "root", "", "the project root (default: $CKPT_ROOT, else found from the working directory)")
	_ = root.MarkPersistentFlagDirname("root")
	root.SetVersionTemplate("ckpt {{.Version}}\nstore format: " + store.FormatName + "\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return fmt.Errorf("%w: %w", err, errUsage)
	})
	for _, mk := range makers {
		root.AddCommand(mk(g))
	}
	if len(makers) > 1 {
		initCompletion(root)
	}
	return root
}

// versionString is the link-time version, else the module version and VCS
// revision from the build info.
func versionString() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	if len(rev) >= 12 {
		v += " (" + rev[:12] + dirty + ")"
	}
	return v
}
