package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Found by the model-based test: what stands on a path's way now, put
// there after the path was recorded.

// A folder a command replaced by a link that loops (or leads out of the
// project): the files it held are deleted by the turn, not changed by
// hand behind a link that cannot be read.
func TestFilesBehindALoopingLinkAreGone(t *testing.T) {
	for _, target := range []string{"src/main.go", "/"} {
		t.Run(target, func(t *testing.T) {
			root := tempRoot(t)
			put(t, root, "src/main.go", "package main\n", 0o644)
			s := openStore(t, root)
			turn, _ := s.NewTurn(TurnMeta{})
			if _, err := s.SweepBefore(turn, TurnMeta{}, "cmd"); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(filepath.Join(root, "src"))
			if err := os.Symlink(target, filepath.Join(root, "src")); err != nil {
				t.Fatal(err)
			}
			if _, err := s.SweepAfter(turn, TurnMeta{}, "cmd"); err != nil {
				t.Fatal(err)
			}
			files, err := s.Files(string(turn), true)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.Path == "src/main.go" && f.Status != StatusDeleted {
					t.Errorf("src/main.go: %s (%+v), want deleted", f.Status, f.Disk)
				}
			}
			rewind(t, s, string(turn))
			if b, err := os.ReadFile(filepath.Join(root, "src/main.go")); err != nil || string(b) != "package main\n" {
				t.Fatalf("after the rewind src/main.go holds %q, %v", b, err)
			}
		})
	}
}

// An undo gives back the folders its rewind removed, but never through a
// link that stands on their way now: the folder would be made inside
// whatever the link leads to.
func TestUndoMakesNoFolderThroughALink(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "other/keep", "k\n", 0o644)
	s := openStore(t, root)
	if _, err := s.Capture("1", TurnMeta{}, []string{"new/deep/x.txt", "new/y.txt"}); err != nil {
		t.Fatal(err)
	}
	put(t, root, "new/deep/x.txt", "x\n", 0o644)
	put(t, root, "new/y.txt", "y\n", 0o644)
	if err := s.Seal("1", []string{"new/deep/x.txt", "new/y.txt"}); err != nil {
		t.Fatal(err)
	}
	rewind(t, s, "1") // removes new/deep and new
	// A later turn puts a link to another folder where new was.
	if _, err := s.Capture("2", TurnMeta{}, []string{"new"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("other", filepath.Join(root, "new")); err != nil {
		t.Fatal(err)
	}
	if err := s.Seal("2", []string{"new"}); err != nil {
		t.Fatal(err)
	}
	p, err := s.PlanUndo(true)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Apply(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(root, "other/deep")); err == nil {
		t.Fatal("the undo made other/deep through the link new")
	}
	if len(r.Failed) != 2 {
		t.Fatalf("undo: %+v; want both files failed, the link in their way", r)
	}
	if l, _ := os.Readlink(filepath.Join(root, "new")); l != "other" {
		t.Fatalf("new -> %q, want the link left as it is", l)
	}
}

// A plan that would write a path where a file now stands in one of its
// folders' place (made by hand, or by a newer turn) says so and fails
// that step; it never finds out only when it applies.
func TestPlanFailsWhereAFileStandsForAFolder(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "d/x", "x\n", 0o644)
	s := openStore(t, root)
	if _, err := s.Capture("1", TurnMeta{}, []string{"d/x"}); err != nil {
		t.Fatal(err)
	}
	put(t, root, "d/x", "x by the agent\n", 0o644)
	if err := s.Seal("1", []string{"d/x"}); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(root, "d"))
	put(t, root, "d", "a file made by hand\n", 0o644)
	p, err := s.PlanRewind("1")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 1 || p.Steps[0].Do != ActFail || !strings.Contains(p.Steps[0].Reason, "a file stands where its folder d was") {
		t.Fatalf("plan steps %+v; want d/x failed, saying a file stands where its folder d was", p.Steps)
	}
	if _, err := s.Apply(p, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "d")); string(b) != "a file made by hand\n" {
		t.Fatalf("d holds %q", b)
	}
}

// A folder one turn made and a later turn recorded as a folder (it
// replaced it by a link): rewinding both leaves no folder, as before the
// first.
func TestRewindRemovesAFolderMadeBeforeItWasRecorded(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "a.txt", "a\n", 0o644)
	s := openStore(t, root)
	before := tree(t, root)
	t1, _ := s.NewTurn(TurnMeta{})
	commandIn(t, s, t1, "cmd", func() { put(t, root, "new/deep/b.txt", "b\n", 0o644) })
	commandIn(t, s, t1, "cmd", func() {
		os.RemoveAll(filepath.Join(root, "new/deep"))
		os.Symlink("../a.txt", filepath.Join(root, "new/deep"))
	})
	rewind(t, s, string(t1))
	sameTree(t, "after the rewind", before, tree(t, root))
}

// An undo that would put a file back where the rewind made a folder
// again, when the folder holds a file made by hand since, fails that step
// in its plan, saying why, and leaves the file made by hand alone.
func TestUndoLeavesAFolderHoldingAHandMadeFile(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "d/x", "x\n", 0o644)
	s := openStore(t, root)
	turn, _ := s.NewTurn(TurnMeta{})
	commandIn(t, s, turn, "cmd", func() {
		os.RemoveAll(filepath.Join(root, "d"))
		put(t, root, "d", "a file\n", 0o644)
	})
	rewind(t, s, string(turn)) // d is a folder again, holding x
	put(t, root, "d/by-hand", "mine\n", 0o644)
	p, err := s.PlanUndo(false)
	if err != nil {
		t.Fatal(err)
	}
	var got *Step
	for i := range p.Steps {
		if p.Steps[i].Path == "d" {
			got = &p.Steps[i]
		}
	}
	if got == nil || got.Do != ActFail || !strings.Contains(got.Reason, "holding what the operation does not remove") {
		t.Fatalf("undo plan step d: %+v; want it failed, saying the folder holds what the undo does not remove", got)
	}
	if _, err := s.Apply(p, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "d/by-hand")); string(b) != "mine\n" {
		t.Fatalf("d/by-hand holds %q", b)
	}
}

// A rewind that makes a folder where a file stood (the file one of its
// turns made, the folder's file one of them removed): its undo turns the
// folder back into the file.
func TestUndoTurnsARestoredFolderBackIntoAFile(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "d/w.txt", "w\n", 0o644)
	s := openStore(t, root)
	if _, err := s.Remove("1", TurnMeta{}, []string{"d/w.txt"}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, "d")) // by hand: the empty folder
	if _, err := s.Write("2", TurnMeta{}, "d", []byte("a file\n")); err != nil {
		t.Fatal(err)
	}
	after := tree(t, root)
	rewind(t, s, "1")
	if b, _ := os.ReadFile(filepath.Join(root, "d/w.txt")); string(b) != "w\n" {
		t.Fatalf("after the rewind d/w.txt holds %q", b)
	}
	if r := undo(t, s); len(r.Failed) > 0 {
		t.Fatalf("undo: %+v", r)
	}
	sameTree(t, "after the undo", after, tree(t, root))
}

// A folder that was there before the turns (its oldest record says so)
// stays when a later one of them made it again: a rewind leaves it, empty
// or not.
func TestRewindKeepsAFolderThatWasThereBefore(t *testing.T) {
	root := tempRoot(t)
	if err := os.MkdirAll(filepath.Join(root, "e"), 0o755); err != nil {
		t.Fatal(err)
	}
	put(t, root, "a.txt", "a\n", 0o644)
	s := openStore(t, root)
	before := tree(t, root)
	turn, _ := s.NewTurn(TurnMeta{})
	commandIn(t, s, turn, "cmd", func() {
		os.Remove(filepath.Join(root, "e"))
		put(t, root, "e", "a file\n", 0o644)
	})
	commandIn(t, s, turn, "cmd", func() {
		os.Remove(filepath.Join(root, "e"))
		put(t, root, "e/k", "k\n", 0o644)
	})
	rewind(t, s, string(turn))
	sameTree(t, "after the rewind", before, tree(t, root))
}

// A rewind that deletes a link to a folder and writes a file where the
// link led (the folder the link stood for, made by one of its turns):
// the folder it makes there is its own, so its undo removes it and puts
// the link back. The folder the link leads to is not the folder the
// rewind makes.
func TestUndoPutsBackALinkWhereTheRewindMadeAFolder(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "other/keep", "k\n", 0o644)
	s := openStore(t, root)
	if _, err := s.Write("1", TurnMeta{}, "d/y", []byte("y\n")); err != nil {
		t.Fatal(err)
	}
	put(t, root, "d/x", "by hand\n", 0o644)
	t2, _ := s.NewTurn(TurnMeta{})
	commandIn(t, s, t2, "cmd", func() {
		os.RemoveAll(filepath.Join(root, "d"))
		os.Symlink("other", filepath.Join(root, "d"))
	})
	after := tree(t, root)
	rewind(t, s, "1") // d/x comes back, in a folder d made again
	if b, _ := os.ReadFile(filepath.Join(root, "d/x")); string(b) != "by hand\n" {
		t.Fatalf("after the rewind d/x holds %q", b)
	}
	if r := undo(t, s); len(r.Failed) > 0 {
		t.Fatalf("undo: %+v", r)
	}
	sameTree(t, "after the undo", after, tree(t, root))
}

// A folder the turns made, wanted gone, holding a folder one of them
// recorded as a folder first and made again later (wanted as a folder):
// a redo decides as its rewind did, the inner folder being the plan's own,
// and the outer one is no obstacle left by someone else.
func TestRedoKeepsAFolderItsRewindKept(t *testing.T) {
	root := tempRoot(t)
	s := openStore(t, root)
	if _, err := s.Write("1", TurnMeta{}, "d/y", []byte("y\n")); err != nil {
		t.Fatal(err)
	}
	put(t, root, "d/p/k", "k\n", 0o644) // by hand
	t2, _ := s.NewTurn(TurnMeta{})
	commandIn(t, s, t2, "cmd", func() {
		os.RemoveAll(filepath.Join(root, "d/p"))
		put(t, root, "d/p", "a file\n", 0o644)
	})
	if _, err := s.Remove("3", TurnMeta{}, []string{"d/p"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("3", TurnMeta{}, "d/p/q/r", []byte("r\n")); err != nil {
		t.Fatal(err)
	}
	t4, _ := s.NewTurn(TurnMeta{})
	commandIn(t, s, t4, "cmd", func() {
		os.RemoveAll(filepath.Join(root, "d"))
		put(t, root, "d", "a file\n", 0o644)
	})
	if r := rewind(t, s, "1"); len(r.Failed) > 0 {
		t.Fatalf("rewind: %+v", r)
	}
	rewound := tree(t, root)
	if rewound["d/p/k"] == "" {
		t.Fatalf("after the rewind: %v; want d/p/k back", rewound)
	}
	if r := undo(t, s); len(r.Failed) > 0 {
		t.Fatalf("undo: %+v", r)
	}
	// By hand: the file d goes, the folders d/p/q are made.
	os.Remove(filepath.Join(root, "d"))
	if err := os.MkdirAll(filepath.Join(root, "d/p/q"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := s.PlanRedo(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range p.Steps {
		if st.Do == ActFail {
			t.Errorf("redo plan fails %s: %s", st.Path, st.Reason)
		}
	}
	if r, err := s.Apply(p, nil); err != nil || len(r.Failed) > 0 {
		t.Fatalf("redo: %+v, %v", r, err)
	}
	sameTree(t, "after the redo", rewound, tree(t, root))
}

// An undo gives back the folders the operation it undoes removed, but
// not beneath a path it puts a file at: that folder is made before the
// files are written, and would stand in the file's way. Here a redo,
// after an undo that could not turn the folder d back into the file it
// was, keeps the file to come back by its own undo; that undo must write
// the file, not the folder d/x the redo removed beneath it.
func TestUndoMakesNoFolderWhereItPutsAFile(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "d/keep", "k\n", 0o644)
	s := openStore(t, root)
	t1, _ := s.NewTurn(TurnMeta{})
	if _, err := s.Write(t1, TurnMeta{}, "d/x/w", []byte("w\n")); err != nil {
		t.Fatal(err)
	}
	commandIn(t, s, t1, "cmd", func() {
		os.RemoveAll(filepath.Join(root, "d"))
		put(t, root, "d", "F\n", 0o644)
	})
	rewind(t, s, string(t1)) // d is a folder again, holding keep
	put(t, root, "d/hand", "mine\n", 0o644)
	undo := func(what string) *Result {
		t.Helper()
		p, err := s.PlanUndo(true)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Apply(p, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return r
	}
	if r := undo("the first undo"); len(r.Failed) != 1 || r.Failed[0].Path != "d" {
		t.Fatalf("the first undo: %+v; want d failed, holding d/hand", r)
	}
	os.Remove(filepath.Join(root, "d/hand"))
	if err := os.Mkdir(filepath.Join(root, "d/x"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := s.PlanRedo(true)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Apply(p, nil); err != nil || len(r.Failed) > 0 {
		t.Fatalf("redo: %+v, %v", r, err)
	}
	if _, err := os.Lstat(filepath.Join(root, "d/x")); err == nil {
		t.Fatal("the redo left d/x, a folder its turn made, empty")
	}
	os.RemoveAll(filepath.Join(root, "d"))
	if r := undo("the undo of the redo"); len(r.Failed) > 0 {
		t.Fatalf("the undo of the redo: %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(root, "d")); err != nil || string(b) != "F\n" {
		t.Fatalf("after the undo of the redo d holds %q, %v; want the file", b, err)
	}
}

// Turns recorded at different times want a file at P and a folder at
// P/Q: the file wins, so the folder P/Q, which the turns made again, goes
// with what is in it once emptied, and P comes back as the file. (The
// plan said so; applying it kept P/Q as a wanted folder, and P's file
// could not be written where the folder still stood.)
func TestRewindPutsAFileWhereAWantedFolderStood(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "P/Q/k", "k\n", 0o644)
	s := openStore(t, root)
	t1, _ := s.NewTurn(TurnMeta{})
	commandIn(t, s, t1, "cmd", func() {
		os.RemoveAll(filepath.Join(root, "P/Q"))
		put(t, root, "P/Q", "a file\n", 0o644)
	})
	// By hand: P becomes a file.
	os.RemoveAll(filepath.Join(root, "P"))
	put(t, root, "P", "pf\n", 0o644)
	t2, _ := s.NewTurn(TurnMeta{})
	commandIn(t, s, t2, "cmd", func() {
		os.Remove(filepath.Join(root, "P"))
		put(t, root, "P/Q/R/z", "z\n", 0o644)
	})
	p, err := s.PlanRewind(string(t1))
	if err != nil {
		t.Fatal(err)
	}
	var planned []string
	for _, st := range p.Steps {
		planned = append(planned, st.Path+" "+string(st.Do))
	}
	r, err := s.Apply(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Failed {
		if f.Path != "P/Q/k" {
			t.Errorf("the rewind failed %s: %s (planned %v)", f.Path, f.Reason, planned)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, "P")); err != nil || string(b) != "pf\n" {
		t.Fatalf("after the rewind P holds %q, %v; want the file", b, err)
	}
}

// A rewind whose oldest record of a path is a file over the size limit
// (its bytes not kept) and which also wants a file inside that path (a
// later turn recorded it a folder): the file wins though it cannot be put
// back, so the step inside fails and no folder is made where, before the
// turns, a file stood.
func TestRewindMakesNoFolderWhereAFileNotKeptWas(t *testing.T) {
	root := tempRoot(t)
	big := strings.Repeat("a long line of the file x\n", 100)
	put(t, root, "x", big, 0o644)
	s, err := Open(root, Options{Create: true, MaxBlob: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Capture("1", TurnMeta{}, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	put(t, root, "x", "small\n", 0o644)
	if err := s.Seal("1", []string{"x"}); err != nil {
		t.Fatal(err)
	}
	// By hand, x becomes a folder holding k; turn 2 writes k.
	os.Remove(filepath.Join(root, "x"))
	put(t, root, "x/k", "made by hand\n", 0o644)
	if _, err := s.Capture("2", TurnMeta{}, []string{"x/k"}); err != nil {
		t.Fatal(err)
	}
	put(t, root, "x/k", "k by the agent\n", 0o644)
	if err := s.Seal("2", []string{"x/k"}); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(root, "x"))
	p, err := s.PlanRewind("1")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range p.Steps {
		if st.Path == "x/k" && (st.Do != ActFail || !strings.Contains(st.Reason, "puts a file where its folder x was")) {
			t.Fatalf("x/k: %s (%q); want it failed, the operation putting a file where its folder x was", st.Do, st.Reason)
		}
	}
	if _, err := s.Apply(p, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(root, "x")); err == nil {
		t.Fatal("the rewind made the folder x, where a file stood before turn 1")
	}
}

// A folder whose oldest record among a rewind's turns is a folder stays,
// though a later turn made it again, also when a retry of the redo of a
// retry leaves it empty: the retry looks back through the redo and the
// retry it redid to what the rewind wanted.
func TestRetryOfARedoKeepsAFolderTheRewindWanted(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "d/f", "f\n", 0o644)
	put(t, root, "z/w", "w\n", 0o644)
	put(t, root, "q/r", "r\n", 0o644)
	s := openStore(t, root)
	commandIn(t, s, "1", "cmd", func() {
		os.RemoveAll(filepath.Join(root, "d"))
		put(t, root, "d", "a file where the folder d was\n", 0o644)
		put(t, root, "z/w", "w1\n", 0o644)
		put(t, root, "q/r", "r1\n", 0o644)
	})
	commandIn(t, s, "2", "cmd", func() {
		os.Remove(filepath.Join(root, "d"))
		put(t, root, "d/g", "g\n", 0o644)
	})
	full := errors.New("no space left on device")
	fault := func(paths ...string) {
		SetRestoreFault(s, func(p string) error {
			if slices.Contains(paths, p) {
				return full
			}
			return nil
		})
	}
	apply := func(what string, p *Plan, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		r, err := s.Apply(p, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s (retry %q): %v", what, p.Retry, r.Failed)
	}
	fault("z/w", "q/r")
	rewind(t, s, "1") // both fail
	fault("q/r")
	p, err := s.PlanRewind("1")
	apply("the retry", p, err) // z/w put back, q/r fails again
	p, err = s.PlanUndo(true)
	apply("undo", p, err)
	p, err = s.PlanRedo(true)
	apply("redo", p, err) // q/r fails again
	fault()
	os.Remove(filepath.Join(root, "d/f")) // d is empty now
	p, err = s.PlanRewind("1")
	apply("the retry of the redo", p, err)
	if rd(t, root, "q/r") != "r\n" {
		t.Fatalf("q/r holds %q after the retry, want r", rd(t, root, "q/r"))
	}
	if fi, err := os.Lstat(filepath.Join(root, "d")); err != nil || !fi.IsDir() {
		t.Fatalf("after the retry d is %v (%v), want the folder it was before turn 1", fi, err)
	}
}
