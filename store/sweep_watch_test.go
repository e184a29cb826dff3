package store

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// TestWatchHonoursClaimAfterItsRead: a hook's turn captures and seals
// y.txt after ckpt watch's sweep read the tree and before it recorded
// what it found. The claim is read under the store's lock, with the
// records: y.txt's write is left to the hook's turn, and the watcher's
// holds only the hand edit before it, which the turn's capture found.
func TestWatchHonoursClaimAfterItsRead(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "x.txt", "x before\n", 0o644)
	put(t, root, "y.txt", "y before\n", 0o644)
	s := openStore(t, root)
	if _, err := s.SweepWatch("", watchMeta); err != nil { // the baseline
		t.Fatal(err)
	}
	b, _ := s.NewTurn(TurnMeta{Label: "B", Source: &Source{Agent: "codex", Session: "sb"}})
	put(t, root, "x.txt", "x by hand\n", 0o644)
	put(t, root, "y.txt", "y by hand\n", 0o644)
	s.sweepRead = func() {
		s.sweepRead = nil
		editIn(t, s, root, b, "y.txt", "y by B's edit\n")
	}
	res, err := s.SweepWatch("", watchMeta)
	if err != nil {
		t.Fatal(err)
	}
	if s.sweepRead != nil {
		t.Fatal("the sweep never reached the point between its read and its records")
	}
	if !slices.Equal(res.Changed, []string{"x.txt", "y.txt"}) {
		t.Fatalf("ckpt watch's sweep recorded %v, want x.txt and y.txt's hand edit", res.Changed)
	}
	if f := fileOf(t, s, res.Turn, "y.txt"); f.Post == nil || readImage(t, s, f.Pre) != "y before\n" || readImage(t, s, *f.Post) != "y by hand\n" {
		t.Errorf("the watcher's turn holds y.txt as %+v → %+v, want y before → y by hand", f.Pre, f.Post)
	}
	sameShares(t, "B's turn", turnShares(t, s, b), map[string][]string{"y.txt": nil})
}

// TestClaimedUnderLockListsNoTurns: ckpt watch's sweep reads the claims
// under its own hold of the store's lock, which answers as a shared hold
// does: a load with nothing changed since lists no turn files.
func TestClaimedUnderLockListsNoTurns(t *testing.T) {
	s := openStore(t, genStore(t))
	if _, err := s.Log(true); err != nil {
		t.Fatal(err)
	}
	l, err := s.lock()
	if err != nil {
		t.Fatal(err)
	}
	listed := s.cache.listed
	claimed, _, err := s.claimedSince(0, false, l)
	l.unlock()
	if err != nil {
		t.Fatal(err)
	}
	if !claimed["a.txt"] {
		t.Fatalf("claimed %v, want a.txt among them", claimed)
	}
	if s.cache.listed != listed {
		t.Fatal("the load under the sweep's lock listed the turn files")
	}
}

// turnPathsAgree checks that show, the log's file count, and the plans
// of a revert and of a rewind of turn id all name exactly want.
func turnPathsAgree(t *testing.T, s *Store, id string, want []string) {
	t.Helper()
	for _, withStatus := range []bool{false, true} {
		sh, err := s.Show(id, withStatus)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range sh.Files {
			got = append(got, f.Path)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("show %s (status %v) lists %v, want %v", id, withStatus, got, want)
		}
		log, err := s.Log(withStatus)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(log, func(e Entry) bool { return e.ID == id })
		if i < 0 || log[i].Files != len(want) {
			t.Errorf("the log (status %v) counts %+v files of %s, want %d", withStatus, log[max(i, 0)].Files, id, len(want))
		}
	}
	rv, err := s.PlanRevert(id, RevertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rw, err := s.PlanRewind(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Plan{rv, rw} {
		var got []string
		for _, st := range p.Steps {
			got = append(got, st.Path)
		}
		if !slices.Equal(got, want) {
			t.Errorf("the %s plan of %s has steps for %v, want %v", p.Kind, id, got, want)
		}
	}
}

// TestWatchedTurnTransientFile: a file ckpt watch saw made at one sweep
// and removed by a later one of the same turn was there neither before
// the turn nor after it: show, the log and the plans leave it out, and
// a rewind leaves a file made there since alone.
func TestWatchedTurnTransientFile(t *testing.T) {
	root := tempRoot(t)
	wr(t, root, "b.txt", "b\n")
	s := openStore(t, root)
	if _, err := s.SweepWatch("", watchMeta); err != nil { // the baseline
		t.Fatal(err)
	}
	wr(t, root, "a.txt", "a\n")
	wr(t, root, "b.txt", "B\n")
	res, err := s.SweepWatch("", watchMeta)
	if err != nil || res.Turn == "" || !slices.Equal(res.Changed, []string{"a.txt", "b.txt"}) {
		t.Fatalf("the first sweep: %+v %v", res, err)
	}
	id := res.Turn
	removePathT(t, root, "a.txt")
	if res, err := s.SweepWatch(id, watchMeta); err != nil || !slices.Equal(res.Changed, []string{"a.txt"}) {
		t.Fatalf("the second sweep: %+v %v", res, err)
	}
	turnPathsAgree(t, s, string(id), []string{"b.txt"})
	wr(t, root, "a.txt", "by hand\n")
	rewind(t, s, string(id))
	if rd(t, root, "b.txt") != "b\n" || rd(t, root, "a.txt") != "by hand\n" {
		t.Fatalf("after the rewind: b.txt %q, a.txt %q", rd(t, root, "b.txt"), rd(t, root, "a.txt"))
	}
}

// TestHookTurnTransientFile: a file an agent's tool made and a later
// command of the same turn removed is, as in a watched turn, no path of
// the turn.
func TestHookTurnTransientFile(t *testing.T) {
	root := tempRoot(t)
	wr(t, root, "b.txt", "b\n")
	s := openStore(t, root)
	id, err := s.Write("1", hookMeta, "a.txt", []byte("a\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(id, hookMeta, "b.txt", []byte("B\n")); err != nil {
		t.Fatal(err)
	}
	const cmd = "rm a.txt"
	if _, err := s.SweepBefore(id, hookMeta, cmd); err != nil {
		t.Fatal(err)
	}
	removePathT(t, root, "a.txt")
	if res, err := s.SweepAfter(id, hookMeta, cmd); err != nil || !slices.Equal(res.Changed, []string{"a.txt"}) {
		t.Fatalf("the closing sweep: %+v %v", res, err)
	}
	turnPathsAgree(t, s, string(id), []string{"b.txt"})
}

// TestWatchLeavesHookTurnTransientFile: a file an agent's tool made,
// which ckpt watch's sweep saw, and which the same turn then removed
// (its tool deleting it, as apply_patch does, or its shell command) is
// the hook's turn's, made and removed: the watcher's next sweep, after
// the turn's end forgot its tools' writes (edits.log), records it in no
// turn of its own, and a rewind of the hook's turn gives back the folder
// as it was.
func TestWatchLeavesHookTurnTransientFile(t *testing.T) {
	for _, by := range []string{"tool", "command"} {
		t.Run(by, func(t *testing.T) {
			root := tempRoot(t)
			wr(t, root, "b.txt", "b\n")
			s := openStore(t, root)
			if _, err := s.SweepWatch("", watchMeta); err != nil { // the baseline
				t.Fatal(err)
			}
			before := tree(t, root)
			a, err := s.NewTurn(hookMeta)
			if err != nil {
				t.Fatal(err)
			}
			editIn(t, s, root, a, "x.txt", "x by A\n")
			editIn(t, s, root, a, "b.txt", "b by A\n")
			if res, err := s.SweepWatch("", watchMeta); err != nil || res.Turn != "" {
				t.Fatalf("the watcher's sweep after A's edits: %+v %v", res, err)
			}
			if by == "tool" {
				if _, err := s.Remove(a, hookMeta, []string{root + "/x.txt"}); err != nil {
					t.Fatal(err)
				}
			} else {
				commandIn(t, s, a, "rm x.txt", func() { removePathT(t, root, "x.txt") })
			}
			if err := s.EndTurn(a); err != nil { // edits.log forgets A's writes
				t.Fatal(err)
			}
			res, err := s.SweepWatch("", watchMeta)
			if err != nil {
				t.Fatal(err)
			}
			if res.Turn != "" || len(res.Changed) > 0 {
				t.Errorf("the watcher's sweep after A removed x.txt recorded %v in turn %q, want nothing", res.Changed, res.Turn)
			}
			turnPathsAgree(t, s, string(a), []string{"b.txt"})
			rewind(t, s, string(a))
			sameTree(t, "after rewinding A", before, tree(t, root))
		})
	}
}

// TestWatchLeavesSeedTurnsWrite: a hook's capture naming a turn a seed
// index holds adds to that turn, and ckpt watch leaves what it wrote to
// it, as to any hook's turn, after the turn's end forgot its tools'
// writes: no watched turn records x.txt.
func TestWatchLeavesSeedTurnsWrite(t *testing.T) {
	root := tempRoot(t)
	wr(t, root, "a.txt", "a\n")
	writeSeedIndex(t, root)
	s := openStore(t, root)
	if _, err := s.SweepWatch("", watchMeta); err != nil { // the baseline
		t.Fatal(err)
	}
	if _, err := s.Write("1", hookMeta, filepath.Join(root, "x.txt"), []byte("x by 1\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.EndTurn("1"); err != nil {
		t.Fatal(err)
	}
	res, err := s.SweepWatch("", watchMeta)
	if err != nil {
		t.Fatal(err)
	}
	if res.Turn != "" || len(res.Changed) > 0 {
		t.Errorf("the watcher's sweep recorded %v in turn %q, want nothing: x.txt is turn 1's", res.Changed, res.Turn)
	}
}

// TestWatchRecordsHandDeleteUnderHookTransientFile: the user deletes
// p.txt by hand, and before ckpt watch's next sweep a hook's turn makes
// p.txt and removes it again. The turn found p.txt absent, so the bytes
// the watcher's last sweep saw are no turn's of a hook: the watcher's
// sweep records their deletion in its own turn, and a rewind of that
// turn gives them back.
func TestWatchRecordsHandDeleteUnderHookTransientFile(t *testing.T) {
	root, s, before := handDeletedSinceSweep(t)
	a, err := s.NewTurn(hookMeta)
	if err != nil {
		t.Fatal(err)
	}
	editIn(t, s, root, a, "p.txt", "p by A\n")
	if _, err := s.Remove(a, hookMeta, []string{root + "/p.txt"}); err != nil {
		t.Fatal(err)
	}
	res := watchRecordsHandDeletion(t, s)
	turnPathsAgree(t, s, string(res.Turn), []string{"p.txt"})
	rewind(t, s, string(res.Turn))
	sameTree(t, "after rewinding the watcher's turn", before, tree(t, root))
}

// TestWatchRecordsHandDeleteUnderHookTurnsWrite: the user deletes p.txt
// by hand, and before ckpt watch's next sweep a hook's turn, T, writes
// p.txt anew. T found p.txt absent and keeps absent→X; the watcher's
// sweep records the deletion of what its last sweep saw in its own
// turn, so a revert of T leaves no p.txt and a rewind of both turns
// gives the user's bytes back, each undone exactly.
func TestWatchRecordsHandDeleteUnderHookTurnsWrite(t *testing.T) {
	root, s, before := handDeletedSinceSweep(t)
	deleted := tree(t, root)
	tt, err := s.NewTurn(hookMeta)
	if err != nil {
		t.Fatal(err)
	}
	editIn(t, s, root, tt, "p.txt", "p by T\n")
	after := tree(t, root)
	res := watchRecordsHandDeletion(t, s)
	if f := fileOf(t, s, res.Turn, "p.txt"); f.Post == nil || f.Post.Kind != ImageAbsent || readImage(t, s, f.Pre) != "p, the user's\n" {
		t.Fatalf("the watcher's turn holds p.txt as %+v → %+v, want the user's bytes → absent", f.Pre, f.Post)
	}
	if f := fileOf(t, s, tt, "p.txt"); f.Pre.Kind != ImageAbsent {
		t.Fatalf("T's pre-image of p.txt is %+v, want absent", f.Pre)
	}
	p, err := s.PlanRevert(string(tt), RevertOptions{})
	if r := apply(t, s, p, err); len(r.Failed) > 0 {
		t.Fatalf("revert of T: %+v", r)
	}
	sameTree(t, "after reverting T", deleted, tree(t, root))
	if r := undo(t, s); len(r.Failed) > 0 {
		t.Fatalf("undo: %+v", r)
	}
	sameTree(t, "after undoing the revert of T", after, tree(t, root))
	if r := rewind(t, s, string(tt)); len(r.Failed) > 0 {
		t.Fatalf("rewind to before T: %+v", r)
	}
	sameTree(t, "after rewinding T and the watcher's turn", before, tree(t, root))
	if r := undo(t, s); len(r.Failed) > 0 {
		t.Fatalf("undo: %+v", r)
	}
	sameTree(t, "after undoing the rewind", after, tree(t, root))
}

// readImage is what img holds.
func readImage(t *testing.T, s *Store, img Image) string {
	t.Helper()
	data, err := s.ReadImage(img)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// handDeletedSinceSweep makes a project whose p.txt ckpt watch's last
// sweep saw and the user then deleted, and returns it, its store, and
// the folder before the deletion.
func handDeletedSinceSweep(t *testing.T) (string, *Store, map[string]string) {
	t.Helper()
	root := tempRoot(t)
	wr(t, root, "p.txt", "p, the user's\n")
	s := openStore(t, root)
	if _, err := s.SweepWatch("", watchMeta); err != nil { // the baseline
		t.Fatal(err)
	}
	before := tree(t, root)
	removePathT(t, root, "p.txt")
	return root, s, before
}

// watchRecordsHandDeletion sweeps as ckpt watch does, wanting p.txt
// recorded in a turn of the watcher's own.
func watchRecordsHandDeletion(t *testing.T, s *Store) *SweepResult {
	t.Helper()
	res, err := s.SweepWatch("", watchMeta)
	if err != nil {
		t.Fatal(err)
	}
	if res.Turn == "" || !slices.Equal(res.Changed, []string{"p.txt"}) {
		t.Fatalf("the watcher's sweep after the hand deletion recorded %v in turn %q, want p.txt in a turn of its own", res.Changed, res.Turn)
	}
	return res
}

// TestWatchedTurnAppearsWithItsFiles: the turn ckpt watch's sweep opens
// is written with its files in one append, so a reader (ckpt log, the
// UI) never lists it without them; and when that append fails (a full
// disk), no empty turn is left in the log.
func TestWatchedTurnAppearsWithItsFiles(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "a.txt", "a before\n", 0o644)
	s := openStore(t, root)
	if _, err := s.SweepWatch("", watchMeta); err != nil { // the baseline
		t.Fatal(err)
	}
	reader := openStore(t, root)
	var seen []string
	storefs.WriteFault = func(name string) error {
		if !strings.HasPrefix(name, "turns/") {
			return nil
		}
		log, err := reader.Log(false)
		if err != nil {
			t.Errorf("log while %s is written: %v", name, err)
		}
		for _, e := range log {
			if e.Kind == KindAgent && e.Files == 0 {
				seen = append(seen, e.ID)
			}
		}
		return nil
	}
	t.Cleanup(func() { storefs.WriteFault = nil })
	put(t, root, "a.txt", "a by hand\n", 0o644)
	res, err := s.SweepWatch("", watchMeta)
	if err != nil {
		t.Fatal(err)
	}
	if res.Turn == "" || !slices.Equal(res.Changed, []string{"a.txt"}) {
		t.Fatalf("the sweep recorded %v in turn %q, want a.txt in a new turn", res.Changed, res.Turn)
	}
	if len(seen) > 0 {
		t.Errorf("a reader listed turn %v with no files while the sweep wrote it", seen)
	}

	put(t, root, "a.txt", "a by hand again\n", 0o644)
	storefs.WriteFault = func(name string) error {
		if strings.HasPrefix(name, "turns/") {
			return syscall.ENOSPC
		}
		return nil
	}
	if _, err := s.SweepWatch("", watchMeta); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("the sweep on a full disk: %v, want no space", err)
	}
	storefs.WriteFault = nil
	log, err := reader.Log(false)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range log {
		if e.Kind == KindAgent && e.Files == 0 {
			t.Errorf("after a failed sweep the log lists turn %s with no files", e.ID)
		}
	}
}
