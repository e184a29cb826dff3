package store

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// switchFeed answers with the paths it holds, or, with full set, that
// it cannot say (the sweep lists the whole tree).
// Each answer's token is new.
type switchFeed struct {
	paths []string
	full  bool
	n     int
}

func (f *switchFeed) Since(string) (Changes, error) {
	f.n++
	return Changes{Paths: f.paths, Next: fmt.Sprintf("tok%d", f.n), Known: !f.full}, nil
}

// hookTurnFiles is the paths turn 1 holds, in order.
func hookTurnFiles(t *testing.T, s *Store) []string {
	t.Helper()
	sh, err := s.Show("1", false)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range sh.Files {
		out = append(out, f.Path)
	}
	slices.Sort(out)
	return out
}

var (
	hookMeta  = TurnMeta{Source: &Source{Agent: "claude", Session: "s1"}}
	watchMeta = TurnMeta{Source: &Source{Agent: WatchAgent}}
)

// TestWatchSweepLeavesTransientPaths: ckpt watch sweeps while a hook's
// shell command runs, between sed -i's writing its temporary file and
// renaming it over the file it edits. A path that did not exist before
// the command and does not after it is no change of the turn; what the
// command created and left is the closing sweep's, with its folders, and
// what it changed of the files there before goes to the turn at once.
func TestWatchSweepLeavesTransientPaths(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "a\n")
	wr(t, root, "b.txt", "b\n")
	feed := &switchFeed{}
	s, err := Open(root, Options{Create: true, Feed: feed})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const cmd = "sed -i s/b/B/ b.txt && mkdir d && echo n > d/n.txt && rm a.txt"
	if _, err := s.SweepBefore("1", hookMeta, cmd); err != nil {
		t.Fatal(err)
	}
	wr(t, root, "sedW1Bwe6", "B\n")
	wr(t, root, "d/n.txt", "n\n")
	removePathT(t, root, "a.txt")
	feed.paths = []string{"sedW1Bwe6", "d", "d/n.txt", "a.txt"}
	token := s.watchToken()
	res, err := s.SweepWatch("", watchMeta)
	if err != nil {
		t.Fatal(err)
	}
	if !res.ToHook || !slices.Equal(res.Changed, []string{"a.txt"}) {
		t.Fatalf("the sweep while the command ran: %+v", res)
	}
	if got := hookTurnFiles(t, s); !slices.Equal(got, []string{"a.txt"}) {
		t.Fatalf("while the command runs, the hook's turn holds %v", got)
	}
	// The watcher's next answer must name what was left again.
	if got := s.watchToken(); got != token || token == "" {
		t.Fatalf("the token moved on from %q to %q past paths left to the closing sweep", token, got)
	}
	renameT(t, root, "sedW1Bwe6", "b.txt")
	feed.paths = []string{"sedW1Bwe6", "b.txt", "d", "d/n.txt", "a.txt"}
	res, err = s.SweepAfter("1", hookMeta, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Changed, []string{"b.txt", "d/n.txt"}) {
		t.Fatalf("the closing sweep recorded %v", res.Changed)
	}
	if got := hookTurnFiles(t, s); !slices.Equal(got, []string{"a.txt", "b.txt", "d/n.txt"}) {
		t.Fatalf("the hook's turn holds %v", got)
	}
	sameAsFull(t, s, "after the closing sweep")
	// A rewind of the turn takes out the folder the command made too.
	rewind(t, s, "1")
	if got := rd(t, root, "a.txt") + rd(t, root, "b.txt"); got != "a\nb\n" || pathThere(root, "d") {
		t.Fatalf("after the rewind: %q, d there: %v", got, pathThere(root, "d"))
	}
}

// TestWatchSweepLeftPathsFoundByFullSweep: what a watch sweep left to
// a running command's closing sweep is found by that sweep when it lists
// the whole tree too: the folder holding it, listed long after it last
// changed, does not vouch for its old listing.
func TestWatchSweepLeftPathsFoundByFullSweep(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "d/old.txt", "old\n")
	feed := &switchFeed{}
	s, err := Open(root, Options{Create: true, Feed: feed})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.SweepBefore("1", hookMeta, "make"); err != nil {
		t.Fatal(err)
	}
	wr(t, root, "d/new.txt", "new\n")
	// The folder's times age past the racy window before ckpt watch
	// sweeps, so its stat would vouch for its listing.
	time.Sleep(racyWindowTest())
	feed.paths = []string{"d/new.txt"}
	if res, err := s.SweepWatch("", watchMeta); err != nil || len(res.Changed) != 0 {
		t.Fatalf("the sweep while the command ran: %+v %v", res, err)
	}
	feed.full = true
	res, err := s.SweepAfter("1", hookMeta, "make")
	if err != nil || res.Feed != FeedFull {
		t.Fatalf("closing sweep: %+v %v", res, err)
	}
	if !slices.Equal(res.Changed, []string{"d/new.txt"}) {
		t.Fatalf("the closing sweep recorded %v", res.Changed)
	}
	sameAsFull(t, s, "after the closing sweep")
}

func renameT(t *testing.T, root, from, to string) {
	t.Helper()
	if err := os.Rename(filepath.Join(root, from), filepath.Join(root, to)); err != nil {
		t.Fatal(err)
	}
}

func pathThere(root, rel string) bool {
	_, err := os.Lstat(filepath.Join(root, rel))
	return err == nil
}
