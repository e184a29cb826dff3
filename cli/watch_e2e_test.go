//go:build linux

package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// watcher is a running `ckpt watch`.
type watcher struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	lines  chan string
}

// startWatch runs ckpt watch with short quiet and settle periods and
// waits for its "watching ROOT" line.
// watchedProject is a project holding files under a running ckpt watch
// whose quiet is an hour: no pause in a test opens a new turn.
func watchedProject(t *testing.T, files map[string]string) (string, *watcher) {
	t.Helper()
	root := t.TempDir()
	writeTexts(t, root, files)
	return root, startWatch(t, root, "--quiet", "1h")
}

func startWatch(t *testing.T, root string, args ...string) *watcher {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ckptTimeout)
	cmd := ckptCommand(ctx, ckptCall{Root: root}, append([]string{"watch", "--settle", "20ms"}, args...)...)
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &watcher{cmd: cmd, cancel: cancel, lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
		close(w.lines)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cancel()
		if t.Failed() {
			for l := range w.lines {
				t.Logf("ckpt watch said: %s", l)
			}
		}
	})
	deadline := time.After(time.Minute)
	for {
		select {
		case l, ok := <-w.lines:
			if !ok {
				t.Fatalf("ckpt watch ended before it was watching")
			}
			if strings.HasPrefix(l, "watching ") {
				return w
			}
		case <-deadline:
			t.Fatalf("ckpt watch did not say it was watching within a minute")
		}
	}
}

// stop sends sig and wants exit 0.
func (w *watcher) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	w.cmd.Process.Signal(sig)
	err := w.cmd.Wait()
	if err != nil {
		t.Fatalf("ckpt watch after %v: %v", sig, err)
	}
}

// waitFor polls cond (every 20 ms, up to a minute: a bound for a loaded
// machine, never a measure).
func waitFor(t *testing.T, what func() string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// turnPaths is the paths of turn id, sorted.
func turnPaths(t *testing.T, root, id string) []string { return turnPathsBut(t, root, id, nil) }

// turnPathsBut is the paths of turn id, sorted, but for the files skip
// (if not nil) passes over.
func turnPathsBut(t *testing.T, root, id string, skip func(showRow) bool) []string {
	var out []string
	for _, f := range ckptShow(t, root, id).Files {
		if skip == nil || !skip(f) {
			out = append(out, f.Path)
		}
	}
	sort.Strings(out)
	return out
}

// watchedTurns is the log's watched turns, oldest first.
func watchedTurns(t *testing.T, root string) []logRow {
	var out []logRow
	for _, e := range ckptLog(t, root) {
		if e.Kind == "agent" && e.Source != nil && e.Source.Agent == "watch" {
			out = append([]logRow{e}, out...)
		}
	}
	return out
}

// hasTurnWith waits until a watched turn holds exactly paths, and
// returns its id.
func hasTurnWith(t *testing.T, root string, paths ...string) string {
	t.Helper()
	return hasTurnWithBut(t, root, nil, paths...)
}

// hasTurnWithBut is hasTurnWith for the paths of a turn but the files
// skip (if not nil) passes over.
func hasTurnWithBut(t *testing.T, root string, skip func(showRow) bool, paths ...string) string {
	t.Helper()
	sort.Strings(paths)
	id := ""
	waitFor(t, func() string {
		var s []string
		for _, e := range watchedTurns(t, root) {
			s = append(s, e.Turn+":"+strings.Join(turnPathsBut(t, root, e.Turn, skip), ","))
		}
		return fmt.Sprintf("a watched turn with %v (have %v)", paths, s)
	}, func() bool {
		for _, e := range watchedTurns(t, root) {
			if slices.Equal(turnPathsBut(t, root, e.Turn, skip), paths) {
				id = e.Turn
				return true
			}
		}
		return false
	})
	return id
}

// sh runs script in root with the tests' environment: git there reads
// no configuration of the user's or the machine's (a signing key, hooks).
func sh(t *testing.T, root, script string) {
	t.Helper()
	c := exec.Command("sh", "-c", script)
	c.Dir = root
	c.Env = ckptEnv("", nil)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// sedTemp reports whether f is the temporary file sed -i writes beside
// the file it edits (sed and six letters) and renames over it, which a
// sweep may find when a loaded machine holds sed up in mid-burst: made
// and gone within the turn, unchanged, no change of the project's.
func sedTemp(f showRow) bool {
	return f.Pre == string(store.ImageAbsent) && f.Status == string(store.StatusUnchanged) &&
		len(f.Path) == len("sed")+6 && strings.HasPrefix(f.Path, "sed")
}

// closedLabel is the label of a watched turn closed with no name given:
// "watched HH:MM:SS, N files".
var closedLabel = regexp.MustCompile(`^watched \d\d:\d\d:\d\d, \d+ files?$`)

// TestWatchRecordsBurstsAsTurns: with no hooks at all, a script edits,
// creates, deletes, renames, runs sed -i and rewrites .env, in two bursts
// parted by more than the quiet period. ckpt watch makes two turns, each
// of which rewinds and undoes exactly, and what the rewinds write while
// it watches is no turn of its own.
func TestWatchRecordsBurstsAsTurns(t *testing.T) {
	root := t.TempDir()
	writeTexts(t, root, map[string]string{
		"a.txt": "a\n", "gone.txt": "bye\n", "old.txt": "moving\n", "s.txt": "foo bar\n",
		".env": "TOKEN=1\n", "src/main.go": "package main\n",
	})
	snap0 := snapshotDir(t, root)
	// A quiet period long enough that a process held up by a loaded
	// machine does not end the turn in the middle of its burst.
	w := startWatch(t, root, "--quiet", "3s")

	sh(t, root, `echo more >> a.txt && echo new > new.txt && rm gone.txt && mv old.txt moved.txt && sed -i s/foo/baz/ s.txt && printf 'TOKEN=2\n' > .env`)
	first := hasTurnWithBut(t, root, sedTemp, ".env", "a.txt", "gone.txt", "moved.txt", "new.txt", "old.txt", "s.txt")
	snap1 := snapshotDir(t, root)
	// The quiet period after the first burst closes its turn, which then
	// says how many files it holds: the next burst is past the quiet.
	waitFor(t, func() string { return "turn " + first + " to close" }, func() bool {
		return closedLabel.MatchString(findEntry(t, ckptLog(t, root), first).Label)
	})
	sh(t, root, `echo again >> a.txt && mkdir -p lib/deep && echo x > lib/deep/x.go && rm src/main.go`)
	second := hasTurnWith(t, root, "a.txt", "lib/deep/x.go", "src/main.go")
	if first == second {
		t.Fatalf("both bursts went to turn %s", first)
	}
	snap2 := snapshotDir(t, root)

	ckptOK(t, root, "rewind", second, "--yes")
	requireSnapshot(t, root, snap1, "after rewinding the second watched turn")
	ckptOK(t, root, "undo", "--yes")
	requireSnapshot(t, root, snap2, "after undoing that rewind")
	ckptOK(t, root, "rewind", first, "--yes")
	requireSnapshot(t, root, snap0, "after rewinding the first watched turn")
	ckptOK(t, root, "undo", "--yes")
	requireSnapshot(t, root, snap2, "after undoing the rewind of the first")

	// The rewinds' writes were seen by the watcher and belong to them:
	// the next change is a turn of its own, alone.
	writeText(t, root, "later.txt", "later\n")
	hasTurnWith(t, root, "later.txt")
	if n := len(watchedTurns(t, root)); n != 3 {
		t.Fatalf("%d watched turns, want 3: %+v", n, watchedTurns(t, root))
	}
	w.stop(t, syscall.SIGINT)
}

// TestWatchCutAndStop: ckpt turn cuts a burst in two, the next turn takes
// its label, and SIGTERM records what is pending before exiting 0.
func TestWatchCutAndStop(t *testing.T) {
	root, w := watchedProject(t, map[string]string{"a.txt": "a\n"})
	writeText(t, root, "one.txt", "1\n")
	ckptOK(t, root, "turn", "--label", "the second prompt")
	writeText(t, root, "two.txt", "2\n")
	hasTurnWith(t, root, "one.txt")
	id := hasTurnWith(t, root, "two.txt")
	if l := findEntry(t, ckptLog(t, root), id).Label; l != "the second prompt" {
		t.Fatalf("label %q after ckpt turn --label", l)
	}
	// Written and then stopped at once: the pending change is recorded.
	writeText(t, root, "three.txt", "3\n")
	w.stop(t, syscall.SIGTERM)
	if got := turnPaths(t, root, id); !slices.Equal(got, []string{"three.txt", "two.txt"}) {
		t.Fatalf("turn %s holds %v after SIGTERM", id, got)
	}
	if r := ckpt(t, root, "turn"); r.Code != 1 || !strings.Contains(r.Stderr, "no ckpt watch runs") {
		t.Fatalf("ckpt turn with no watcher: %s", r)
	}
}

// TestWatchCommitClosesTurn: an Aider-style commit right after the
// writes closes the open turn, labelled with the commit's subject.
func TestWatchCommitClosesTurn(t *testing.T) {
	root := gitProject(t, map[string]string{"app.py": "print(1)\n"})
	w := startWatch(t, root, "--quiet", "1h")
	sh(t, root, `printf 'print(2)\n' > app.py && git -c user.name=aider -c user.email=a@a commit -qam "fix: print two"`)
	id := hasTurnWith(t, root, "app.py")
	waitFor(t, func() string { return "the commit's subject as the label" }, func() bool {
		return findEntry(t, ckptLog(t, root), id).Label == "fix: print two"
	})
	writeText(t, root, "next.py", "x\n")
	next := hasTurnWith(t, root, "next.py")
	if next == id {
		t.Fatalf("the commit did not close turn %s", id)
	}
	w.stop(t, syscall.SIGINT)
}

// TestWatchKilledMidBurst: a watcher killed in the middle of a burst
// and started again loses nothing: the restart's first sweep keeps what
// changed meanwhile, and what follows is recorded.
func TestWatchKilledMidBurst(t *testing.T) {
	root, w := watchedProject(t, map[string]string{"a.txt": "a\n"})
	writeText(t, root, "b.txt", "b\n")
	hasTurnWith(t, root, "b.txt")
	w.cmd.Process.Kill()
	w.cmd.Wait()
	writeText(t, root, "c.txt", "written while nothing watched\n")
	w2 := startWatch(t, root, "--quiet", "1h")
	writeText(t, root, "d.txt", "d\n")
	writeText(t, root, "a.txt", "edited\n")
	hasTurnWith(t, root, "a.txt", "d.txt")
	w2.stop(t, syscall.SIGINT)
	// c.txt went to the baseline: rewinding everything keeps it.
	ckptOK(t, root, "rewind", watchedTurns(t, root)[0].Turn, "--yes")
	if readText(t, root, "c.txt") != "written while nothing watched\n" || readText(t, root, "a.txt") != "a\n" {
		t.Fatalf("after the rewind: c.txt %q, a.txt %q", readText(t, root, "c.txt"), readText(t, root, "a.txt"))
	}
}

// TestWatchOverflow: thousands of files at once overflow nothing that
// matters: every one of them is in the turn.
func TestWatchOverflow(t *testing.T) {
	root, w := watchedProject(t, map[string]string{"a.txt": "a\n"})
	var want []string
	for i := range 3000 {
		p := fmt.Sprintf("gen/%02d/f%04d.txt", i%50, i)
		want = append(want, p)
		os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(root, p), []byte(p), 0o644)
	}
	hasTurnWith(t, root, want...)
	w.stop(t, syscall.SIGINT)
}

// TestWatchGitPerTurn: under ckpt watch, a first turn only edits; a
// second, cut from it, edits and commits at once, before the watcher
// records the edit. The commit is the second turn's alone: the first is
// not marked for it. A third turn edits with no git and is not marked
// either, though it is open.
func TestWatchGitPerTurn(t *testing.T) {
	root := gitProject(t, map[string]string{"app.py": "print(1)\n"})
	w := startWatch(t, root, "--quiet", "1h")
	writeText(t, root, "notes.txt", "plain\n")
	first := hasTurnWith(t, root, "notes.txt")
	ckptOK(t, root, "turn")
	sh(t, root, `printf 'print(2)\n' > app.py && git -c user.name=aider -c user.email=a@a commit -qam "fix: print two"`)
	second := hasTurnWith(t, root, "app.py")
	waitFor(t, func() string { return "the commit's subject as the label" }, func() bool {
		return findEntry(t, ckptLog(t, root), second).Label == "fix: print two"
	})
	writeText(t, root, "later.txt", "x\n")
	third := hasTurnWith(t, root, "later.txt")
	got := ranGitByTurn(t, root)
	if got[first] || !got[second] || got[third] {
		t.Fatalf("ran_git %v: want only turn %s (the commit's), not %s nor %s", got, second, first, third)
	}
	w.stop(t, syscall.SIGINT)
}
