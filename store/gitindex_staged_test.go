package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
)

// blobCount counts the store's loose blobs.
func blobCount(t *testing.T, root string) int {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(root, ".osfoundry", "checkpoints", "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// staleIndex makes every entry's stat data in git's index stale, so
// that the next git status rewrites the index, staging nothing.
func staleIndex(t *testing.T, root string) {
	t.Helper()
	later := time.Now().Add(time.Hour)
	for _, n := range []string{"a.txt", "docs/notes.txt"} {
		if err := os.Chtimes(filepath.Join(root, n), later, later); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIndexRefreshCostsNoCopy: a command that only made git rewrite its
// index to refresh the stat data it caches (git status) appends nothing
// to the turn for git and keeps no copy of the index, in the sweep after
// it and at the next turn's start; staging does both. A rewind with
// --git-index of the turn after the refresh puts back an index that
// stages what it did, and git status is as it was.
func TestIndexRefreshCostsNoCopy(t *testing.T) {
	root, s := gitProject(t)
	one := openTestTurn(t, s, "an edit")
	shellStep(t, s, root, one, "echo 1 > c.txt")
	turnFile := filepath.Join(root, ".osfoundry", "checkpoints", "turns", one+".log")
	before, err := os.ReadFile(turnFile)
	if err != nil {
		t.Fatal(err)
	}
	blobs := blobCount(t, root)
	index := func() []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	was := index()
	staleIndex(t, root)
	shellStep(t, s, root, one, "git status --porcelain >/dev/null")
	if bytes.Equal(was, index()) {
		t.Skip("git status did not rewrite the index here")
	}
	after, err := os.ReadFile(turnFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatalf("a refresh of git's index appended to the turn:\n%s", bytes.TrimPrefix(after, before))
	}
	if n := blobCount(t, root); n != blobs {
		t.Fatalf("a refresh of git's index kept %d blobs", n-blobs)
	}
	if err := s.EndTurn(TurnID(one)); err != nil {
		t.Fatal(err)
	}
	if n := blobCount(t, root); n != blobs {
		t.Fatalf("the turn's end kept %d blobs after a refresh of git's index", n-blobs)
	}

	// The next turn's start: the last copy stands for the refreshed index.
	staleIndex(t, root)
	shIn(t, root, "git status --porcelain >/dev/null")
	status := gitStatus(t, root)
	two := openTestTurn(t, s, "stage")
	shellStep(t, s, root, two, "echo 2 > d.txt && git add d.txt")
	if n := blobCount(t, root); n != blobs+2 { // d.txt, and the index that stages it
		t.Fatalf("the turn that staged a file kept %d blobs, want 2", n-blobs)
	}
	wantRanGit(t, s, "two turns", map[string]bool{one: false, two: true})
	p, err := s.PlanRewindWith(two, RewindOptions{GitIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(p, nil); err != nil {
		t.Fatal(err)
	}
	if got := gitStatus(t, root); got != status {
		t.Fatalf("git status after the rewind:\n%s\nbefore the turn:\n%s", got, status)
	}
}

func gitStatus(t *testing.T, root string) string {
	t.Helper()
	c := exec.Command("git", "status", "--porcelain")
	c.Dir, c.Env = root, append(gitEnv(), "GIT_OPTIONAL_LOCKS=0")
	out, err := c.Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestIndexDigestsFile: the digests of what kept copies of git's index
// stage survive the process (another Store reads them), a torn or
// foreign line is passed over, and past digestsMax lines the newest are
// kept.
func TestIndexDigestsFile(t *testing.T) {
	root := tempRoot(t)
	s := openStore(t, root)
	if err := s.ensureDirs(); err != nil {
		t.Fatal(err)
	}
	id := func(i int) BlobID { return blob.Of([]byte{byte(i), byte(i >> 8), 1}) }
	dg := func(i int) string { return id(i + 7).String() }
	for i := range digestsMax + 10 {
		s.digests.put(s, id(i), dg(i))
	}
	f, err := os.OpenFile(filepath.Join(root, ".osfoundry", "checkpoints", digestsFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(id(1).String() + " not-a-digest\n" + id(2).String()[:20])
	f.Close()
	o := openStore(t, root)
	if got := o.digests.get(o, id(digestsMax+9)); got != dg(digestsMax+9) {
		t.Fatalf("the newest digest read back as %q", got)
	}
	if got := o.digests.get(o, id(0)); got != "" {
		t.Fatalf("the oldest digest outlived the file's bound: %q", got)
	}
	if got := o.digests.get(o, id(1)); got != "" {
		t.Fatalf("a foreign line was read as %q", got)
	}
}

// TestUpgradedNotesReadIndexCopyOnce: notes written by a ckpt that did
// not digest what git's index stages (no "staged" in git-index,
// git-index-seen or git-last, no git-index-staged) cost the hook path
// one read of the kept copy of the index, at the first sweep that asks
// whether git moved, and none at the sweeps and turn ends after it, each
// in a process of its own.
func TestUpgradedNotesReadIndexCopyOnce(t *testing.T) {
	root, s := gitProject(t)
	one := openTestTurn(t, s, "edits")
	shellStep(t, s, root, one, "echo 1 >> a.txt && git add a.txt")
	dir := filepath.Join(root, ".osfoundry", "checkpoints")
	for _, n := range []string{gitIndexStateFile, gitIndexSeenFile, gitLastFile} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "staged")
		if b, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(dir, digestsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	before := indexCopyReads.Load()
	for _, step := range []string{"true", "git status >/dev/null", "true", "end", "true", "end"} {
		o, err := Open(root, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if step == "end" {
			err = o.EndTurn(TurnID(one))
		} else {
			staleIndex(t, root)
			shellStep(t, o, root, one, step)
		}
		o.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := indexCopyReads.Load() - before; n != 1 {
		t.Fatalf("six hook calls after an upgrade read the kept copy of git's index %d times, want once", n)
	}
	wantRanGit(t, s, "after the upgrade", map[string]bool{one: true})
}
