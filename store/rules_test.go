package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProjectRulesCaseSensitive: on a case-sensitive file system the
// rules of a project take .osfoundry for the store's folder and its
// checkpoints and hooks for ckpt's own entries only by those exact
// names, as its sweeps do: .OSFoundry follows its .gitignore and keeps
// its checkpoints, and .osfoundry/Hooks is the project's.
func TestProjectRulesCaseSensitive(t *testing.T) {
	root := tempRoot(t)
	put(t, root, ".osfoundry/hooks/h", "h\n", 0o644)
	if _, err := os.Lstat(filepath.Join(root, ".OSFOUNDRY")); err == nil {
		t.Skip("the file system folds case")
	}
	top := ProjectRules(root)
	store := top.Enter(".osfoundry", []byte("*\n"), nil)
	other := top.Enter(".OSFoundry", []byte("build/\n"), nil)
	for _, c := range []struct {
		rules *Rules
		where string
		name  string
		dir   bool
		skip  bool
	}{
		{store, ".osfoundry", "checkpoints", true, true},
		{store, ".osfoundry", "hooks", true, true},
		{store, ".osfoundry", ".gitignore", false, true},
		{store, ".osfoundry", "Hooks", true, false},
		{store, ".osfoundry", "notes", true, false},
		{other, ".OSFoundry", "checkpoints", true, false},
		{other, ".OSFoundry", "hooks", true, false},
		{other, ".OSFoundry", "build", true, true},
	} {
		if got := c.rules.Skip(c.name, c.dir); got != c.skip {
			t.Errorf("Skip(%s/%s) = %v, want %v", c.where, c.name, got, c.skip)
		}
	}
}
