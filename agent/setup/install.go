package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/agent"
)

// installer adds ckpt's hooks to one agent's project config file and takes
// them out again.
type installer interface {
	// path is the config file, relative to the project root.
	path() string
	// add returns the file's content with ckpt's hooks for the binary at
	// exe; old is the current content (existed false: no file). Hooks an
	// earlier install wrote for another binary are made to run exe, in
	// place. It returns old itself when the hooks are there already.
	add(agent string, old []byte, existed bool, exe string) ([]byte, error)
	// remove returns the content without ckpt's hooks, whatever binary they
	// run, keep false when the file should be deleted (install created it),
	// or errNotInstalled.
	remove(agent string, old []byte, exe string) (content []byte, keep bool, err error)
	// exes lists, once each, the ckpt binaries that data (the file's
	// content) runs for agent's hooks: none when they are not in it. exe
	// is the binary asking (see isCkptHook).
	exes(agent string, data []byte, exe string) []string
}

// multiInstaller is an installer whose hooks live in several files (Cline:
// one executable per event). path, add, remove and exes are those of its
// first part; Install and Uninstall go through every part.
type multiInstaller interface {
	installer
	parts() []installer
}

// moder is an installer whose new files get a mode other than 0644 (an
// executable hook).
type moder interface{ mode() fs.FileMode }

// errNotInstalled means the config holds none of ckpt's hooks.
var errNotInstalled = errors.New("no ckpt hooks found")

// InstallOptions tunes Install and Uninstall.
type InstallOptions struct {
	// Root is the project root, absolute.
	Root string
	// Exe is the absolute path of the ckpt binary the hooks will run.
	Exe string
	// DryRun computes the change and writes nothing.
	DryRun bool
}

// Change is what Install or Uninstall did to an agent's config file, or
// would do under DryRun.
type Change struct {
	Path    string // the config file, absolute
	Old     []byte // its content before (nil when it did not exist)
	Existed bool
	New     []byte // its content after (nil when it is deleted)
	Exists  bool   // whether the file exists after
	Written bool   // false under DryRun, and when nothing changed
	// Removed lists the binaries whose hooks are gone from the file:
	// replaced by Install's (the binary moved), or taken out by Uninstall.
	Removed []string
	// More are the changes to the agent's further files, for an agent
	// whose hooks live in several (Cline), relative names in Rel.
	More []*Change
	Rel  string // the file, relative to the root, slash-separated
}

// readOld reads the file's content before into Old, setting Existed; a
// file that does not exist is no error.
func (c *Change) readOld() error {
	old, err := os.ReadFile(c.Path)
	switch {
	case err == nil:
		c.Old, c.Existed = old, true
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", c.Path, err)
	}
	return nil
}

// Changed reports whether the file's bytes (or existence) change, or
// those of any further file.
func (c *Change) Changed() bool {
	if c.Existed != c.Exists || !bytes.Equal(c.Old, c.New) {
		return true
	}
	for _, m := range c.More {
		if m.Changed() {
			return true
		}
	}
	return false
}

// Diff is the change as a unified diff, empty when nothing changes; the
// further files' changes follow, each under its own name.
func (c *Change) Diff(name string) string {
	d := c.diffOne(name)
	for _, m := range c.More {
		d += m.diffOne(m.Rel)
	}
	return d
}

func (c *Change) diffOne(name string) string {
	if c.Existed == c.Exists && bytes.Equal(c.Old, c.New) {
		return ""
	}
	from, to := "a/"+name, "b/"+name
	if !c.Existed {
		from = "/dev/null"
	}
	if !c.Exists {
		to = "/dev/null"
	}
	return unifiedDiff(from, to, string(c.Old), string(c.New))
}

// ConfigPath is the project config file install edits for agentName.
func ConfigPath(agentName string) (string, error) {
	inst := installers[agentName]
	if inst == nil {
		return "", fmt.Errorf("unknown agent %q (want %s)", agentName, strings.Join(agent.Agents(), ", "))
	}
	return inst.path(), nil
}

// Install adds ckpt's hooks for agentName to its project config under
// opt.Root, keeping everything already there. Installing twice is the same
// as once; installing after the binary moved makes the hooks an earlier
// install wrote run the new one, where they are (see isCkptHook). An
// unreadable or malformed config is an error naming the file, and nothing
// is written; so are comments, except in Gemini CLI's settings, which
// allow them (and trailing commas) and keep them through an install.
func Install(agentName string, opt InstallOptions) (*Change, error) {
	return edit(agentName, opt, true)
}

// Uninstall takes out exactly what Install put in: after Install then
// Uninstall the file is byte for byte as before (deleted if Install made
// it). ckpt's entries are recognised by their command (see isCkptHook),
// whatever binary they run.
func Uninstall(agentName string, opt InstallOptions) (*Change, error) {
	return edit(agentName, opt, false)
}

func edit(agentName string, opt InstallOptions, install bool) (*Change, error) {
	if _, err := ConfigPath(agentName); err != nil {
		return nil, err
	}
	inst := installers[agentName]
	m, ok := inst.(multiInstaller)
	if !ok {
		return editFile(agentName, inst, opt, install)
	}
	// Every part is worked out before any is written, so that a part
	// that refuses (a file of the user's in the way) leaves all as it was.
	dry := opt
	dry.DryRun = true
	var first *Change
	for pass := 0; pass < 2; pass++ {
		first = nil
		missing := 0
		for _, part := range m.parts() {
			o := dry
			if pass == 1 {
				o = opt
			}
			c, err := editFile(agentName, part, o, install)
			if !install && IsNotInstalled(err) {
				missing++
				c = &Change{Path: filepath.Join(opt.Root, filepath.FromSlash(part.path())), Rel: part.path()}
			} else if err != nil {
				return nil, err
			}
			if first == nil {
				first = c
			} else {
				first.More = append(first.More, c)
			}
			first.Removed = appendNew(first.Removed, c.Removed)
		}
		if missing == len(m.parts()) {
			return nil, fmt.Errorf("%s: %w", filepath.Join(opt.Root, filepath.FromSlash(filepath.Dir(m.path()))), errNotInstalled)
		}
		if opt.DryRun {
			break
		}
	}
	return first, nil
}

// appendNew appends the items of more not in list yet.
func appendNew(list, more []string) []string {
	for _, e := range more {
		if !slices.Contains(list, e) {
			list = append(list, e)
		}
	}
	return list
}

func editFile(agentName string, inst installer, opt InstallOptions, install bool) (*Change, error) {
	rel := inst.path()
	path := filepath.Join(opt.Root, filepath.FromSlash(rel))
	c := &Change{Path: path, Rel: rel}
	var err error
	if err := refuseLinks(opt.Root, rel); err != nil {
		return nil, err
	}
	if err := c.readOld(); err != nil {
		return nil, err
	}
	if install {
		c.New, err = inst.add(agentName, c.Old, c.Existed, opt.Exe)
		c.Exists = true
	} else {
		if !c.Existed {
			return nil, fmt.Errorf("%s: %w (the file does not exist)", path, errNotInstalled)
		}
		c.New, c.Exists, err = inst.remove(agentName, c.Old, opt.Exe)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	now := inst.exes(agentName, c.New, opt.Exe)
	for _, e := range inst.exes(agentName, c.Old, opt.Exe) {
		if !slices.Contains(now, e) {
			c.Removed = append(c.Removed, e)
		}
	}
	if opt.DryRun || !c.Changed() {
		return c, nil
	}
	if c.Exists {
		mode := fs.FileMode(0o644)
		if m, ok := inst.(moder); ok {
			mode = m.mode()
		}
		err = writeFile(path, c.New, mode)
	} else {
		err = os.Remove(path)
		if err == nil {
			removeEmptyDirs(filepath.Dir(path), opt.Root)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.Written = true
	return c, nil
}

// ErrSymlink means an agent's config folder or file is a symbolic link:
// install and uninstall never write through one (it may lead out of the
// project) nor replace one with a regular file (uninstall could not put the
// link back).
var ErrSymlink = errors.New("is a symbolic link; ckpt does not write through or replace links")

// refuseLinks fails when any element of rel below root, the config file
// included, is a symbolic link.
func refuseLinks(root, rel string) error {
	p := root
	for _, el := range strings.Split(rel, "/") {
		p = filepath.Join(p, el)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s %w: replace it with a real folder or file, or edit its target by hand", p, ErrSymlink)
		}
	}
	return nil
}

// IsNotInstalled reports whether err says the config held no ckpt hooks.
func IsNotInstalled(err error) bool { return errors.Is(err, errNotInstalled) }

// writeFile replaces path's content atomically, keeping its permission bits
// (mode for a new file) and creating its folder.
func writeFile(path string, data []byte, mode fs.FileMode) error {
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".ckpt-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// removeEmptyDirs removes dir and its parents while they are empty, up to
// but not including root: the config folders install created.
func removeEmptyDirs(dir, root string) {
	root = filepath.Clean(root)
	for dir = filepath.Clean(dir); dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			return
		}
	}
}

// ShellQuote quotes s for a POSIX shell when it needs quoting.
func ShellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%,=", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// HookCommand is the command line an agent's config runs for agentName.
func HookCommand(exe, agentName string) string {
	return ShellQuote(exe) + " hook " + agentName
}

// hookCommandExe returns the binary a hook command runs when the command
// has the form HookCommand writes for agentName: an absolute path, quoted
// as ShellQuote quotes it, then " hook AGENT".
func hookCommandExe(command, agentName string) (string, bool) {
	q, ok := strings.CutSuffix(command, " hook "+agentName)
	if !ok {
		return "", false
	}
	exe := shellUnquote(q)
	if !filepath.IsAbs(exe) || ShellQuote(exe) != q {
		return "", false
	}
	return exe, true
}

// isCkptHook reports whether command is a hook install wrote for
// agentName: HookCommand for exe (the program installing now), or for any
// other program named ckpt or ckpt-hook, which is an earlier install's from
// wherever the binary was then. A command the user wrote otherwise (`ckpt
// hook claude` found on $PATH, extra arguments) is theirs.
func isCkptHook(command, agentName, exe string) bool {
	p, ok := hookCommandExe(command, agentName)
	if !ok {
		return false
	}
	switch filepath.Base(p) {
	case "ckpt", "ckpt.exe", "ckpt-hook", "ckpt-hook.exe":
		return true
	}
	return p == exe
}

// shellUnquote reverses ShellQuote.
func shellUnquote(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], `'\''`, "'")
	}
	return s
}

// unifiedDiff is a one-hunk unified diff of a and b: the lines between
// their common head and tail, with three lines of context.
func unifiedDiff(from, to, a, b string) string {
	al, bl := splitLines(a), splitLines(b)
	head := 0
	for head < len(al) && head < len(bl) && al[head] == bl[head] {
		head++
	}
	tail := 0
	for tail < len(al)-head && tail < len(bl)-head && al[len(al)-1-tail] == bl[len(bl)-1-tail] {
		tail++
	}
	const ctx = 3
	s := max(head-ctx, 0)
	ae, be := min(len(al)-tail+ctx, len(al)), min(len(bl)-tail+ctx, len(bl))
	var w strings.Builder
	fmt.Fprintf(&w, "--- %s\n+++ %s\n", from, to)
	fmt.Fprintf(&w, "@@ -%s +%s @@\n", hunkRange(s, ae-s), hunkRange(s, be-s))
	for i := s; i < head; i++ {
		w.WriteString(" " + al[i])
	}
	for i := head; i < len(al)-tail; i++ {
		w.WriteString("-" + al[i])
	}
	for i := head; i < len(bl)-tail; i++ {
		w.WriteString("+" + bl[i])
	}
	for i := len(al) - tail; i < ae; i++ {
		w.WriteString(" " + al[i])
	}
	return w.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines splits s after each newline; a last line without one gets the
// diff convention's marker.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] += "\n\\ No newline at end of file\n"
	}
	return lines
}
