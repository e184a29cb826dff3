package store

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// turnShares is what turn holds: each path with the turns it is shared
// with.
func turnShares(t *testing.T, s *Store, turn TurnID) map[string][]string {
	t.Helper()
	files, err := s.Files(string(turn), false)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, f := range files {
		out[f.Path] = f.Shared
	}
	return out
}

func sameShares(t *testing.T, what string, got, want map[string][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s holds %v, want %v", what, got, want)
	}
	for p, sh := range want {
		if g, ok := got[p]; !ok || !slices.Equal(g, sh) {
			t.Fatalf("%s holds %v, want %v", what, got, want)
		}
	}
}

// TestOtherSessionSweepLeavesTransientPaths: A's shell command runs
// while B's sweeps come, between A's command making its temporary files
// and removing them. A path made while A's command runs is left to A's
// closing sweep: one gone by then (an editor's swap file, sed -i's
// temporary file) is in no turn, and one still there goes to A's turn,
// and to B's too, shared, when B's command ran when it appeared. What
// A's command changed of the files there before goes to its turn at B's
// first sweep, as before.
func TestOtherSessionSweepLeavesTransientPaths(t *testing.T) {
	root, s, a, b, before := twoRunning(t)
	// A's command (a script editing x.txt in place) keeps a swap file,
	// makes a folder with a file in it, and a scratch folder.
	put(t, root, ".x.txt.swp", "swap\n", 0o644)
	put(t, root, "gen/out.txt", "out by A\n", 0o644)
	put(t, root, "tmp/obj/t.o", "object\n", 0o644)
	res, err := s.SweepBefore(b, TurnMeta{}, "echo c > c.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Others, []string{string(a)}) || !slices.Equal(res.Changed, []string{"x.txt"}) {
		t.Fatalf("B's sweep before: %+v; want only x.txt, given to A's turn %s", res, a)
	}
	sameShares(t, "A's turn while its command runs", turnShares(t, s, a), map[string][]string{"x.txt": nil})
	// B's command makes c.txt; A's command, still running, sed -i's
	// temporary file.
	put(t, root, "c.txt", "c by B\n", 0o644)
	put(t, root, "sedQ1x2b", "y by A\n", 0o644)
	res, err = s.SweepAfter(b, TurnMeta{}, "echo c > c.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changed) != 0 || len(res.Others) != 0 {
		t.Fatalf("B's sweep after: %+v; want everything new left to A's closing sweep", res)
	}
	sameShares(t, "B's turn after its command", turnShares(t, s, b), nil)
	// A's command renames its temporary file over y.txt and removes its
	// swap file and scratch folder, then ends.
	if err := os.Rename(filepath.Join(root, "sedQ1x2b"), filepath.Join(root, "y.txt")); err != nil {
		t.Fatal(err)
	}
	removePathT(t, root, ".x.txt.swp")
	if err := os.RemoveAll(filepath.Join(root, "tmp")); err != nil {
		t.Fatal(err)
	}
	res, err = s.SweepAfter(a, TurnMeta{}, "make gen")
	if err != nil {
		t.Fatal(err)
	}
	if res.Turn != a || !slices.Equal(res.Changed, []string{"c.txt", "gen/out.txt", "y.txt"}) || !slices.Equal(res.Others, []string{string(b)}) {
		t.Fatalf("A's sweep after: %+v", res)
	}
	sameShares(t, "A's turn", turnShares(t, s, a), map[string][]string{
		"x.txt": nil, "y.txt": nil, "gen/out.txt": nil, "c.txt": {string(b)},
	})
	sameShares(t, "B's turn", turnShares(t, s, b), map[string][]string{"c.txt": {string(a)}})
	sameAsFull(t, s, "after both closing sweeps")
	for _, f := range []string{openFile, leftFile} {
		if _, err := os.Stat(filepath.Join(root, storeDir, f)); err == nil {
			t.Errorf("%s is still there after every closing sweep", f)
		}
	}
	rewind(t, s, string(a))
	sameTree(t, "after rewinding both sessions' turns", before, tree(t, root))
}

// TestOtherSessionLeftPathOwnerGone: a path B's closing sweep left to
// A's, made while both commands ran, whose closing sweep never came (A's
// turn ended without it): the next sweep gives it to both turns, shared,
// as A's closing sweep would have.
func TestOtherSessionLeftPathOwnerGone(t *testing.T) {
	root, s, a, b, _ := twoRunning(t)
	if _, err := s.SweepBefore(b, TurnMeta{}, "echo c > c.txt"); err != nil {
		t.Fatal(err)
	}
	put(t, root, "c.txt", "c by B\n", 0o644)
	if res, err := s.SweepAfter(b, TurnMeta{}, "echo c > c.txt"); err != nil || len(res.Changed) != 0 {
		t.Fatalf("B's sweep after: %+v %v", res, err)
	}
	if err := s.EndTurn(a); err != nil {
		t.Fatal(err)
	}
	c, _ := s.NewTurn(TurnMeta{Label: "C", Source: &Source{Agent: "codex", Session: "sc"}})
	res, err := s.SweepBefore(c, TurnMeta{}, "ls")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changed) != 1 || res.Changed[0] != "c.txt" {
		t.Fatalf("the next sweep: %+v", res)
	}
	sameShares(t, "B's turn", turnShares(t, s, b), map[string][]string{"c.txt": {string(a)}})
	sameShares(t, "A's turn", turnShares(t, s, a), map[string][]string{"x.txt": nil, "c.txt": {string(b)}})
	sameShares(t, "C's turn", turnShares(t, s, c), nil)
	sameAsFull(t, s, "after the next sweep")
}

// TestOtherSessionEditSweeps: B is an agent that sweeps at its prompt and
// after each edit (its edits' events come only after the write), while
// A's command runs. A path A's command made before B's prompt is A's
// alone, even at B's second edit's sweep, which no sweep before opened;
// the files B's edits made while A's command ran are both turns',
// shared.
func TestOtherSessionEditSweeps(t *testing.T) {
	root, s, a, b, _ := twoRunning(t)
	put(t, root, "a.out", "out by A\n", 0o644)
	if _, err := s.SweepBefore(b, TurnMeta{}, "(the prompt)"); err != nil {
		t.Fatal(err)
	}
	put(t, root, "d.txt", "d by B\n", 0o644)
	if res, err := s.SweepAfter(b, TurnMeta{}, "edit d.txt"); err != nil || len(res.Changed) != 0 {
		t.Fatalf("B's first edit's sweep: %+v %v", res, err)
	}
	put(t, root, "e.txt", "e by B\n", 0o644)
	if res, err := s.SweepAfter(b, TurnMeta{}, "edit e.txt"); err != nil || len(res.Changed) != 0 {
		t.Fatalf("B's second edit's sweep: %+v %v", res, err)
	}
	if _, err := s.SweepAfter(a, TurnMeta{}, "make gen"); err != nil {
		t.Fatal(err)
	}
	sameShares(t, "A's turn", turnShares(t, s, a), map[string][]string{
		"x.txt": nil, "a.out": nil, "d.txt": {string(b)}, "e.txt": {string(b)},
	})
	sameShares(t, "B's turn", turnShares(t, s, b), map[string][]string{"d.txt": {string(a)}, "e.txt": {string(a)}})
	sameAsFull(t, s, "after A's closing sweep")
}

// TestLeftFileKeepsCommandOnce: a long command (a heredoc) that makes
// many files while another session sweeps costs left.json the command
// once, not once per path, and its paths go to its turn at its closing
// sweep.
func TestLeftFileKeepsCommandOnce(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "a.txt", "a\n", 0o644)
	s := openStore(t, root)
	if _, err := s.SweepBefore("0", TurnMeta{}, "true"); err != nil {
		t.Fatal(err)
	}
	if err := s.EndTurn("0"); err != nil {
		t.Fatal(err)
	}
	a, _ := s.NewTurn(TurnMeta{Label: "A", Source: &Source{Agent: "claude", Session: "sa"}})
	b, _ := s.NewTurn(TurnMeta{Label: "B", Source: &Source{Agent: "codex", Session: "sb"}})
	long := "cat <<'EOF' > gen.sh\n" + strings.Repeat("echo generated code line\n", 4000) + "EOF\n"
	if _, err := s.SweepBefore(a, TurnMeta{}, long); err != nil {
		t.Fatal(err)
	}
	const n = 300
	for i := range n {
		put(t, root, fmt.Sprintf("out/f%03d.txt", i), "x\n", 0o644)
	}
	if _, err := s.SweepBefore(b, TurnMeta{}, "ls"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(root, storeDir, leftFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("left.json: %d bytes for a %d-byte command and %d paths", fi.Size(), len(long), n)
	if max := int64(len(long)) + n*100; fi.Size() > max {
		t.Fatalf("left.json is %d bytes for a %d-byte command and %d paths, over %d", fi.Size(), len(long), n, max)
	}
	res, err := s.SweepAfter(a, TurnMeta{}, long)
	if err != nil || len(res.Changed) != n {
		t.Fatalf("A's closing sweep recorded %d paths (%v), want %d", len(res.Changed), err, n)
	}
	if got := turnShares(t, s, b); len(got) != 0 {
		t.Fatalf("B's turn holds %v", got)
	}
}

// TestOtherSessionEmptyFolderOwners: A's command makes an empty folder
// and ends while B's command runs, B's first sweep having found the
// folder while A's command ran; B's command then writes a file in it.
// The folder is A's command's, not B's: B's turn records the file alone,
// so rewinding B's turn takes out the file and leaves A's folder.
// Before, A's closing sweep left the folder out of the baseline as made
// while B's command ran, B's turn recorded it as a folder it made, and
// rewinding B's turn removed it.
func TestOtherSessionEmptyFolderOwners(t *testing.T) {
	root, s, a, b, _ := twoRunning(t)
	if err := os.Mkdir(filepath.Join(root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepBefore(b, TurnMeta{}, "echo f > d/f"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepAfter(a, TurnMeta{}, "mkdir d"); err != nil {
		t.Fatal(err)
	}
	put(t, root, "d/f", "f by B\n", 0o644)
	if _, err := s.SweepAfter(b, TurnMeta{}, "echo f > d/f"); err != nil {
		t.Fatal(err)
	}
	sameShares(t, "B's turn", turnShares(t, s, b), map[string][]string{"d/f": nil})
	sameAsFull(t, s, "after B's closing sweep")
	rewind(t, s, string(b))
	if fi, err := os.Stat(filepath.Join(root, "d")); err != nil || !fi.IsDir() {
		t.Fatalf("A's folder d after rewinding B's turn: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(root, "d/f")); err == nil {
		t.Fatal("d/f is still there after rewinding B's turn")
	}
	if _, err := os.Stat(filepath.Join(root, storeDir, leftFile)); err == nil {
		t.Errorf("%s is still there after every closing sweep", leftFile)
	}
}
