//go:build linux

package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ckpt-dev/ckpt/store"
)

// caseSensitiveRoot is a project folder with a store, on a file system
// that does not fold case (the test is skipped where it does).
func caseSensitiveRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, ".osfoundry"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(root, ".OSFOUNDRY")); err == nil {
		t.Skip("the file system folds case")
	}
	return root
}

// TestWatchRecordsOtherSpellingsOfTheStore: on a case-sensitive file
// system .OSFoundry is a project folder like any other, its checkpoints
// and hooks folders too, and so is .osfoundry/Hooks beside the store's
// own entries: as a sweep does, the watcher watches them, and a change
// in them is recorded in a turn.
func TestWatchRecordsOtherSpellingsOfTheStore(t *testing.T) {
	root := caseSensitiveRoot(t)
	mine := []string{".OSFoundry/checkpoints/x", ".OSFoundry/hooks/x", ".OSFoundry/notes/x", ".osfoundry/Hooks/x"}
	for _, rel := range mine {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	feed := &swapFeed{}
	s, err := store.Open(root, store.Options{Create: true, Feed: feed})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Past the time a sweep looks again at what changed just before it
	// (coarse timestamps), only the watcher can tell it of the writes.
	time.Sleep(2100 * time.Millisecond)
	feed.t = openTree(t, root)
	defer feed.t.Close()
	rec := &Recorder{Store: s, Tree: feed.t}
	ctx, cancel := context.WithCancel(context.Background())
	done := runRecorder(t, ctx, rec)
	for _, rel := range mine {
		write(t, filepath.Join(root, rel), "new\n")
	}
	// Run records what is pending when it stops, after its sweep has
	// asked the tree, which first waits for every event before the
	// question: what the tree saw is in the turn.
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := turnsPaths(t, s)
	for _, rel := range mine {
		if !slices.Contains(got, rel) {
			t.Errorf("%s is in no turn; the turns hold %v", rel, got)
		}
	}
}

// TestWatchGoesOnAfterAFailedSweep: a sweep that fails (here the store's
// turns folder is a file for a while) does not stop the recorder: it
// says why, tries again, and once a sweep succeeds the change it missed
// is in a turn.
func TestWatchGoesOnAfterAFailedSweep(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "a.txt"), "a\n")
	s, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	said := make(chan string, 100)
	rec := &Recorder{Store: s, Every: 20 * time.Millisecond, Say: func(m string) { said <- m }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runRecorder(t, ctx, rec)
	missBThenMend(t, root, said, done)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := turnsPaths(t, s)
	if !slices.Equal(got, []string{"b.txt"}) {
		t.Errorf("the turns hold %v, want b.txt", got)
	}
}

// TestWatchStopsWhenSweepsKeepFailing: sweeps that fail for FailFor end
// the recorder with the last one's error.
func TestWatchStopsWhenSweepsKeepFailing(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := &Recorder{Store: s, Every: 20 * time.Millisecond, FailFor: 200 * time.Millisecond}
	done := runRecorder(t, context.Background(), rec)
	breakTurns(t, root)
	write(t, filepath.Join(root, "b.txt"), "b\n")
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a folder") {
			t.Fatalf("the recorder stopped with %v, want the sweep's error", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the recorder went on with every sweep failing")
	}
}

// TestWatchEndsWhenTheStoreGoes: the store removed while the recorder
// watches, its tree stops, and so does the recorder, saying why, where
// it would wait for events that never come.
func TestWatchEndsWhenTheStoreGoes(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tree := openTree(t, root)
	defer tree.Close()
	rec := &Recorder{Store: s, Tree: tree}
	done := runRecorder(t, context.Background(), rec)
	// The recorder may be writing in the store as it goes (rm -rf then
	// says "directory not empty"): remove it until it is gone, as a
	// person would.
	for deadline := time.Now().Add(time.Minute); ; {
		err := os.RemoveAll(filepath.Join(root, ".osfoundry"))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "the store was removed") {
			t.Fatalf("the recorder ended with %v, want it to say the store was removed", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the recorder still runs with its store removed")
	}
}

// TestWatchClosesATurnASweepAfterAFailedOneOpened: with a tree, what a
// sweep after a failed one records opens a turn the quiet after it
// closes, so a change long after is in a turn of its own.
func TestWatchClosesATurnASweepAfterAFailedOneOpened(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tree := openTree(t, root)
	defer tree.Close()
	said := make(chan string, 100)
	rec := &Recorder{Store: s, Tree: tree, Every: 50 * time.Millisecond, Quiet: 300 * time.Millisecond, Say: func(m string) { said <- m }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runRecorder(t, ctx, rec)
	missBThenMend(t, root, said, done) // b.txt is recorded by a sweep after a failed one
	// The quiet after it closes b.txt's turn, which then says how many
	// files it holds: a change after that is long after.
	waitForLabel(t, s, ", 1 file")
	write(t, filepath.Join(root, "c.txt"), "c\n")
	time.Sleep(5 * rec.Quiet)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := turnPaths(t, s); len(got) != 2 {
		t.Errorf("the turns hold %v, want b.txt and c.txt each in a turn of its own", got)
	}
}

// TestWatchCutFailsWhenTheSweepBeforeItFails: a cut whose sweep fails
// says why and leaves the turn open, so what changed before it is in
// that turn once a sweep succeeds, not in the next one.
func TestWatchCutFailsWhenTheSweepBeforeItFails(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := &Recorder{Store: s, Every: 20 * time.Millisecond, Quiet: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runRecorder(t, ctx, rec)
	write(t, filepath.Join(root, "a.txt"), "a\n")
	for deadline := time.Now().Add(time.Minute); !slices.EqualFunc(turnPaths(t, s), [][]string{{"a.txt"}}, slices.Equal); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a.txt was never recorded")
		}
	}
	breakTurns(t, root)
	write(t, filepath.Join(root, "b.txt"), "b\n")
	if err := rec.Cut("next"); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("the cut returned %v, want the sweep's error", err)
	}
	mendTurns(t, root)
	if err := rec.Cut("next"); err != nil {
		t.Fatalf("the cut after the store came back: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := turnPaths(t, s); !slices.EqualFunc(got, [][]string{{"a.txt", "b.txt"}}, slices.Equal) {
		t.Errorf("the turns hold %v, want a.txt and b.txt in one", got)
	}
}

// waitForLabel waits until the label of s's newest turn ends with
// suffix, as the recorder's label of a turn it closed does ("watched
// HH:MM:SS, 1 file"). A minute is a bound for a loaded machine, never a
// measure.
func waitForLabel(t *testing.T, s *store.Store, suffix string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		log, err := s.Log(false)
		if err != nil {
			t.Fatal(err)
		}
		if len(log) > 0 && strings.HasSuffix(log[0].Label, suffix) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for the newest turn's label to end with %q: %+v", suffix, log)
		}
	}
}

// turnPaths is the paths each of s's turns changed.
func turnPaths(t *testing.T, s *store.Store) [][]string {
	t.Helper()
	log, err := s.Log(false)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, e := range log {
		files, err := s.Files(e.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, f := range files {
			paths = append(paths, f.Path)
		}
		got = append(got, paths)
	}
	return got
}

// turnsPaths lists the paths of s's turns, turn by turn, in the log's order.
func turnsPaths(t *testing.T, s *store.Store) []string {
	t.Helper()
	log, err := s.Log(false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log {
		files, err := s.Files(e.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			got = append(got, f.Path)
		}
	}
	return got
}

// runRecorder runs rec until ctx ends, and returns once it is ready,
// with the channel its Run's error comes on.
func runRecorder(t *testing.T, ctx context.Context, rec *Recorder) <-chan error {
	t.Helper()
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() { done <- rec.Run(ctx, func() { close(ready) }) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("the recorder stopped before it was ready: %v", err)
	}
	return done
}

// breakTurns puts a file where the store's turns folder is, so sweeps
// fail ("not a folder"), and mendTurns puts the folder back. Each swaps
// the two in one step (renameat2's RENAME_EXCHANGE): a sweep that found
// the folder missing in between would make it anew and succeed.
func breakTurns(t *testing.T, root string) {
	t.Helper()
	write(t, turnsFolder(root)+".away", "in the way\n")
	swapTurns(t, root)
}

func mendTurns(t *testing.T, root string) {
	t.Helper()
	swapTurns(t, root)
	if err := os.Remove(turnsFolder(root) + ".away"); err != nil {
		t.Fatal(err)
	}
}

func turnsFolder(root string) string {
	return filepath.Join(root, ".osfoundry", "checkpoints", "turns")
}

// swapTurns exchanges the store's turns folder and turns.away beside it.
func swapTurns(t *testing.T, root string) {
	t.Helper()
	turns := turnsFolder(root)
	if err := unix.Renameat2(unix.AT_FDCWD, turns, unix.AT_FDCWD, turns+".away", unix.RENAME_EXCHANGE); err != nil {
		t.Fatalf("swap %s and turns.away: %v", turns, err)
	}
}

// missBThenMend makes the recorder's sweeps fail (the store's turns
// folder is a file) while b.txt is written, waits for the recorder to
// say it tries again, puts the folder back, and waits for it to say it
// records again.
func missBThenMend(t *testing.T, root string, said <-chan string, done <-chan error) {
	t.Helper()
	breakTurns(t, root)
	write(t, filepath.Join(root, "b.txt"), "b\n")
	wait := func(what string) {
		t.Helper()
		deadline := time.After(time.Minute)
		for {
			select {
			case m := <-said:
				if strings.Contains(m, what) {
					return
				}
			case err := <-done:
				t.Fatalf("the recorder stopped (%v), before it said %q", err, what)
			case <-deadline:
				t.Fatalf("the recorder never said %q", what)
			}
		}
	}
	wait("trying again")
	mendTurns(t, root)
	wait("recording again")
}
