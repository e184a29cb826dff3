package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A command that removes, moves or replaces a folder tree whose folders
// have modes of their own: the rewind makes the folders again with those
// modes, not the default one, and the undo and redo are exact. Before,
// only the files under them were recorded, and x came back 0755.
func TestVanishedFolderModes(t *testing.T) {
	for _, cmd := range []string{
		"rm -rf x",
		"mv x z",
		"mv x z; ln -s z x",
		"rm -rf x; echo file > x",
		"rm -rf x/y; mkdir x/y; echo other > x/y/2",
	} {
		t.Run(cmd, func(t *testing.T) {
			root := t.TempDir()
			writeTexts(t, root, map[string]string{"x/y/1": "one\n", "x/k": "k\n", "top": "t\n"})
			for name, mode := range map[string]os.FileMode{"x/y": 0o700, "x": 0o750} {
				if err := os.Chmod(filepath.Join(root, name), mode); err != nil {
					t.Fatal(err)
				}
			}
			ckptOK(t, root, "exec", "--turn", "0", "--", "true")
			s0 := snapshotDir(t, root)
			ckptOK(t, root, "exec", "--turn", "1", "--", "sh", "-c", cmd)
			s1 := snapshotDir(t, root)
			ckptOK(t, root, "rewind", "1", "--yes")
			requireSnapshot(t, root, s0, "after the rewind")
			ckptOK(t, root, "undo", "--yes")
			requireSnapshot(t, root, s1, "after the undo")
			ckptOK(t, root, "redo", "--yes")
			requireSnapshot(t, root, s0, "after the redo")
			ckptOK(t, root, "verify")
		})
	}
}

// A name holding a direction override or a zero-width space is quoted
// in a piped diff's headers, as git quotes it, so a patch read later
// cannot show one name for another. Before, it went out raw.
func TestDiffQuotesHiddenCharacters(t *testing.T) {
	root := t.TempDir()
	names := []string{"bi\u202edi.txt", "zw\u200bx.txt"}
	writeTexts(t, root, map[string]string{names[0]: "a\n", names[1]: "b\n"})
	ckptOK(t, root, append([]string{"capture", "--turn", "1"}, names...)...)
	writeTexts(t, root, map[string]string{names[0]: "a2\n", names[1]: "b2\n"})
	ckptOK(t, root, append([]string{"seal", "--turn", "1"}, names...)...)
	out := ckptOK(t, root, "diff", "1", "--no-pager").Stdout
	wantSubstrings(t, "diff", out, `"a/bi\342\200\256di.txt"`, `"b/zw\342\200\213x.txt"`)
	for _, n := range names {
		if strings.Contains(out, n) {
			t.Fatalf("diff holds the name %q raw:\n%s", n, out)
		}
	}
}
