package cli

import (
	"fmt"
	"path/filepath"
	"testing"
)

// A revert killed after each of its file operations (one that merges a
// file, puts back a folder a later file replaced, and deletes what the
// turn made): the next command leaves the folder wholly before or wholly
// after it, verify finds nothing amiss, and an undo of a finished revert
// gives back the folder before it.
func TestRevertKilledAtEachStep(t *testing.T) {
	base := t.TempDir()
	tmpl := filepath.Join(base, "template")
	writeTexts(t, tmpl, map[string]string{"f": "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "g": "g\n", "d/x": "x\n"})
	ckptOK(t, tmpl, "exec", "--turn", "0", "--", "true")
	ckptOK(t, tmpl, "exec", "--turn", "1", "--", "sh", "-c", "sed -i 's/^2$/TWO/' f; echo g1 > g; rm -r d; echo file > d; echo n > n")
	ckptOK(t, tmpl, "exec", "--turn", "2", "--", "sh", "-c", "sed -i 's/^8$/EIGHT/' f; echo h > h")
	before := snapshotDir(t, tmpl)
	done := filepath.Join(base, "done")
	copyTree(t, tmpl, done)
	ckptOK(t, done, "revert", "1", "--yes")
	after := snapshotDir(t, done)
	kills := eachKill(t, base, tmpl, "apply", []string{"revert", "1", "--yes"}, func(k int, root string, r ckptRun) {
		if !r.Killed {
			return
		}
		ckptOK(t, root, "log")
		got := snapshotDir(t, root)
		isBefore, isAfter := len(snapshotDiff(before, got)) == 0, len(snapshotDiff(after, got)) == 0
		if !isBefore && !isAfter {
			t.Fatalf("apply:%d: the folder is neither before nor after the revert:\n%v", k, snapshotDiff(after, got))
		}
		ckptOK(t, root, "verify")
		if isAfter {
			ckptOK(t, root, "undo", "--yes")
			requireSnapshot(t, root, before, fmt.Sprintf("apply:%d: undo of the recovered revert", k))
		}
	})
	if kills < 5 {
		t.Fatalf("the revert was killed only %d times", kills)
	}
}
