package store

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// agentTurn records turn id writing each path of files (a "" value
// deletes it), sealed, as a hook would.
func agentTurn(t *testing.T, s *Store, id string, files map[string]string) {
	t.Helper()
	root := s.Root()
	var abs []string
	for _, p := range slices.Sorted(mapsKeys(files)) {
		abs = append(abs, filepath.Join(root, p))
	}
	if _, err := s.Capture(TurnID(id), TurnMeta{Label: "turn " + id}, abs); err != nil {
		t.Fatal(err)
	}
	for p, v := range files {
		if v == "" {
			os.Remove(filepath.Join(root, p))
			continue
		}
		wr(t, root, p, v)
	}
	if err := s.Seal(TurnID(id), abs); err != nil {
		t.Fatal(err)
	}
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func statusOf(t *testing.T, s *Store, turn, path string) File {
	t.Helper()
	fs, err := s.Files(turn, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.Path == path {
			return f
		}
	}
	t.Fatalf("turn %s has no %s", turn, path)
	return File{}
}

func entry(t *testing.T, s *Store, id string) Entry {
	t.Helper()
	es, err := s.Log(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.ID == id {
			return e
		}
	}
	t.Fatalf("no log entry %s", id)
	return Entry{}
}

func TestApplyOutdatedPlanChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, s *Store, root string)
		says   string
	}{
		{"file edited", func(t *testing.T, s *Store, root string) { wr(t, root, "a.txt", "edited after the plan") }, "a.txt changed on disk"},
		{"turn arrived", func(t *testing.T, s *Store, root string) {
			agentTurn(t, s, "2", map[string]string{"c.txt": "C2"})
		}, "the turns are now 1, 2"},
		{"mode changed", func(t *testing.T, s *Store, root string) { os.Chmod(filepath.Join(root, "b.txt"), 0o600) }, "b.txt changed on disk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			wr(t, root, "a.txt", "A0")
			wr(t, root, "b.txt", "B0")
			s := openStore(t, root)
			agentTurn(t, s, "1", map[string]string{"a.txt": "A1", "b.txt": "B1"})
			p, err := s.PlanRewind("1")
			if err != nil {
				t.Fatal(err)
			}
			if len(p.ID) != planIDLen {
				t.Fatalf("plan id %q", p.ID)
			}
			again, _ := s.PlanRewind("1")
			if again.ID != p.ID {
				t.Fatalf("the same plan made twice has ids %s and %s", p.ID, again.ID)
			}
			tc.change(t, s, root)
			before := snapshot(t, root)
			opsBefore, _ := os.ReadFile(filepath.Join(root, storeDir, "ops.log"))
			res, err := s.Apply(p, nil)
			if !errors.Is(err, ErrPlanChanged) || res != nil {
				t.Fatalf("Apply of an outdated plan: %+v, %v; want ErrPlanChanged", res, err)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %q does not say %q", err, tc.says)
			}
			if after := snapshot(t, root); !maps2Equal(before, after) {
				t.Errorf("the folder changed:\n%v\n%v", before, after)
			}
			if ops, _ := os.ReadFile(filepath.Join(root, storeDir, "ops.log")); string(ops) != string(opsBefore) {
				t.Errorf("an operation was logged: %s", ops)
			}
			// The plan made now applies.
			q, err := s.PlanRewind("1")
			if q == nil || q.ID == p.ID {
				t.Fatalf("new plan %v, %v", q, err)
			}
			if res := apply(t, s, q, err); res.Plan != q.ID {
				t.Errorf("result plan %q, want %q", res.Plan, q.ID)
			}
			if got := rd(t, root, "a.txt"); got != "A0" {
				t.Errorf("a.txt %q after the new plan", got)
			}
		})
	}
}

// snapshot maps each file under root (the store aside) to its bytes and
// mode.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == ".osfoundry" {
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			out[rel+"/"] = fi.Mode().String()
			return nil
		}
		b, _ := os.ReadFile(p)
		out[rel] = fi.Mode().String() + " " + string(b)
		return nil
	})
	return out
}

func maps2Equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// equalFiles reports whether the files under root (the store aside) hold
// exactly want.
func equalFiles(t *testing.T, root string, want map[string]string) bool {
	got := map[string]string{}
	for p, v := range snapshot(t, root) {
		if !strings.HasSuffix(p, "/") {
			_, got[filepath.ToSlash(p)], _ = strings.Cut(v, " ")
		}
	}
	return maps2Equal(got, want)
}

func TestRewindExceptKeepsPathsAndUndoIsExact(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	wr(t, root, "b.txt", "B0")
	s := openStore(t, root)
	agentTurn(t, s, "1", map[string]string{"a.txt": "A1", "b.txt": "B1", "new.txt": "N1"})
	wr(t, root, "b.txt", "B1 and a hand edit")
	before := snapshot(t, root)
	if _, err := s.PlanRewind("1", "nope.txt"); err == nil {
		t.Fatal("keeping a path the rewind does not touch: no error")
	}
	p, err := s.PlanRewind("1", filepath.Join(root, "b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	full, _ := s.PlanRewind("1")
	if full.ID == p.ID || !slices.Equal(p.Keep, []string{"b.txt"}) {
		t.Fatalf("keep %v, ids %s %s", p.Keep, p.ID, full.ID)
	}
	res := apply(t, s, p, nil)
	if !slices.Equal(res.Kept, []string{"b.txt"}) || !slices.Equal(res.Restored, []string{"a.txt"}) || !slices.Equal(res.Deleted, []string{"new.txt"}) {
		t.Fatalf("result %+v", res)
	}
	if rd(t, root, "b.txt") != "B1 and a hand edit" || rd(t, root, "a.txt") != "A0" {
		t.Fatalf("a %q b %q", rd(t, root, "a.txt"), rd(t, root, "b.txt"))
	}
	// The kept path, changed again, is not the undo's to touch.
	wr(t, root, "b.txt", "edited after the selective rewind")
	undo(t, s)
	before["b.txt"] = "-rw-r--r-- edited after the selective rewind"
	if after := snapshot(t, root); !maps2Equal(before, after) {
		t.Errorf("undo of a selective rewind:\n got %v\nwant %v", after, before)
	}
	if fs, err := s.Verify(); err != nil || len(fs) > 0 {
		t.Errorf("verify after a selective rewind: %v %+v", err, fs)
	}
}

// TestFailedRewindStaysRetryable: a rewind every step of which failed
// leaves its turns active; one that failed some paths offers a retry of
// just those, and the failed path is failed, not changed since the agent.
func TestFailedRewindStaysRetryable(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	wr(t, root, "b.txt", "B0")
	s := openStore(t, root)
	agentTurn(t, s, "1", map[string]string{"a.txt": "A1", "b.txt": "B1"})

	// A folder stands where both files go: nothing can be restored.
	clearA, clearB := folderInTheWay(t, root, "a.txt"), folderInTheWay(t, root, "b.txt")
	res := rewind(t, s, "1")
	if len(res.Failed) != 2 {
		t.Fatalf("result %+v", res)
	}
	if e := entry(t, s, "1"); e.State != StateActive {
		t.Fatalf("turn 1 is %s after a rewind that failed every path", e.State)
	}
	if e := entry(t, s, res.Op); e.State != StateFailed {
		t.Fatalf("%s is %s, want failed", res.Op, e.State)
	}
	if _, err := s.PlanUndo(false); !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("undo after a rewind that changed nothing: %v", err)
	}

	// One obstacle gone: the rewind restores a.txt and fails b.txt.
	clearA()
	r1 := rewind(t, s, "1")
	if !slices.Equal(r1.Restored, []string{"a.txt"}) || len(r1.Failed) != 1 || r1.Failed[0].Path != "b.txt" {
		t.Fatalf("result %+v", r1)
	}
	if e := entry(t, s, "1"); e.State != StateRewound {
		t.Fatalf("turn 1 is %s", e.State)
	}
	f := statusOf(t, s, "1", "b.txt")
	if f.Status != StatusFailed || f.HandEdited || f.Reason == "" {
		t.Fatalf("b.txt: status %s hand %v reason %q; want failed with a reason", f.Status, f.HandEdited, f.Reason)
	}
	if fl, _ := s.Failures(); len(fl) != 1 || fl[0].Path != "b.txt" || fl[0].Op != r1.Op {
		t.Fatalf("Failures %+v", fl)
	}
	if e := entry(t, s, r1.Op); len(e.Failed) != 1 || e.State != StateActive {
		t.Fatalf("%s: %+v", r1.Op, e)
	}

	// Rewinding turn 1 again retries just b.txt.
	clearB()
	p, err := s.PlanRewind("1")
	if err != nil {
		t.Fatal(err)
	}
	if p.Retry != r1.Op || len(p.Steps) != 1 || p.Steps[0].Path != "b.txt" || p.Steps[0].HandEdited {
		t.Fatalf("retry plan %+v", p)
	}
	r2 := apply(t, s, p, nil)
	if rd(t, root, "b.txt") != "B0" || len(r2.Failed) != 0 {
		t.Fatalf("retry: %+v, b.txt %q", r2, rd(t, root, "b.txt"))
	}
	if fl, _ := s.Failures(); len(fl) != 0 {
		t.Fatalf("Failures after the retry %+v", fl)
	}
	if _, err := s.PlanRewind("1"); !errors.Is(err, ErrRewound) {
		t.Fatalf("rewind after a full retry: %v", err)
	}
	// The retry is undone on its own, then the rewind.
	undo(t, s)
	if rd(t, root, "b.txt") != "B1" || rd(t, root, "a.txt") != "A0" || entry(t, s, "1").State != StateRewound {
		t.Fatalf("after undoing the retry: a %q b %q", rd(t, root, "a.txt"), rd(t, root, "b.txt"))
	}
	undo(t, s)
	if rd(t, root, "b.txt") != "B1" || rd(t, root, "a.txt") != "A1" || entry(t, s, "1").State != StateActive {
		t.Fatalf("after undoing both: a %q b %q", rd(t, root, "a.txt"), rd(t, root, "b.txt"))
	}
}

// TestRedoAfterFailedUndo: an undo failed a path (a folder stood where
// the file goes), and instead of running undo again the user clears the
// way, redoes and then undoes: the agent's bytes come back all the same,
// the folder the path is in made again where it is gone by the redo.
func TestRedoAfterFailedUndo(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before map[string]string // the folder before the agent's turn
		agent  map[string]string // what the turn writes
		path   string            // where a folder stands in the undo's way
		clear  string            // removed before the redo
	}{
		{"the path in the way", map[string]string{"a.txt": "A0"}, map[string]string{"a.txt": "A1", "n.txt": "N1"}, "n.txt", "n.txt"},
		{"into a missing folder", map[string]string{"d/n.txt": "N0"}, map[string]string{"d/n.txt": "N1", "a.txt": "A1"}, "d/n.txt", "d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for p, data := range tc.before {
				wr(t, root, p, data)
			}
			s := openStore(t, root)
			agentTurn(t, s, "1", tc.agent)
			rewind(t, s, "1")
			os.RemoveAll(filepath.Join(root, tc.path))
			os.MkdirAll(filepath.Join(root, tc.path, "in the way"), 0o755)
			if r := undo(t, s); len(r.Failed) != 1 {
				t.Fatalf("undo %+v", r)
			}
			os.RemoveAll(filepath.Join(root, tc.clear))
			if r := redo(t, s); len(r.Failed) != 0 {
				t.Fatalf("redo %+v", r)
			}
			if r := undo(t, s); len(r.Failed) != 0 {
				t.Fatalf("undo %+v", r)
			}
			for p, want := range tc.agent {
				if got := rd(t, root, p); got != want {
					t.Errorf("%s %q after redo and undo, want the agent's %q", p, got, want)
				}
			}
			if fs, err := s.Verify(); err != nil || len(fs) > 0 {
				t.Fatalf("verify: %v %+v", err, fs)
			}
		})
	}
}

// TestFailedUndoIsRetried is the case where an undo's step failed (a
// folder stood where the file goes): undo again retries it, and the
// agent's bytes come back.
func TestFailedUndoIsRetried(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	wr(t, root, "b.txt", "B0")
	s := openStore(t, root)
	agentTurn(t, s, "1", map[string]string{"a.txt": "A1", "b.txt": "B1", "n.txt": "N1"})
	rewind(t, s, "1")
	os.MkdirAll(filepath.Join(root, "n.txt", "in the way"), 0o755)
	r := undo(t, s)
	if len(r.Failed) != 1 || r.Failed[0].Path != "n.txt" {
		t.Fatalf("undo result %+v", r)
	}
	os.RemoveAll(filepath.Join(root, "n.txt"))
	u, err := s.PlanUndo(false)
	if err != nil {
		t.Fatalf("undo again, to retry: %v", err)
	}
	if u.Retry != r.Op || len(u.Steps) != 1 {
		t.Fatalf("retry plan %+v", u)
	}
	apply(t, s, u, nil)
	if rd(t, root, "n.txt") != "N1" {
		t.Fatalf("n.txt %q after the retry", rd(t, root, "n.txt"))
	}
	if _, err := s.PlanUndo(false); !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("undo after the retry: %v", err)
	}
	// Redo then undo brings back the agent's bytes.
	redo(t, s)
	undo(t, s)
	for p, want := range map[string]string{"a.txt": "A1", "b.txt": "B1", "n.txt": "N1"} {
		if got := rd(t, root, p); got != want {
			t.Errorf("%s %q, want %q", p, got, want)
		}
	}
}

// TestWriteFaults fails the k-th write of a rewind, an undo and a redo
// (a blob, a record or a restored file) with ENOSPC and with EIO, for
// every k. No file is ever torn; the failed paths are reported, and the
// same command again finishes the job, after which undo and redo move
// between exactly the two states.
func TestWriteFaults(t *testing.T) {
	big := strings.Repeat("the agent's long line\n", 30000) // 660 KB
	s0 := map[string]string{"a.txt": "A0", "big.txt": strings.Repeat("before\n", 20000), "c.txt": "C0"}
	s1 := map[string]string{"a.txt": "A1", "big.txt": big, "c.txt": "C0", "n/new.txt": "N1"}
	valid := map[string]bool{}
	for _, m := range []map[string]string{s0, s1} {
		for p, v := range m {
			valid[p+"\x00"+v] = true
		}
	}
	check := func(t *testing.T, root, when string) {
		t.Helper()
		for p, v := range snapshot(t, root) {
			if strings.HasSuffix(p, "/") {
				continue
			}
			_, data, _ := strings.Cut(v, " ")
			if !valid[filepath.ToSlash(p)+"\x00"+data] {
				t.Fatalf("%s: %s holds %d bytes that are neither before nor after (torn?)", when, p, len(data))
			}
		}
	}
	same := func(t *testing.T, root string, want map[string]string, when string) {
		t.Helper()
		if !equalFiles(t, root, want) {
			t.Fatalf("%s: the folder differs from the state wanted", when)
		}
	}
	type step struct {
		name string
		plan func(s *Store) (*Plan, error)
		want map[string]string
	}
	steps := []step{
		{"rewind", func(s *Store) (*Plan, error) { return s.PlanRewind("1") }, s0},
		{"undo", func(s *Store) (*Plan, error) { return s.PlanUndo(false) }, s1},
		{"redo", func(s *Store) (*Plan, error) { return s.PlanRedo(false) }, s0},
	}
	defer func() { storefs.WriteFault = nil }()
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EIO} {
		for i, st := range steps {
			for k := 1; ; k++ {
				root := t.TempDir()
				for p, v := range s0 {
					wr(t, root, p, v)
				}
				s := openStore(t, root)
				agentTurn(t, s, "1", map[string]string{"a.txt": "A1", "big.txt": big, "n/new.txt": "N1"})
				for _, prev := range steps[:i] {
					p, err := prev.plan(s)
					apply(t, s, p, err)
				}
				p, err := st.plan(s)
				if err != nil {
					t.Fatal(err)
				}
				var count atomic.Int64
				storefs.WriteFault = func(string) error {
					if count.Add(1) == int64(k) {
						return errno
					}
					return nil
				}
				res, err := s.Apply(p, nil)
				storefs.WriteFault = nil
				n := int(count.Load())
				when := st.name + " with " + errno.Error() + " at write " + strconv.Itoa(k)
				check(t, root, when)
				if n < k {
					if err != nil || len(res.Failed) > 0 {
						t.Fatalf("%s: no fault, yet %+v %v", when, res, err)
					}
					same(t, root, st.want, when)
					break
				}
				// Reopen (recovering whatever the fault left) and run the
				// same command until nothing fails.
				s.Close()
				s = openStore(t, root)
				check(t, root, when+", reopened")
				for try := 0; ; try++ {
					if try == 3 {
						t.Fatalf("%s: still failing after %d tries", when, try)
					}
					p, err := st.plan(s)
					if errors.Is(err, ErrNothingToUndo) || errors.Is(err, ErrNothingToRedo) || errors.Is(err, ErrRewound) {
						break
					}
					res := apply(t, s, p, err)
					check(t, root, when+", retried")
					if len(res.Failed) == 0 {
						break
					}
				}
				same(t, root, st.want, when+", retried")
				// Undo and redo move between exactly the two states.
				cycle := []step{steps[1], steps[2]}
				if st.name == "undo" {
					cycle = []step{steps[2], steps[1]}
				}
				for _, next := range cycle {
					// A rewind's retry is an operation of its own: undo
					// and redo take it and the rewind one at a time.
					for try := 0; ; try++ {
						p, err := next.plan(s)
						if err != nil {
							t.Fatalf("%s, then %s (%d): %v", when, next.name, try, err)
						}
						apply(t, s, p, nil)
						check(t, root, when+", then "+next.name)
						if try == 1 || st.name != "rewind" || equalFiles(t, root, next.want) {
							break
						}
					}
					same(t, root, next.want, when+", then "+next.name)
				}
			}
		}
	}
}

// TestRecoveryLeavesEditedFilesAlone: an operation killed part-way, then a
// file it had not reached edited by hand: recovery finishes the rest and
// leaves the edit alone, reported, never overwritten.
func TestRecoveryLeavesEditedFilesAlone(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	wr(t, root, "b.txt", "B0")
	wr(t, root, "c.txt", "C0")
	s := openStore(t, root)
	agentTurn(t, s, "1", map[string]string{"a.txt": "A1", "b.txt": "B1", "c.txt": "C1"})
	rewind(t, s, "1")
	s.Close()
	// As a kill after a.txt was written leaves it: b and c not yet reached.
	stripLastDone(t, root)
	wr(t, root, "b.txt", "B1")
	wr(t, root, "c.txt", "C1")
	wr(t, root, "b.txt", "edited after the crash")
	var told []string
	s2, err := Open(root, Options{Notify: func(m string) { told = append(told, m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := rd(t, root, "b.txt"); got != "edited after the crash" {
		t.Fatalf("recovery overwrote an edit made after the crash: b.txt %q", got)
	}
	if rd(t, root, "a.txt") != "A0" || rd(t, root, "c.txt") != "C0" {
		t.Fatalf("recovery did not finish: a %q c %q", rd(t, root, "a.txt"), rd(t, root, "c.txt"))
	}
	if len(told) != 1 || !strings.Contains(told[0], "b.txt") {
		t.Fatalf("recovery said %q", told)
	}
	fl, _ := s2.Failures()
	if len(fl) != 1 || fl[0].Path != "b.txt" {
		t.Fatalf("Failures %+v", fl)
	}
	// Undo leaves the edit as it is too: the rewind never changed b.txt.
	undo(t, s2)
	if rd(t, root, "b.txt") != "edited after the crash" || rd(t, root, "a.txt") != "A1" {
		t.Fatalf("after undo: a %q b %q", rd(t, root, "a.txt"), rd(t, root, "b.txt"))
	}
}

func TestModesFromRecordsArePermissionBitsOnly(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "tool", "#!/bin/sh\n")
	wr(t, root, "same", "#!/bin/sh\n")
	os.Chmod(filepath.Join(root, "tool"), 0o755)
	os.Chmod(filepath.Join(root, "same"), 0o755)
	s := openStore(t, root)
	// The agent rewrites one and only changes the other's mode.
	agentTurn(t, s, "1", map[string]string{"tool": "changed\n"})
	abs := filepath.Join(root, "same")
	s.Capture("1", TurnMeta{}, []string{abs})
	os.Chmod(abs, 0o644)
	s.Seal("1", []string{abs})
	s.Close()
	// Tamper with the records: the pre-images' modes carry setuid, setgid
	// and sticky, as Go's FileMode and as Unix write them.
	name := filepath.Join(root, storeDir, "turns", "1.log")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, r := range record.Decode(data).Recs {
		if r.R == "pre" {
			r.Img.Mode = uint32(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) | 0o4000 | 0o2000 | 0o755
		}
		out = record.Append(out, &r)
	}
	os.WriteFile(name, out, 0o600)
	s = openStore(t, root)
	if res := rewind(t, s, "1"); len(res.Failed) > 0 {
		t.Errorf("failed %+v", res.Failed)
	}
	for _, f := range []string{"tool", "same"} {
		fi, err := os.Lstat(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != 0o755 || rd(t, root, f) != "#!/bin/sh\n" {
			t.Errorf("%s restored with mode %v (%q), want -rwxr-xr-x and nothing more", f, fi.Mode(), rd(t, root, f))
		}
	}
}

func TestFolderModesKeptThroughRewindAndUndo(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	// The agent makes a private folder with a file in it.
	abs := filepath.Join(root, "secret", "deep", "key.txt")
	if _, err := s.Capture("1", TurnMeta{}, []string{abs}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(abs), 0o700)
	os.Chmod(filepath.Join(root, "secret"), 0o710)
	os.WriteFile(abs, []byte("k"), 0o600)
	if err := s.Seal("1", []string{abs}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, root)
	rewind(t, s, "1")
	if _, err := os.Lstat(filepath.Join(root, "secret")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the rewind left secret/: %v", err)
	}
	undo(t, s)
	if after := snapshot(t, root); !maps2Equal(before, after) {
		t.Fatalf("after rewind and undo:\n got %v\nwant %v", after, before)
	}
}

// TestPoisonedStatCacheCostsOnlyReads: a cache entry vouching for bytes
// the file does not hold may cost a read, never a skipped restore.
func TestPoisonedStatCacheCostsOnlyReads(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	s := openStore(t, root)
	agentTurn(t, s, "1", map[string]string{"a.txt": "A1"})
	s.Close()
	// The entry says a.txt (as it stands) holds A0, long since hashed.
	fi, err := os.Lstat(filepath.Join(root, "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	poison := map[string]statEntry{"a.txt": {Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Ctime: ctimeOf(st),
		Ino: uint64(st.Ino), Mode: uint32(fi.Mode().Perm()), SHA: blobIDOf([]byte("A0")), When: time.Now().Add(time.Hour).UnixNano()}}
	data, _ := json.Marshal(poison)
	os.WriteFile(filepath.Join(root, storeDir, statCacheFile), data, 0o600)
	s = openStore(t, root)
	rewind(t, s, "1")
	if got := rd(t, root, "a.txt"); got != "A0" {
		t.Fatalf("a.txt %q after the rewind: the poisoned cache skipped the restore", got)
	}
}

// TestHandEditRule follows CONTRACT.md's "Changed outside ckpt": expected
// bytes come from the newest active turn's seal, operations never change
// them, and a path captured but not yet sealed is being written.
func TestHandEditRule(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	s := openStore(t, root)
	agentTurn(t, s, "1", map[string]string{"a.txt": "A1"})
	wr(t, root, "a.txt", "A1 and a hand edit")
	if f := statusOf(t, s, "1", "a.txt"); f.Status != StatusHandEdited {
		t.Fatalf("before the rewind: %s", f.Status)
	}
	rewind(t, s, "1")
	if f := statusOf(t, s, "1", "a.txt"); f.HandEdited {
		t.Fatalf("rewound: nothing is expected, yet %s", f.Status)
	}
	undo(t, s)
	if f := statusOf(t, s, "1", "a.txt"); f.Status != StatusHandEdited || !f.HandEdited {
		t.Fatalf("after rewind and undo the hand edit is back, status %s", f.Status)
	}
	// Turn 2 captures a.txt and has not sealed it: being written.
	if _, err := s.Capture("2", TurnMeta{}, []string{filepath.Join(root, "a.txt")}); err != nil {
		t.Fatal(err)
	}
	wr(t, root, "a.txt", "the agent, mid-write")
	f := statusOf(t, s, "2", "a.txt")
	if f.HandEdited || !f.Writing || f.Status == StatusHandEdited {
		t.Fatalf("mid-turn: status %s hand %v writing %v", f.Status, f.HandEdited, f.Writing)
	}
	if err := s.Seal("2", []string{filepath.Join(root, "a.txt")}); err != nil {
		t.Fatal(err)
	}
	if f := statusOf(t, s, "2", "a.txt"); f.HandEdited || f.Writing {
		t.Fatalf("sealed: %+v", f)
	}
}

// A path captured and never sealed (the agent's first write to it is
// under way) is being written, as one captured after an earlier seal is;
// a seed store's captures, which never have seals, are not.
func TestWritingWithoutAnySeal(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	wr(t, root, "b.txt", "B0")
	s := openStore(t, root)
	if _, err := s.Capture("1", TurnMeta{}, []string{filepath.Join(root, "a.txt")}); err != nil {
		t.Fatal(err)
	}
	wr(t, root, "a.txt", "the agent, mid-write")
	if f := statusOf(t, s, "1", "a.txt"); !f.Writing || f.HandEdited || f.Status != StatusModified {
		t.Fatalf("captured, never sealed: status %s hand %v writing %v", f.Status, f.HandEdited, f.Writing)
	}
	if err := s.Seal("1", []string{filepath.Join(root, "a.txt")}); err != nil {
		t.Fatal(err)
	}
	if f := statusOf(t, s, "1", "a.txt"); f.Writing {
		t.Fatalf("sealed, still writing: %+v", f)
	}
	// Rewound, the capture is no one's: nothing is being written.
	if _, err := s.Capture("2", TurnMeta{}, []string{filepath.Join(root, "b.txt")}); err != nil {
		t.Fatal(err)
	}
	rewind(t, s, "2")
	if f := statusOf(t, s, "2", "b.txt"); f.Writing {
		t.Fatalf("rewound turn's capture still writing: %+v", f)
	}
	s.Close()

	seed := t.TempDir()
	wr(t, seed, "c.txt", "C")
	if err := os.MkdirAll(filepath.Join(seed, storeDir), 0o700); err != nil {
		t.Fatal(err)
	}
	idx := `[{"turn": 1, "at": 1, "files": [{"path": "c.txt", "pre": {"kind": "absent"}}]}]`
	if err := os.WriteFile(filepath.Join(seed, storeDir, "index.json"), []byte(idx), 0o600); err != nil {
		t.Fatal(err)
	}
	ss := openStore(t, seed)
	if f := statusOf(t, ss, "1", "c.txt"); f.Writing {
		t.Fatalf("a seed store's capture is being written: %+v", f)
	}
}
