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
	"github.com/spf13/pflag"

	"github.com/ckpt-dev/ckpt/store"
)

// version is set at link time with -ldflags "-X MODULE/cli.version=…"; when
// it is not, the module version or VCS revision the binary was built from is
// used.
var version string

// Run parses args, runs the command they name and returns the exit code;
// only main exits.
func Run(args []string) int {
	// Every agent tool call starts a hook, so a hook builds only the
	// commands it needs: the root and hook itself.
	hook := withCommandFlags(newRoot(newHookCmd))
	hook.SetArgs(args)
	if runsHook(hook, args) {
		return runHook(hook, args)
	}
	root := newRootCmd()
	root.SetArgs(args)
	if runsHook(root, args) {
		// Another command's flag before hook (ckpt --json hook claude):
		// only the whole tree knows it takes no value. Still silent.
		return runHook(root, args)
	}
	return report(executed(root, args), execute(root))
}

// runsHook reports whether args name root's hook command, not asking for
// its help.
func runsHook(root *cobra.Command, args []string) bool {
	cmd, _, _ := root.Find(args)
	return cmd != nil && cmd.Name() == "hook" && cmd.Parent() == root && !asksHelp(args)
}

// stepOverValuelessFlags lets a command's own flags stand before its name
// (`ckpt --json log`, `ckpt --dry-run rewind 1`): cobra finds the command
// by stepping over the flags before it with the root's flag set, and takes
// the word after a flag it does not know for that flag's value (so
// `ckpt -n 2 log` and `ckpt --label log write …` already find their
// command). What it must be told is which flags take no value: the root
// gets a hidden flag of its own for each one a command has. The command
// still parses every flag with its own set, so one of another command's
// is an unknown flag there; given to ckpt alone, runUIFlags refuses it.
func stepOverValuelessFlags(root *cobra.Command) {
	root.InitDefaultHelpFlag() // -h before the command asks for its help
	own := root.Flags()
	for _, c := range root.Commands() {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.NoOptDefVal == "" || own.Lookup(f.Name) != nil {
				return
			}
			short := f.Shorthand
			if short != "" && own.ShorthandLookup(short) != nil {
				short = ""
			}
			mirror := own.VarPF(newBoolValue(), f.Name, short, "")
			mirror.NoOptDefVal = f.NoOptDefVal
			mirror.Hidden = true
			mirror.Annotations = map[string][]string{commandFlag: nil}
		})
	}
}

// commandFlag marks the root's stand-ins for its commands' flags.
const commandFlag = "ckpt_command_flag"

// boolValue is a stand-in flag's value: it takes whatever it is given.
type boolValue struct{ s string }

func newBoolValue() *boolValue          { return &boolValue{s: "false"} }
func (b *boolValue) String() string     { return b.s }
func (b *boolValue) Set(s string) error { b.s = s; return nil }
func (b *boolValue) Type() string       { return "bool" }
func (b *boolValue) IsBoolFlag() bool   { return true }

// runUIFlags refuses, on ckpt alone, a flag that belongs to a command.
func runUIFlags(root *cobra.Command) error {
	var err error
	root.Flags().Visit(func(f *pflag.Flag) {
		if _, ok := f.Annotations[commandFlag]; ok && err == nil {
			err = usageErrorf("--%s is a flag of %s, not of ckpt alone", f.Name, commandsWith(root, f.Name))
		}
	})
	return err
}

// commandsWith names the commands that have the flag name.
func commandsWith(root *cobra.Command, name string) string {
	var with []string
	for _, c := range root.Commands() {
		if c.Flags().Lookup(name) != nil {
			with = append(with, c.Name())
		}
	}
	return strings.Join(with, ", ")
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
func newRootCmd() *cobra.Command { return withCommandFlags(newRoot(commandMakers...)) }

// withCommandFlags is root stepping over its commands' flags (below).
// The manual page is made from a root without them: they are no flags
// of ckpt alone.
func withCommandFlags(root *cobra.Command) *cobra.Command {
	stepOverValuelessFlags(root)
	return root
}

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
				return runUIFlags(cmd)
			}
			if c := subcommand(cmd, args[0]); c != nil {
				// Only `ckpt -- log` gets here: the command came after --.
				return usageErrorf("%q after -- is no command; -- ends the flags, so put the command before it", args[0])
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
