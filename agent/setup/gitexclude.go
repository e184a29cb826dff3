package setup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// An agent's per-user config file (Claude Code's settings.local.json) and
// the files that are ckpt's alone (plugins, hook scripts) name this
// machine's ckpt binary by its absolute path: an agent's `git add -A`
// would commit them. Install keeps each one out of git through the
// repository's .git/info/exclude, which is the user's own and never
// shared, under a comment line naming the install; uninstall takes out
// exactly those two lines. A file the agent shares with the team (Gemini
// CLI's settings.json) is left to the user.

// ExcludedFiles are the files, relative to the root and slash-separated,
// that Install keeps out of git for agentName.
func ExcludedFiles(agentName string) []string {
	inst := installers[agentName]
	if inst == nil {
		return nil
	}
	var out []string
	add := func(inst installer) {
		_, shared := inst.(jsonInstaller)
		if !shared || strings.Contains(filepath.Base(inst.path()), ".local.") {
			out = append(out, inst.path())
		}
	}
	if m, ok := inst.(multiInstaller); ok {
		for _, p := range m.parts() {
			add(p)
		}
	} else {
		add(inst)
	}
	return out
}

// excludeMarker is the comment line above each pattern install adds.
func excludeMarker(agentName string) string {
	return "# ckpt install " + agentName + " (ckpt uninstall " + agentName + " removes this and the next line)"
}

// ExcludeChange is what Exclude did to .git/info/exclude.
type ExcludeChange struct {
	Path  string   // the exclude file; "" when the root is not in a git repository
	Lines []string // the patterns added or removed
}

// Exclude adds (add true) or removes the exclude lines for agentName's
// files in the git repository at root. Nothing happens outside a git
// repository. A pattern already there (written by the user) is not added
// again, and only lines under ckpt's marker are ever removed.
func Exclude(root, agentName string, add bool) (*ExcludeChange, error) {
	path, ok := gitExcludePath(root)
	if !ok {
		return &ExcludeChange{}, nil
	}
	c := &ExcludeChange{Path: path}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	lines := strings.SplitAfter(string(old), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	marker := excludeMarker(agentName)
	var out []string
	if add {
		text := string(old)
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		have := map[string]bool{}
		for _, l := range lines {
			have[strings.TrimSpace(l)] = true
		}
		for _, f := range ExcludedFiles(agentName) {
			pat := "/" + f
			if have[pat] {
				continue
			}
			text += marker + "\n" + pat + "\n"
			c.Lines = append(c.Lines, pat)
		}
		if len(c.Lines) == 0 {
			return c, nil
		}
		return c, writeExclude(path, []byte(text))
	}
	for i := 0; i < len(lines); i++ {
		if strings.TrimRight(lines[i], "\r\n") == marker && i+1 < len(lines) {
			c.Lines = append(c.Lines, strings.TrimRight(lines[i+1], "\r\n"))
			i++
			continue
		}
		out = append(out, lines[i])
	}
	if len(c.Lines) == 0 {
		return c, nil
	}
	return c, writeExclude(path, []byte(strings.Join(out, "")))
}

func writeExclude(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := writeFile(path, data, 0o644); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// gitExcludePath is root's repository's info/exclude: in the .git folder,
// or for a worktree (.git is a file naming its git dir) in the common git
// dir the worktrees share.
func gitExcludePath(root string) (string, bool) {
	dot := filepath.Join(root, ".git")
	fi, err := os.Lstat(dot)
	if err != nil {
		return "", false
	}
	gitDir := dot
	if fi.Mode().IsRegular() {
		data, err := os.ReadFile(dot)
		rest, ok := strings.CutPrefix(string(bytes.TrimSpace(data)), "gitdir:")
		if err != nil || !ok {
			return "", false
		}
		gitDir = strings.TrimSpace(rest)
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(root, gitDir)
		}
		if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
			common := strings.TrimSpace(string(c))
			if !filepath.IsAbs(common) {
				common = filepath.Join(gitDir, common)
			}
			gitDir = common
		}
	} else if !fi.IsDir() {
		return "", false
	}
	return filepath.Join(gitDir, "info", "exclude"), true
}
