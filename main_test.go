package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestArrows holds the package map ARCHITECTURE.md draws: which packages
// may link which, checked on what `go list -deps` says each one links.
func TestArrows(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	const mod = "github.com/ckpt-dev/ckpt"
	terminal := []string{"charm.land/", "github.com/charmbracelet/", "golang.org/x/term", "github.com/muesli/"}
	cli := []string{"github.com/spf13/cobra", mod + "/cli", mod + "/ui"}
	for _, tc := range []struct {
		pkg    string
		refuse []string
		why    string
	}{
		{"./store/...", append(append([]string{mod + "/agent", mod + "/present"}, terminal...), cli...),
			"the store knows nothing of terminals, agents or words"},
		{"./cmd/ckpt-hook", append(append([]string{"github.com/tailscale/hujson", "github.com/fsnotify/fsnotify", mod + "/watch", "github.com/sergi/go-diff", mod + "/diffview", mod + "/agent/setup"}, terminal...), cli...),
			"an agent starts ckpt-hook on every tool call: store and hook adapters only"},
		{"./agent", append(append([]string{"github.com/tailscale/hujson", "github.com/fsnotify/fsnotify", mod + "/watch", mod + "/agent/setup"}, terminal...), cli...),
			"agent holds the adapters (an event in, store calls out); agent/setup edits the agents' configs"},
		{"./diffview", append([]string{"charm.land/bubbletea/v2", mod + "/store"}, cli...),
			"diffview renders a diff and nothing else"},
		{"./keymap", []string{mod + "/store", "charm.land/bubbletea/v2", "charm.land/lipgloss/v2"},
			"keymap is bindings and their help"},
		{"./present", []string{mod + "/store", "charm.land/", "github.com/charmbracelet/x/term"},
			"present is words, sizes and ages (x/ansi only measures them)"},
		{"./ui", []string{"github.com/spf13/cobra", mod + "/cli", mod + "/agent"},
			"the UI talks to the store through its own interface"},
	} {
		t.Run(strings.Trim(tc.pkg, "./"), func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", tc.pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", tc.pkg, err)
			}
			for _, dep := range strings.Fields(string(out)) {
				for _, bad := range tc.refuse {
					if dep == bad || strings.HasSuffix(bad, "/") && strings.HasPrefix(dep, bad) || strings.HasPrefix(dep, bad+"/") {
						t.Errorf("%s links %s: %s", tc.pkg, dep, tc.why)
					}
				}
			}
		})
	}
}

// TestOnlyBinariesTuneTheRuntime: the collector's target and the memory
// limit are the binaries' to set (main.go, cmd/ckpt-hook); a library
// that sets them changes every program that links it.
func TestOnlyBinariesTuneTheRuntime(t *testing.T) {
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != "." || d.Name() == "testdata" || p == "cmd") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || p == "main.go" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, call := range []string{"debug.SetGCPercent(", "debug.SetMemoryLimit(", "debug.SetMaxThreads(", "debug.SetMaxStack("} {
			if strings.Contains(string(b), call) {
				t.Errorf("%s calls %s: only a binary's main tunes the runtime", p, strings.TrimSuffix(call, "("))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
