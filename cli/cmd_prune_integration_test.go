package cli

import (
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestPrune(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n"})
	for i := 1; i <= 4; i++ {
		id := strconv.Itoa(i)
		p.turn(t, id, "", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "a "+id+"\n") })
	}
	// Rewinding turn 4 keeps "a 4" as the bytes its undo needs.
	ckptOp(t, p.root, 0, "rewind", "4", "--yes")
	before := snapshotDir(t, storeFolder(p.root))
	ckptCode(t, p.root, 4, "prune", "--keep", "2", "--dry-run") // a plan shown, nothing changed
	if d := snapshotDiff(filesOnly(before), filesOnly(snapshotDir(t, storeFolder(p.root)))); len(d) > 0 {
		t.Errorf("prune --dry-run changed the store:\n  %s", strings.Join(d, "\n  "))
	}
	ckptOK(t, p.root, "prune", "--keep", "2")
	var turns []string
	for _, e := range ckptLog(t, p.root) {
		if e.Kind == "agent" {
			turns = append(turns, e.Turn)
		}
	}
	if !sameSet(turns, []string{"3", "4"}) {
		t.Errorf("after prune --keep 2 the turns are %v, want 3 and 4", turns)
	}
	// Turn 1's pre-image "a 0" is referred to by nothing kept.
	if n := countBlobs(t, p.root, "a 0\n"); n != 0 {
		t.Errorf("prune kept the blob of a pruned turn's pre-image")
	}
	ckptOK(t, p.root, "verify")
	ckptOp(t, p.root, 0, "undo", "--yes")
	if got := readText(t, p.root, "a.txt"); got != "a 4\n" {
		t.Errorf("undo after prune left a.txt %q, want \"a 4\"", got)
	}
	ckptOp(t, p.root, 0, "rewind", "3", "--yes")
	if got := readText(t, p.root, "a.txt"); got != "a 2\n" {
		t.Errorf("rewind 3 after prune left a.txt %q, want \"a 2\"", got)
	}
}

// countBlobs counts the blobs of content in root's store.
func countBlobs(t testing.TB, root, content string) int {
	sum := hexSHA256([]byte(content))
	n := 0
	filepath.WalkDir(storeFolder(root), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (d.Name() == sum || d.Name() == sum+".zst") {
			n++
		}
		return nil
	})
	return n
}

// TestPruneDryRunAlone: --dry-run alone is a question, not a usage
// error: it drops no turn and says what the blobs would gain; prune alone
// still asks for a limit.
func TestPruneDryRunAlone(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a\n"})
	p.turn(t, "1", "first", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "A\n") })
	r := ckptCode(t, p.root, exitPlanShown, "prune", "--dry-run")
	if !strings.Contains(r.Stdout, "would drop 0 turns") {
		t.Errorf("prune --dry-run: %s", r)
	}
	ckptCode(t, p.root, exitUsage, "prune")
	r = ckptCode(t, p.root, exitError, "rewind", "1", "--except", "/etc/passwd", "--yes")
	if !strings.Contains(r.Stderr, "--except: /etc/passwd") || strings.Contains(r.Stderr, "keep:") {
		t.Errorf("--except outside the root: %s", r)
	}
}
