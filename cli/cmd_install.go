package cli

import (
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/agent"
	"github.com/ckpt-dev/ckpt/agent/setup"
)

func init() { register(newInstallCmd) }

func newInstallCmd(g *globals) *cobra.Command {
	var dry, approve, firstCopy, noFirstCopy bool
	cmd := &cobra.Command{
		Use:   "install AGENT",
		Short: "Add ckpt's hooks to an agent's project config",
		Long: `install adds ckpt's hooks to AGENT's project config, keeping what is there
(Claude Code: .claude/settings.local.json). AGENT is one of ` + strings.Join(agent.Agents(), ", ") + `.
The hooks run this very binary, so build it with go build or go install
first; a temporary go run build would vanish.

Codex runs a project's hooks only once the project is trusted and each hook
is approved in its /hooks screen; install says so. --approve (codex only)
shows, then records, both in $CODEX_HOME/config.toml. Re-installing with a
moved binary or a changed timeout un-approves the hooks in Codex.

Then, when no shell sweep has kept a copy of the folder yet, install offers
(at a terminal) to take that first copy right away, with a progress bar, so
the agent's first shell command does not wait for it; Ctrl-C stops it with
nothing half-written, and the first command goes on from there.
--first-copy takes it without asking, --no-first-copy never.`,
		Example: `ckpt install claude
ckpt install gemini --dry-run
ckpt install codex --approve`,
		Args:      exactArgs(1, "one AGENT"),
		ValidArgs: agent.Agents(),
		RunE: func(cmd *cobra.Command, args []string) error {
			if approve && args[0] != "codex" {
				return usageErrorf("--approve is for codex only")
			}
			if firstCopy && noFirstCopy {
				return usageErrorf("--first-copy and --no-first-copy: choose one")
			}
			if err := runConfig(g, "install", args[0], dry, approve); err != nil || dry {
				return err
			}
			root, err := g.projectRoot()
			if err != nil {
				return err
			}
			choice := firstCopyAsk
			switch {
			case firstCopy:
				choice = firstCopyYes
			case noFirstCopy:
				choice = firstCopyNo
			}
			return offerFirstCopy(root, args[0], choice)
		},
	}
	cmd.Flags().BoolVar(&firstCopy, "first-copy", false, "take the first copy of the folder now, without asking (progress on a terminal)")
	cmd.Flags().BoolVar(&noFirstCopy, "no-first-copy", false, "leave the first copy of the folder to the agent's first shell command")
	cmd.Flags().BoolVar(&dry, "dry-run", false, "show the change and write nothing (exit 4)")
	cmd.Flags().BoolVar(&approve, "approve", false, "codex: also record the project's trust and the hooks' approvals in $CODEX_HOME/config.toml, after showing them")
	return cmd
}

// runConfig installs or uninstalls an agent's hooks.
func runConfig(g *globals, verb, name string, dry, approve bool) error {
	if !agent.Known(name) {
		return usageErrorf("unknown agent %q (want %s)", name, strings.Join(agent.Agents(), ", "))
	}
	exe, err := ckptPath()
	if err != nil {
		return fmt.Errorf("%s: find the ckpt binary: %w", verb, err)
	}
	if verb == "install" {
		if why := vanishing(exe); why != "" {
			fmt.Fprintf(os.Stderr, "ckpt install: warning: %s %s; the hooks will fail once it is deleted (%s, and install again)\n", exe, why, lastingInstall(why))
		}
	}
	root, err := g.projectRoot()
	if err != nil {
		return err
	}
	exe = hookExe(exe)
	opt := setup.InstallOptions{Root: root, Exe: exe, DryRun: dry}
	var c *setup.Change
	if verb == "install" {
		c, err = setup.Install(name, opt)
	} else {
		c, err = setup.Uninstall(name, opt)
	}
	if err != nil {
		if verb == "uninstall" && setup.IsNotInstalled(err) && !dry {
			// The hooks went by hand: the lines install added still go.
			if xerr := excludeLines(root, verb, name); xerr != nil {
				err = errors.Join(err, xerr)
			}
		}
		return fmt.Errorf("%s %s: %w", verb, name, err)
	}
	rel, _ := filepath.Rel(opt.Root, c.Path)
	rel = filepath.ToSlash(rel)
	if len(c.More) > 0 {
		// Cline: one file per event, in one folder.
		rel = fmt.Sprintf("%s/ (%d files)", filepath.ToSlash(filepath.Dir(rel)), len(c.More)+1)
	}
	switch {
	case !c.Changed():
		fmt.Printf("ckpt %s %s: %s already holds ckpt's hooks; nothing to do\n", verb, name, rel)
	case dry:
		fmt.Print(c.Diff(rel))
		if !approve {
			return exitWith(exitPlanShown)
		}
	case verb == "install" && len(c.Removed) > 0:
		fmt.Printf("ckpt: installed %s hooks in %s (running %s, in place of %s)\n", name, rel, exe, strings.Join(c.Removed, ", "))
	case verb == "install":
		fmt.Printf("ckpt: installed %s hooks in %s (running %s)\n", name, rel, exe)
	case !c.Exists:
		fmt.Printf("ckpt: uninstalled %s hooks%s: removed %s, which install had created\n", name, running(c.Removed), rel)
	default:
		fmt.Printf("ckpt: uninstalled %s hooks%s from %s\n", name, running(c.Removed), rel)
	}
	if !dry {
		if err := excludeLines(root, verb, name); err != nil {
			return err
		}
	}
	if verb == "install" && name == "copilot" {
		fmt.Println(`ckpt: Copilot CLI in -p mode skips repo hooks silently unless the folder is trusted for it: run it with --trust-folder, COPILOT_ALLOW_ALL=true or GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true (interactive copilot asks to trust the folder). VS Code's Copilot agent reads the same file.`)
	}
	if verb == "install" && name == "codex" {
		if err := codexApproval(root, exe, c, approve, dry); err != nil {
			return err
		}
	}
	if verb == "install" && !dry {
		fmt.Printf("next: open `ckpt` beside %s in %s: each prompt's turn shows up there as the agent works\n", agentTitle(name), esc(root))
	}
	return nil
}

// excludeLines keeps the files install wrote that name this machine's
// binary out of git (see setup.Exclude), and says so.
func excludeLines(root, verb, name string) error {
	x, err := setup.Exclude(root, name, verb == "install")
	if err != nil {
		return fmt.Errorf("%s %s: %w", verb, name, err)
	}
	if len(x.Lines) == 0 {
		return nil
	}
	rel, _ := filepath.Rel(root, x.Path)
	if verb == "install" {
		fmt.Printf("ckpt: added %s to %s, so git never sees it (it names this machine's ckpt)\n", strings.Join(x.Lines, ", "), filepath.ToSlash(rel))
	} else {
		fmt.Printf("ckpt: removed %s from %s, as install had added it\n", strings.Join(x.Lines, ", "), filepath.ToSlash(rel))
	}
	return nil
}

// agentTitle is the agent's name as its users know it.
func agentTitle(name string) string {
	if t, ok := map[string]string{"claude": "Claude Code", "gemini": "Gemini CLI", "codex": "Codex", "opencode": "opencode",
		"pi": "pi", "copilot": "Copilot", "cline": "Cline", "qwen": "Qwen Code"}[name]; ok {
		return t
	}
	return name
}

// running names the binaries the removed hooks ran.
func running(exes []string) string {
	if len(exes) == 0 {
		return ""
	}
	return " (running " + strings.Join(exes, ", ") + ")"
}

// ckptPath is the absolute path the agents' configs run: this binary,
// symlinks resolved — unless the `ckpt` found on $PATH is a link to this
// very binary, as package managers install it (/opt/homebrew/bin/ckpt →
// …/Cellar/ckpt/1.2/bin/ckpt); then that link, which survives upgrades.
func ckptPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	exe, err = filepath.Abs(exe)
	if err != nil {
		return "", err
	}
	if p, err := exec.LookPath("ckpt"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			if r, err := filepath.EvalSymlinks(abs); err == nil && r == exe {
				return abs, nil
			}
		}
	}
	return exe, nil
}

// hookExe is the program the agents' hooks run: ckpt-hook where it stands
// next to exe (go install . ./cmd/ckpt-hook puts it there) and was built
// from the same version, which starts sooner than the whole ckpt (see
// README, Speed); else exe itself, as `exe hook`.
func hookExe(exe string) string {
	small := filepath.Join(filepath.Dir(exe), "ckpt-hook")
	if fi, err := os.Stat(small); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 && sameBuild(small) {
		return small
	}
	return exe
}

// sameBuild reports whether the program at p was built from the module
// version and source revision the running one was: a ckpt-hook left from
// an earlier install beside an upgraded ckpt is not. True when either
// cannot say (no build information, no revision recorded).
func sameBuild(p string) bool {
	self, ok := debug.ReadBuildInfo()
	other, err := buildinfo.ReadFile(p)
	if !ok || err != nil {
		return true
	}
	key := func(bi *debug.BuildInfo) string {
		k := bi.Main.Path + " " + bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				k += " " + s.Value
			}
		}
		return k
	}
	return key(self) == key(other)
}

// vanishing says why exe will not last, or "" where it will: a temporary
// `go run` build, or a binary in npx's cache, which npm clears.
func vanishing(exe string) string {
	switch {
	case isTempBuild(exe):
		return "looks like a temporary `go run` build"
	case isNpxCache(exe):
		return "runs from npx's cache"
	}
	return ""
}

// lastingInstall says how to get a binary that stays, for the reason
// vanishing gave.
func lastingInstall(why string) string {
	if strings.Contains(why, "npx") {
		return "install ckpt with `npm install -g @ckpt-dev/ckpt`"
	}
	return "build ckpt with `go build` or `go install`"
}

// isNpxCache reports a binary npx installed into its cache
// (…/_npx/HASH/node_modules/…), which `npm cache clean` or a later npx
// run may delete.
func isNpxCache(exe string) bool {
	sep := string(filepath.Separator)
	return strings.Contains(exe, sep+"_npx"+sep) && strings.Contains(exe, sep+"node_modules"+sep)
}

// isTempBuild reports a binary `go run` or `go test` built in a temporary
// folder, which disappears when that command ends.
func isTempBuild(exe string) bool {
	tmp := os.TempDir()
	if r, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = r
	}
	return strings.Contains(exe, string(filepath.Separator)+"go-build") &&
		strings.HasPrefix(exe, tmp+string(filepath.Separator))
}
