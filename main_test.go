package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"iter"
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

// Sizes that keep a file or a function readable: a store source file
// holds at most storeFileMax lines, and a function at most funcLinesMax
// lines and a cyclomatic complexity (gocyclo's count: 1, plus one for
// each if, for, case and && or ||) of at most funcComplexityMax.
const (
	storeFileMax      = 600
	funcLinesMax      = 120
	funcComplexityMax = 40
)

// layoutExceptions are the functions allowed past those sizes, by
// "folder/file.go:Func" (methods by their name alone), each with a line
// saying why a table or a state machine reads better whole. None is
// needed today.
var layoutExceptions = map[string]string{}

// TestLayout holds every non-test source file of the module to the sizes
// above; an exception that is no longer needed must go too.
func TestLayout(t *testing.T) {
	fset := token.NewFileSet()
	used := map[string]bool{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		p = filepath.ToSlash(p)
		if lines := bytes.Count(src, []byte("\n")); strings.HasPrefix(p, "store/") && lines > storeFileMax {
			t.Errorf("%s: %d lines, over the %d a store source file may hold: split it along what its parts do", p, lines, storeFileMax)
		}
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for name, fn := range funcs(f) {
			name = p + ":" + name
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			cc := complexity(fn)
			if lines <= funcLinesMax && cc <= funcComplexityMax {
				continue
			}
			if layoutExceptions[name] != "" {
				used[name] = true
				continue
			}
			t.Errorf("%s (line %d): %d lines, complexity %d; at most %d and %d, unless a table or a state machine is the clearer form (then say so in layoutExceptions)",
				name, fset.Position(fn.Pos()).Line, lines, cc, funcLinesMax, funcComplexityMax)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range layoutExceptions {
		if !used[name] {
			t.Errorf("layoutExceptions lists %s, which is within the sizes now (or gone): take it out", name)
		}
	}
}

// funcs yields a file's functions and methods by name, and the function
// literals its package-level variables hold by the variable's name (a
// literal inside a function counts as part of it).
func funcs(f *ast.File) iter.Seq2[string, ast.Node] {
	return func(yield func(string, ast.Node) bool) {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Body != nil && !yield(d.Name.Name, d) {
					return
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					vs, ok := spec.(*ast.ValueSpec)
					if !ok {
						continue
					}
					for i, v := range vs.Values {
						if lit, ok := v.(*ast.FuncLit); ok && i < len(vs.Names) && !yield(vs.Names[i].Name, lit) {
							return
						}
					}
				}
			}
		}
	}
}

// complexity is a function's cyclomatic complexity as gocyclo counts it.
func complexity(fn ast.Node) int {
	n := 1
	ast.Inspect(fn, func(node ast.Node) bool {
		switch node := node.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if node.List != nil {
				n++
			}
		case *ast.CommClause:
			if node.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if node.Op == token.LAND || node.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}
