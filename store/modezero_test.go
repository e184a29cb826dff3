package store

import (
	"os"
	"path/filepath"
	"testing"
)

// Mode 000 is a mode like any other: a command that gives it to a folder
// or a file, or removes a folder of mode 000, is rewound and undone
// exactly. Before, a record's image could not say 000 (0 was "unknown"),
// so the undo left the folder 0755 and the file 0644, and a folder of
// mode 000 that a command removed came back 0755.
func TestModeZeroRewoundAndUndone(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, root string)
		cmd   func(t *testing.T, root string)
	}{
		{"chmod 000 a folder and a file", func(t *testing.T, root string) {
			put(t, root, "d/f", "f\n", 0o644)
			put(t, root, "n", "n\n", 0o644)
		}, func(t *testing.T, root string) {
			os.Chmod(filepath.Join(root, "d"), 0)
			os.Chmod(filepath.Join(root, "n"), 0)
		}},
		{"a folder of mode 000 removed", func(t *testing.T, root string) {
			put(t, root, "d/sub/f", "f\n", 0o640)
			put(t, root, "n", "n\n", 0)
			os.Chmod(filepath.Join(root, "d/sub"), 0)
			os.Chmod(filepath.Join(root, "d"), 0o500)
		}, func(t *testing.T, root string) {
			os.Chmod(filepath.Join(root, "d"), 0o700)
			os.RemoveAll(filepath.Join(root, "d"))
			os.Remove(filepath.Join(root, "n"))
		}},
		{"a file of mode 000 rewritten", func(t *testing.T, root string) {
			put(t, root, "n", "old\n", 0)
		}, func(t *testing.T, root string) {
			put(t, root, "n", "new\n", 0)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := tempRoot(t)
			tc.setup(t, root)
			t.Cleanup(func() { openUp(root) })
			s := openStore(t, root)
			turn, before, after := commandTurn(t, s, "modes", func() { tc.cmd(t, root) })
			rewindUndoRedo(t, s, turn, before, after, true)
		})
	}
}

// openUp gives every folder under root back to its owner, so the test's
// folder can be removed.
func openUp(root string) {
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
}
