package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"ckpt/agent"
	"ckpt/store"

	"golang.org/x/sys/unix"
)

// runHook is `ckpt hook AGENT [--root DIR]`: the agent's hook JSON on
// standard input. It always exits 0 and writes nothing on standard error,
// usage errors included: an agent may treat any other exit code or any
// stderr text as a reason to block its tool. Errors go to the store's log.
func runHook(args []string) int {
	// Nothing this process does may reach the agent through stderr, not
	// even the runtime's own crash report (written to fd 2 directly):
	// Codex and Gemini CLI read stderr text as a reason to block the tool.
	if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		_ = unix.Dup2(int(null.Fd()), 2)
		os.Stderr = null
	}
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	root := fs.String("root", "", "")
	name, err := parseAgentArgs(fs, args)
	if err != nil {
		// Gemini CLI reads stdout as the hook's answer even then.
		for _, a := range args {
			if a == "gemini" {
				fmt.Println("{}")
			}
		}
		return 0
	}
	_ = agent.Hook(name, os.Stdin, os.Stdout, agent.HookOptions{Root: *root})
	return 0
}

// runInstall is `ckpt install AGENT [--dry-run] [--root DIR]`.
func runInstall(args []string) int { return runConfig("install", args) }

// runUninstall is `ckpt uninstall AGENT [--dry-run] [--root DIR]`.
func runUninstall(args []string) int { return runConfig("uninstall", args) }

func runConfig(cmd string, args []string) int {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	root := fs.String("root", "", "the project root")
	dry := fs.Bool("dry-run", false, "show the change and write nothing")
	approve := fs.Bool("approve", false, "codex: also record the approvals of ckpt's hooks in $CODEX_HOME/config.toml")
	name, err := parseAgentArgs(fs, args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ckpt %s: %v\nusage: ckpt %s %s [--dry-run] [--root DIR]\n       ckpt install codex --approve [--dry-run]\n", cmd, err, cmd, strings.Join(agent.Agents(), "|"))
		return 2
	}
	if *approve && (cmd != "install" || name != "codex") {
		fmt.Fprintf(os.Stderr, "ckpt %s: --approve is for `ckpt install codex` only\n", cmd)
		return 2
	}
	exe, err := ckptPath()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ckpt %s: find the ckpt binary: %v\n", cmd, err)
		return 1
	}
	if cmd == "install" && isTempBuild(exe) {
		fmt.Fprintf(os.Stderr, "ckpt install: warning: %s looks like a temporary `go run` build; the hooks will fail once it is deleted (build ckpt with `go build` or `go install` and install again)\n", exe)
	}
	opt := agent.InstallOptions{Root: projectRoot(*root), Exe: exe, DryRun: *dry}
	var c *agent.Change
	if cmd == "install" {
		c, err = agent.Install(name, opt)
	} else {
		c, err = agent.Uninstall(name, opt)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "ckpt %s %s: %v\n", cmd, name, err)
		return 1
	}
	rel, _ := filepath.Rel(opt.Root, c.Path)
	rel = filepath.ToSlash(rel)
	switch {
	case !c.Changed():
		fmt.Printf("ckpt %s %s: %s already holds ckpt's hooks; nothing to do\n", cmd, name, rel)
	case *dry:
		fmt.Print(c.Diff(rel))
		if !*approve {
			return 4
		}
	case cmd == "install":
		fmt.Printf("ckpt: installed %s hooks in %s (running %s)\n", name, rel, exe)
	case !c.Exists:
		fmt.Printf("ckpt: uninstalled %s hooks: removed %s, which install had created\n", name, rel)
	default:
		fmt.Printf("ckpt: uninstalled %s hooks from %s\n", name, rel)
	}
	if cmd == "install" && name == "codex" {
		return codexApproval(opt.Root, c, *approve, *dry)
	}
	return 0
}

// parseAgentArgs parses flags placed before or after the one AGENT argument.
func parseAgentArgs(fs *flag.FlagSet, args []string) (string, error) {
	var names []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", err
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case len(names) == 0:
		return "", errors.New("name an agent")
	case len(names) > 1:
		return "", fmt.Errorf("one agent at a time, not %q", names)
	case !agent.Known(names[0]):
		return "", fmt.Errorf("unknown agent %q (want %s)", names[0], strings.Join(agent.Agents(), ", "))
	}
	return names[0], nil
}

// projectRoot is --root, else $CKPT_ROOT, else the root found from the
// working directory.
func projectRoot(flagRoot string) string {
	r := flagRoot
	if r == "" {
		r = os.Getenv("CKPT_ROOT")
	}
	if r != "" {
		if abs, err := filepath.Abs(r); err == nil {
			return abs
		}
		return r
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return store.FindRoot(wd)
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
