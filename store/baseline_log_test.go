package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// pathsFeed answers every sweep with the paths it holds.
type pathsFeed struct{ paths []string }

func (f *pathsFeed) Since(string) (Changes, error) {
	return Changes{Paths: f.paths, Next: "tok", Known: true}, nil
}

// bigTree writes n files in folders of 50, their times an hour back (the
// ctime stays now: they are racy until the first sweep a while on).
func bigTree(t testing.TB, root string, n int) {
	t.Helper()
	for i := range n {
		p := filepath.Join(root, fmt.Sprintf("d%03d/f%05d.txt", i/50, i))
		if i%50 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sameAsFull checks that the baseline s has on disk holds what a fresh
// full listing of the tree holds: every path, kind, mode, size and hash.
func sameAsFull(t *testing.T, s *Store, what string) {
	t.Helper()
	got, err := s.loadBaseline()
	if err != nil || got == nil {
		t.Fatalf("%s: load: %v", what, err)
	}
	now, _, _, err := walkTree(s.rootPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(now) != len(got.entries) {
		t.Fatalf("%s: the baseline holds %d entries, the tree %d", what, len(got.entries), len(now))
	}
	for i, n := range now {
		g := got.entries[i]
		if g.path != n.path || g.kind != n.kind && !(g.kind == baseFile && n.kind == baseFile) || g.mode != n.mode || g.kind != baseDir && g.size != n.size {
			t.Fatalf("%s: entry %d is %+v, the tree has %+v", what, i, g, *n)
		}
		if g.kind == baseFile {
			data, err := os.ReadFile(filepath.Join(s.rootPath, g.path))
			if err != nil || hashHex(data) != g.sum.String() {
				t.Fatalf("%s: %s: the baseline's hash is not its bytes'", what, g.path)
			}
		}
	}
}

// TestBaselineSweepAppends: a sweep after the first writes no new table:
// it appends what it changed to the log, and the baseline read back is
// the tree's; past the log's share a new table replaces both.
func TestBaselineSweepAppends(t *testing.T) {
	root, s := sweptTree(t, 2000)
	table := filepath.Join(s.path(""), baselineFile)
	fi0, err := os.Stat(table)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		wr(t, root, fmt.Sprintf("d%03d/f%05d.txt", i, i*50), fmt.Sprintf("changed %d\n", i))
		removePathT(t, root, fmt.Sprintf("d%03d/f%05d.txt", 10+i, (10+i)*50+1))
		wr(t, root, fmt.Sprintf("new%d/x.txt", i), "new\n")
		res, err := s.SweepAfter("1", TurnMeta{}, "step")
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Changed) != 3 {
			t.Fatalf("step %d recorded %v", i, res.Changed)
		}
		sameAsFull(t, s, fmt.Sprintf("step %d", i))
	}
	fi1, err := os.Stat(table)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(fi0, fi1) {
		t.Fatalf("small steps rewrote the table")
	}
	lfi, err := os.Stat(filepath.Join(s.path(""), baselineLog))
	if err != nil || lfi.Size() == 0 || lfi.Size() > fi1.Size()/4 {
		t.Fatalf("the log: %v, %v (the table is %d bytes)", lfi, err, fi1.Size())
	}
	// A step changing every file outgrows the log: a new table, no log.
	for i := range 2000 {
		wr(t, root, fmt.Sprintf("d%03d/f%05d.txt", i/50, i), "all changed\n")
	}
	if _, err := s.SweepAfter("1", TurnMeta{}, "all"); err != nil {
		t.Fatal(err)
	}
	fi2, err := os.Stat(table)
	if err != nil || os.SameFile(fi1, fi2) {
		t.Fatalf("a big step kept the table: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.path(""), baselineLog)); err == nil {
		t.Fatalf("the log outlived the new table")
	}
	sameAsFull(t, s, "after the new table")
}

// sweptTree is a store over a tree of n files (see bigTree), listed
// whole at every sweep, after its first sweep.
func sweptTree(t *testing.T, n int) (string, *Store) {
	t.Helper()
	root := t.TempDir()
	bigTree(t, root, n)
	s, err := Open(root, Options{Create: true, Feed: noFeedTest{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.SweepBefore("", TurnMeta{}, ""); err != nil {
		t.Fatal(err)
	}
	return root, s
}

// noFeedTest makes a store list the whole tree at every sweep.
type noFeedTest struct{}

func (noFeedTest) Since(string) (Changes, error) { return Changes{}, ErrNoWatcher }

func removePathT(t *testing.T, root, rel string) {
	t.Helper()
	if err := os.Remove(filepath.Join(root, rel)); err != nil {
		t.Fatal(err)
	}
}

// TestBaselineTornLog: a log cut anywhere in its last frame reads as the
// frames before it, and the next sweep cuts the torn tail and appends;
// a log naming another table's generation is passed over.
func TestBaselineTornLog(t *testing.T) {
	root, s := sweptTree(t, 200)
	wr(t, root, "d000/f00000.txt", "one\n")
	if _, err := s.SweepAfter("1", TurnMeta{}, "one"); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(s.path(""), baselineLog)
	one, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	before, err := s.loadBaseline()
	if err != nil {
		t.Fatal(err)
	}
	wr(t, root, "d001/f00050.txt", "two\n")
	wr(t, root, "d002/new.txt", "two\n")
	if _, err := s.SweepAfter("2", TurnMeta{}, "two"); err != nil {
		t.Fatal(err)
	}
	two, err := os.ReadFile(logPath)
	if err != nil || len(two) <= len(one) {
		t.Fatalf("the second step appended nothing: %v", err)
	}
	after, err := s.loadBaseline()
	if err != nil {
		t.Fatal(err)
	}
	for cut := len(one); cut < len(two); cut++ {
		if err := os.WriteFile(logPath, two[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := s.loadBaseline()
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if got.turn != before.turn || got.cmd != before.cmd || !slices.Equal(got.entries, before.entries) {
			t.Fatalf("cut at %d of %d: not the baseline before the torn frame", cut, len(two))
		}
		if turn, _ := s.SweptTurn(); turn != "1" {
			t.Fatalf("cut at %d: the head says turn %q", cut, turn)
		}
	}
	// The next sweep cuts the tail and appends: what the torn step saw
	// is found again and recorded.
	if err := os.WriteFile(logPath, two[:len(two)-3], 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := s.SweepAfter("3", TurnMeta{}, "three")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Changed, []string{"d001/f00050.txt", "d002/new.txt"}) {
		t.Fatalf("after a torn frame the next step recorded %v", res.Changed)
	}
	sameAsFull(t, s, "after the torn frame")
	got, err := s.loadBaseline()
	if err != nil || !slices.Equal(got.entries, after.entries[:0:0]) && len(got.entries) != len(after.entries) {
		t.Fatalf("read back: %v", err)
	}
	// A log of another generation (a compaction killed before it removed
	// the old log) is passed over.
	data, _ := os.ReadFile(logPath)
	stale := bytes.Clone(data)
	stale[len(baselineLogMagic)] ^= 1
	if err := os.WriteFile(logPath, stale, 0o600); err != nil {
		t.Fatal(err)
	}
	table, err := s.openBaseline(true)
	if err != nil || table == nil {
		t.Fatal(err)
	}
	table.close()
	if len(table.src.over) != 0 {
		t.Fatalf("a stale log was read")
	}
}

// TestBaselineSkipReadsNoEntries: the sweep before a later command of
// the same turn reads the baseline's head alone: with every block of
// the table damaged it still sees that it has nothing to do.
func TestBaselineSkipReadsNoEntries(t *testing.T) {
	root := t.TempDir()
	bigTree(t, root, 500)
	s, err := Open(root, Options{Create: true, Feed: noFeedTest{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.SweepBefore("1", TurnMeta{}, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepAfter("1", TurnMeta{}, "a"); err != nil {
		t.Fatal(err)
	}
	table := filepath.Join(s.path(""), baselineFile)
	data, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	head, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	// Damage the middle of the file, where the blocks are.
	for i := len(data) / 4; i < len(data)*3/4; i += 97 {
		data[i] ^= 0x5a
	}
	if err := os.WriteFile(table, data, 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := s.SweepBefore("1", TurnMeta{}, "b")
	if err != nil || !res.Skipped {
		t.Fatalf("skip: %+v, %v", res, err)
	}
	if errs, _ := s.Errors(); len(errs) != 0 {
		t.Fatalf("the skip read the entries: %v", errs)
	}
	// A sweep that needs them finds the damage and reads every file.
	res, err = s.SweepBefore("2", TurnMeta{}, "c")
	if err != nil || !res.Fresh {
		t.Fatalf("after damage: %+v, %v", res, err)
	}
	_ = head
}

// TestBaselineFedReadsFewBlocks: a watcher-fed sweep of a tree of
// 20,000 files reads a few blocks of the table, not all of them, and
// finds what a full sweep finds.
func TestBaselineFedReadsFewBlocks(t *testing.T) {
	root := t.TempDir()
	bigTree(t, root, 20000)
	feed := &pathsFeed{}
	s, err := Open(root, Options{Create: true, Feed: feed})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.SweepBefore("", TurnMeta{}, ""); err != nil {
		t.Fatal(err)
	}
	// Let the files age past the racy window, and settle them.
	time.Sleep(racyWindowTest())
	if _, err := s.SweepBefore("", TurnMeta{}, ""); err != nil {
		t.Fatal(err)
	}
	wr(t, root, "d123/f06160.txt", "changed\n")
	wr(t, root, "d300/new/n.txt", "new\n")
	feed.paths = []string{"d123/f06160.txt", "d300/new", "d300/new/n.txt"}
	old, err := s.openBaseline(true)
	if err != nil || old == nil {
		t.Fatal(err)
	}
	defer old.close()
	l, ok, err := walkFed(s.rootPath, nil, old, feed.paths)
	if err != nil || !ok {
		t.Fatalf("fed walk: %v %v", ok, err)
	}
	blocks := old.src.table.t.Blocks()
	if read := len(old.src.table.blocks); read > 30 || read*10 > blocks {
		t.Fatalf("the fed walk read %d of %d blocks", read, blocks)
	}
	if len(l.old) > 200 {
		t.Fatalf("the fed walk covered %d old entries", len(l.old))
	}
	res, err := s.SweepAfter("1", TurnMeta{}, "step")
	if err != nil || res.Feed != FeedFed {
		t.Fatalf("fed sweep: %+v %v", res, err)
	}
	if !slices.Equal(res.Changed, []string{"d123/f06160.txt", "d300/new/n.txt"}) {
		t.Fatalf("fed sweep recorded %v", res.Changed)
	}
	sameAsFull(t, s, "after the fed sweep")
}

// racyWindowTest is how long a test waits for files to age past the
// racy window.
func racyWindowTest() time.Duration { return time.Duration(racyWindow) + 100*time.Millisecond }

// TestBaselineLegacyLoads: a baseline of version 4 (one file, written
// whole) still serves a sweep, which records against it and makes it a
// table.
func TestBaselineLegacyLoads(t *testing.T) {
	root, s := sweptTree(t, 100)
	b, err := s.loadBaseline()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.path(""), baselineFile), b.encode(), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := s.loadBaseline()
	if err != nil || !slices.Equal(got.entries, b.entries) || !sameRules(got.rules, b.rules) {
		t.Fatalf("version 4 read back: %v", err)
	}
	wr(t, root, "d001/f00051.txt", "changed\n")
	res, err := s.SweepAfter("1", TurnMeta{}, "step")
	if err != nil || !slices.Equal(res.Changed, []string{"d001/f00051.txt"}) {
		t.Fatalf("sweep on version 4: %+v %v", res, err)
	}
	data, err := os.ReadFile(filepath.Join(s.path(""), baselineFile))
	if err != nil || !bytes.HasPrefix(data, []byte(baselineMagic)) {
		t.Fatalf("not a table now: %v", err)
	}
	sameAsFull(t, s, "after the sweep on version 4")
}

// TestBaselineBackgroundPassFolds: sweeps past the log's share keep
// appending (a new table is the background pass's work, off the hook's
// path); the pass then writes one holding the same baseline, and drops
// the log; a sweep writes one itself only past sweepLogLimit.
func TestBaselineBackgroundPassFolds(t *testing.T) {
	root, s := sweptTree(t, 2000)
	dir := s.path("")
	table := filepath.Join(dir, baselineFile)
	fi0, err := os.Stat(table)
	if err != nil {
		t.Fatal(err)
	}
	limit := logLimit(fi0.Size())
	step := 0
	logSize := func() int64 {
		fi, err := os.Stat(filepath.Join(dir, baselineLog))
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	sweep := func() {
		t.Helper()
		for j := range 100 {
			i := (step*100 + j) % 2000
			wr(t, root, fmt.Sprintf("d%03d/f%05d.txt", i/50, i), fmt.Sprintf("step %d\n", step))
		}
		step++
		if _, err := s.SweepAfter("1", TurnMeta{}, "step"); err != nil {
			t.Fatal(err)
		}
	}
	for logSize() <= limit {
		if s.baselineDue() {
			t.Fatalf("due with a log of %d bytes, its share %d", logSize(), limit)
		}
		sweep()
	}
	if fi, err := os.Stat(table); err != nil || !os.SameFile(fi0, fi) {
		t.Fatalf("a sweep wrote a new table at a log of %d bytes (its share %d): %v", logSize(), limit, err)
	}
	if !s.baselineDue() || !s.MaintenanceDue() {
		t.Fatalf("a log of %d bytes past its share %d is no background work", logSize(), limit)
	}
	before, err := s.loadBaseline()
	if err != nil || before == nil {
		t.Fatal(err)
	}
	res, err := s.Maintain(Budget{}, false)
	if err != nil || !res.Baseline {
		t.Fatalf("the pass: %+v, %v", res, err)
	}
	if fi, err := os.Stat(table); err != nil || os.SameFile(fi0, fi) {
		t.Fatalf("the pass kept the table: %v", err)
	}
	if n := logSize(); n != 0 {
		t.Fatalf("the log outlived the new table: %d bytes", n)
	}
	after, err := s.loadBaseline()
	if err != nil || after == nil {
		t.Fatal(err)
	}
	if after.at != before.at || after.turn != before.turn || after.cmd != before.cmd || after.ops != before.ops ||
		!slices.Equal(after.recheck, before.recheck) || !sameRules(after.rules, before.rules) || !slices.Equal(after.entries, before.entries) {
		t.Fatalf("the new table is another baseline: head %d %q %q %d, was %d %q %q %d", after.at, after.turn, after.cmd, after.ops, before.at, before.turn, before.cmd, before.ops)
	}
	sameAsFull(t, s, "after the pass")
	if s.baselineDue() {
		t.Fatal("still due after the pass")
	}
	// With no pass, sweeps go on appending up to sweepLogLimit, then
	// write a table themselves.
	fi1, _ := os.Stat(table)
	for logSize() > 0 || step < 3 {
		sweep()
		fi, err := os.Stat(table)
		if err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(fi1, fi) {
			break
		}
		if n := logSize(); n > sweepLogLimit(fi1.Size()) {
			t.Fatalf("the log grew to %d bytes, past %d", n, sweepLogLimit(fi1.Size()))
		}
	}
	sameAsFull(t, s, "after the sweeps' own table")
}
