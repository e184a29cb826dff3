package cli

// Kills and crowds: a rewind, undo or redo killed after each of its file
// operations (CKPT_FAILPOINT=apply:K) or at a random moment, a capture
// killed after each of its file operations (CKPT_FAILPOINT=capture:K), and
// many ckpt processes writing one store at once.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// recoveryNote is what a command says on stderr when it finished or rolled
// back an operation a crash interrupted.
var recoveryNote = regexp.MustCompile(`(?i)interrupt|roll(ed|ing)? ?back|finish|complet|recover|resum`)

// maxFailpoint bounds the failpoint loops: an operation over a dozen paths
// that has not finished after this many file operations never will.
const maxFailpoint = 3000

// crashProject is a folder after one sealed agent turn that edited,
// created (in a new folder), deleted and re-moded files, plus a change by
// hand; s0 is before the turn, s1 now.
func crashProject(t *testing.T, root string) (s0, s1 map[string]fsNode) {
	t.Helper()
	writeTexts(t, root, map[string]string{
		"a.txt": "a 0\n", "b.txt": "b 0\n", "c.txt": "c 0\n", "gone.txt": "gone 0\n",
		"keep.txt": "keep 0\n", "src/main.go": "package main\n", "run.sh": "#!/bin/sh\n",
		"kind/f": "f 0\n", "kind/d/x": "x 0\n", "kind/e/x": "e 0\n", "kind/o/y": "o 0\n",
	})
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	s0 = snapshotDir(t, root)
	paths := []string{"a.txt", "b.txt", "c.txt", "gone.txt", "keep.txt", "src/main.go", "run.sh", "new/deep/x.txt", "new/y.txt"}
	ckptOK(t, root, append([]string{"capture", "--turn", "1", "--label", "crash me"}, paths...)...)
	writeTexts(t, root, map[string]string{
		"a.txt": "a 1\n", "b.txt": "b 1\n", "c.txt": strings.Repeat("c 1\n", 5000),
		"src/main.go": "package main\n\nfunc main() {}\n", "new/deep/x.txt": "x\n", "new/y.txt": "y\n",
		"run.sh": "#!/bin/sh\necho changed\n",
	})
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o600); err != nil {
		t.Fatal(err)
	}
	removePath(t, root, "gone.txt")
	ckptOK(t, root, append([]string{"seal", "--turn", "1"}, paths...)...)
	// A shell command of the turn changes kinds: a file becomes a folder,
	// a folder a file, a folder a link to another folder.
	ckptOK(t, root, "exec", "--turn", "1", "--", "sh", "-c",
		"cd kind && rm f && mkdir f && echo g > f/g && rm -r d && echo file > d && rm -r e && ln -s o e")
	writeText(t, root, "b.txt", "b changed since the agent\n")
	return s0, snapshotDir(t, root)
}

// crashCase is one operation run under failpoints.
type crashCase struct {
	name    string
	prepare func(t *testing.T, root string) // after crashProject
	args    []string
	// before and after pick the folder states (s0, s1 of crashProject)
	// the operation moves between.
	beforeIsS0 bool
	// turn1After is turn 1's state in the log once the operation is done.
	turn1After string
	// reverse takes the folder back from after the operation to before it.
	reverse []string
}

// operationCrashes are a rewind, an undo and a redo, each of turn 1 of
// crashProject.
var operationCrashes = []crashCase{
	{name: "rewind", prepare: func(*testing.T, string) {}, args: []string{"rewind", "1", "--yes"},
		beforeIsS0: false, turn1After: "rewound", reverse: []string{"undo", "--yes"}},
	{name: "undo", prepare: func(t *testing.T, root string) { ckptOK(t, root, "rewind", "1", "--yes") },
		args: []string{"undo", "--yes"}, beforeIsS0: true, turn1After: "active", reverse: []string{"redo", "--yes"}},
	{name: "redo", prepare: func(t *testing.T, root string) {
		ckptOK(t, root, "rewind", "1", "--yes")
		ckptOK(t, root, "undo", "--yes")
	}, args: []string{"redo", "--yes"}, beforeIsS0: false, turn1After: "rewound", reverse: []string{"undo", "--yes"}},
}

// crashTemplate makes the project of case c in a fresh folder base, at
// base/template, prepared for c's operation; before and after are the
// folder states the operation moves between.
func crashTemplate(t *testing.T, c crashCase) (base, tmpl string, before, after map[string]fsNode) {
	t.Helper()
	base = t.TempDir()
	tmpl = filepath.Join(base, "template")
	s0, s1 := crashProject(t, tmpl)
	c.prepare(t, tmpl)
	if c.beforeIsS0 {
		return base, tmpl, s0, s1
	}
	return base, tmpl, s1, s0
}

func TestCrashDuringOperations(t *testing.T) {
	for _, c := range operationCrashes {
		t.Run(c.name, func(t *testing.T) {
			base, tmpl, before, after := crashTemplate(t, c)
			requireSnapshot(t, tmpl, before, "the template before "+c.name)
			turn1Before := findEntry(t, ckptLog(t, tmpl), "1").State
			crashLoop(t, base, tmpl, c, before, after, turn1Before)
		})
	}
}

// silentKill is a kill after which the next command said nothing.
type silentKill struct {
	k      int
	before bool // the folder was left as before the operation
}

func (s silentKill) String() string {
	if s.before {
		return fmt.Sprintf("%d:before", s.k)
	}
	return fmt.Sprintf("%d:after", s.k)
}

// killAt runs c's operation in base/kK, a fresh copy of tmpl, under the
// failpoint apply:K.
func killAt(t *testing.T, base, tmpl string, c crashCase, k int) (string, ckptRun) {
	t.Helper()
	if k > maxFailpoint {
		t.Fatalf("%s still killed at apply:%d", c.name, k)
	}
	root := filepath.Join(base, fmt.Sprintf("k%d", k))
	copyTree(t, tmpl, root)
	return root, ckptDo(t, ckptCall{Root: root, Env: []string{"CKPT_FAILPOINT=apply:" + strconv.Itoa(k)}}, c.args...)
}

// crashLoop runs c under apply:K for K = 1, 2, … until it finishes, each
// time in a fresh copy of tmpl, and checks the next command leaves the
// folder wholly before or wholly after, with records to match.
func crashLoop(t *testing.T, base, tmpl string, c crashCase, before, after map[string]fsNode, turn1Before string) {
	var silent []silentKill // kills after which nothing was said
	var noted []int         // kills after which the next command said what it did
	kills := 0
	for k := 1; ; k++ {
		root, r := killAt(t, base, tmpl, c, k)
		if !r.Killed {
			if r.Code != 0 {
				t.Fatalf("apply:%d: want exit 0 or SIGKILL\n%s", k, r)
			}
			if k == 1 {
				t.Fatalf("CKPT_FAILPOINT=apply:1 did not kill %s: the failpoint is not honoured\n%s", c.name, r)
			}
			requireSnapshot(t, root, after, fmt.Sprintf("%s with apply:%d, which it outlived", c.name, k))
			break
		}
		kills++
		lr := ckpt(t, root, "log")
		if lr.Code != 0 {
			t.Fatalf("apply:%d: log after the kill\n%s", k, lr)
		}
		got := snapshotDir(t, root)
		isBefore := len(snapshotDiff(before, got)) == 0
		isAfter := len(snapshotDiff(after, got)) == 0
		if !isBefore && !isAfter {
			t.Fatalf("apply:%d: after the kill and `ckpt log` the folder is neither before nor after %s.\nvs before:\n  %s\nvs after:\n  %s\nlog stderr: %s",
				k, c.name, strings.Join(snapshotDiff(before, got), "\n  "), strings.Join(snapshotDiff(after, got), "\n  "), lr.Stderr)
		}
		if !recoveryNote.MatchString(lr.Stderr) {
			silent = append(silent, silentKill{k, isBefore})
		} else {
			noted = append(noted, k)
			if len(noted) == 1 {
				t.Logf("apply:%d: `ckpt log` said on stderr: %s", k, strings.TrimSpace(lr.Stderr))
			}
		}
		wantTurn1 := turn1Before
		if isAfter {
			wantTurn1 = c.turn1After
		}
		if st := findEntry(t, ckptLog(t, root), "1").State; st != wantTurn1 {
			t.Errorf("apply:%d: folder is %s the %s but the log says turn 1 is %q, want %q",
				k, map[bool]string{true: "before", false: "after"}[isBefore], c.name, st, wantTurn1)
		}
		if v := ckpt(t, root, "verify"); v.Code != 0 {
			t.Errorf("apply:%d: verify after recovery\n%s", k, v)
		}
		// The store still works: the operation can be run (again), or undone.
		if isBefore {
			ckptOK(t, root, c.args...)
			requireSnapshot(t, root, after, fmt.Sprintf("apply:%d: %s run again after the rollback", k, c.name))
		} else {
			ckptOK(t, root, c.reverse...)
			requireSnapshot(t, root, before, fmt.Sprintf("apply:%d: %s after the recovered %s", k, c.reverse[0], c.name))
		}
		os.RemoveAll(root)
	}
	t.Logf("%s: killed after each of %d file operations; no stderr note after kills %v", c.name, kills, silent)
	// Killed before the operation was journaled, or after it was wholly
	// done, there is nothing to finish or roll back; in between, the next
	// command must say what it did. So the silent kills are a run of
	// "before" at the start and a run of "after" at the end.
	if len(noted) == 0 {
		t.Errorf("%s: after none of %d kills did `ckpt log` say on stderr that it finished or rolled back the operation", c.name, kills)
	}
	for _, sk := range silent {
		if len(noted) > 0 && ((sk.before && sk.k > noted[0]) || (!sk.before && sk.k < noted[len(noted)-1])) {
			t.Errorf("apply:%d: `ckpt log` put the folder %s the %s but said nothing on stderr, though the kills around it were recovered (%v)", sk.k, sk, c.name, noted)
		}
	}
	if kills < 5 {
		t.Errorf("%s was killed only %d times before finishing; a %d-path operation has more file operations than that", c.name, kills, len(before))
	}
}

// bigTurn makes a folder of n files and one sealed turn that rewrote all
// of them; it returns the snapshots before (s0) and after (s1) the turn.
func bigTurn(t *testing.T, root string, n int) (s0, s1 map[string]fsNode) {
	t.Helper()
	files := map[string]string{}
	var paths []string
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("pkg%02d/file%04d.go", i%20, i)
		files[p] = fmt.Sprintf("package pkg\n\n// file %d, before the turn\nvar X%d = %q\n", i, i, strings.Repeat("x", i%700))
		paths = append(paths, p)
	}
	writeTexts(t, root, files)
	s0 = snapshotDir(t, root)
	ckptOK(t, root, append([]string{"capture", "--turn", "1"}, paths...)...)
	for p, c := range files {
		files[p] = strings.Replace(c, "before", "after", 1) + "// the agent was here\n"
	}
	writeTexts(t, root, files)
	ckptOK(t, root, append([]string{"seal", "--turn", "1"}, paths...)...)
	return s0, snapshotDir(t, root)
}

func TestRandomKills(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	s0, s1 := bigTurn(t, root, 2000)

	// How long an uninterrupted rewind takes, in a copy.
	probe := filepath.Join(base, "probe")
	copyTree(t, root, probe)
	full := ckptOK(t, probe, "rewind", "1", "--yes").Duration
	os.RemoveAll(probe)

	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	t.Logf("uninterrupted rewind of 2000 files: %v; seed %d", full, seed)
	state := "after-turn" // s1: turn 1 active
	outcomes := map[string]int{}
	for i := 0; i < 10; i++ {
		args := []string{"rewind", "1", "--yes"}
		from, to := s1, s0
		if state == "rewound" {
			args = []string{"undo", "--yes"}
			from, to = s0, s1
		}
		delay := time.Duration(rng.Int63n(int64(full) + 1))
		ctx, cancel := context.WithTimeout(context.Background(), ckptTimeout)
		cmd := ckptCommand(ctx, ckptCall{Root: root}, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		cancel()
		code, killed := exitStatus(t, err, cmd)
		lr := ckpt(t, root, "log")
		if lr.Code != 0 {
			t.Fatalf("kill %d: log\n%s", i, lr)
		}
		got := snapshotDir(t, root)
		switch {
		case len(snapshotDiff(to, got)) == 0:
			outcomes[fmt.Sprintf("%s finished (killed %v, exit %d)", args[0], killed, code)]++
			if state == "rewound" {
				state = "after-turn"
			} else {
				state = "rewound"
			}
		case len(snapshotDiff(from, got)) == 0:
			outcomes[fmt.Sprintf("%s rolled back", args[0])]++
		default:
			d := snapshotDiff(to, got)
			if len(d) > 10 {
				d = append(d[:10], "…")
			}
			t.Fatalf("kill %d of `%s` after %v: the folder is neither before nor after (vs after: %d paths differ)\n  %s\nlog stderr: %s",
				i, strings.Join(args, " "), delay, len(snapshotDiff(to, got)), strings.Join(d, "\n  "), lr.Stderr)
		}
		wantTurn1 := map[string]string{"after-turn": "active", "rewound": "rewound"}[state]
		if st := findEntry(t, ckptLog(t, root), "1").State; st != wantTurn1 {
			t.Errorf("kill %d: log says turn 1 is %q, the folder says %q", i, st, wantTurn1)
		}
		if v := ckpt(t, root, "verify"); v.Code != 0 {
			t.Fatalf("kill %d: verify\n%s", i, v)
		}
	}
	t.Logf("outcomes: %v", outcomes)
}

// captureTemplate is a folder with a store holding one sealed turn.
func captureTemplate(t *testing.T, root string, withStore bool) {
	t.Helper()
	writeTexts(t, root, map[string]string{
		"f1.txt": "f1\n", "f2.txt": strings.Repeat("f2\n", 10000), "f3.txt": "f3\n", "f4.txt": "f4\n",
		"f5.txt": "f5 before turn 3\n", "old.txt": "old\n",
	})
	if withStore {
		ckptOK(t, root, "capture", "--turn", "1", "old.txt")
		writeText(t, root, "old.txt", "old, edited\n")
		ckptOK(t, root, "seal", "--turn", "1", "old.txt")
	}
}

func TestCrashDuringCapture(t *testing.T) {
	for _, withStore := range []bool{true, false} {
		t.Run(fmt.Sprintf("existing store %v", withStore), func(t *testing.T) {
			base := t.TempDir()
			tmpl := filepath.Join(base, "template")
			captureTemplate(t, tmpl, withStore)
			args := []string{"capture", "--turn", "2", "--label", "killed", "f1.txt", "f2.txt", "f3.txt", "f4.txt", "new.txt"}
			before := snapshotDir(t, tmpl)
			kills := eachKill(t, base, tmpl, "capture", args, func(k int, root string, r ckptRun) {
				requireSnapshot(t, root, before, fmt.Sprintf("capture:%d: a capture changes nothing in the folder", k))
				if !r.Killed {
					if s := ckptShow(t, root, "2"); len(s.Files) != 5 {
						t.Errorf("show 2 after the capture that finished: %+v", s.Files)
					}
					return
				}
				ckptLog(t, root) // the store opens and lists
				if withStore {
					if v := ckpt(t, root, "verify"); v.Code != 0 {
						t.Errorf("capture:%d: verify right after the kill\n%s", k, v)
					}
				}
				// A later capture works, and so does rewinding it.
				ckptOK(t, root, "capture", "--turn", "3", "f5.txt")
				writeText(t, root, "f5.txt", "f5 by turn 3\n")
				ckptOK(t, root, "seal", "--turn", "3", "f5.txt")
				if s := ckptShow(t, root, "3"); len(s.Files) != 1 || s.Files[0].Path != "f5.txt" || s.Files[0].Status != "modified" {
					t.Errorf("capture:%d: show 3 after the later capture: %+v", k, s)
				}
				if v := ckpt(t, root, "verify"); v.Code != 0 {
					t.Errorf("capture:%d: verify after a later capture\n%s", k, v)
				}
				ckptOK(t, root, "rewind", "3", "--yes")
				requireSnapshot(t, root, before, fmt.Sprintf("capture:%d: rewind of the later turn", k))
			})
			t.Logf("capture killed after each of %d file operations", kills)
		})
	}
}

// A bulk capture writes its blobs into one pack: killed after each of its
// file operations (creating the pack, writing it, renaming it into place,
// the barrier, the record), the folder is untouched, the store lists and
// verifies, and later captures and rewinds work.
func TestCrashDuringBulkCapture(t *testing.T) {
	base := t.TempDir()
	tmpl := filepath.Join(base, "template")
	captureTemplate(t, tmpl, true)
	args := []string{"capture", "--turn", "2", "--label", "bulk"}
	for i := range 24 {
		p := fmt.Sprintf("bulk/f%02d.txt", i)
		writeText(t, tmpl, p, strings.Repeat(fmt.Sprintf("bulk %d\n", i), 100+i))
		args = append(args, p)
	}
	before := snapshotDir(t, tmpl)
	kills := eachKill(t, base, tmpl, "capture", args, func(k int, root string, r ckptRun) {
		requireSnapshot(t, root, before, fmt.Sprintf("capture:%d: a capture changes nothing in the folder", k))
		if !r.Killed {
			if s := ckptShow(t, root, "2"); len(s.Files) != 24 {
				t.Errorf("show 2 after the capture that finished: %d files", len(s.Files))
			}
			return
		}
		ckptLog(t, root)
		if v := ckpt(t, root, "verify"); v.Code != 0 {
			t.Errorf("capture:%d: verify right after the kill\n%s", k, v)
		}
		// The same capture again, then an edit of every file and a rewind.
		ckptOK(t, root, args...)
		for _, p := range args[5:] {
			writeText(t, root, p, "edited\n")
		}
		ckptOK(t, root, append([]string{"seal", "--turn", "2"}, args[5:]...)...)
		if v := ckpt(t, root, "prune", "--keep", "5"); v.Code != 0 {
			t.Errorf("capture:%d: prune\n%s", k, v)
		}
		if v := ckpt(t, root, "verify"); v.Code != 0 {
			t.Errorf("capture:%d: verify after a later capture\n%s", k, v)
		}
		ckptOK(t, root, "rewind", "2", "--yes")
		requireSnapshot(t, root, before, fmt.Sprintf("capture:%d: rewind of the bulk turn", k))
	})
	if kills < 4 {
		t.Errorf("bulk capture killed at only %d file operations", kills)
	}
	t.Logf("bulk capture killed after each of %d file operations", kills)
}

// Prune packs the blobs turn 2 kept loose and rewrites a pack holding
// dead blobs: killed after each of its file operations (creating each new
// pack, writing it, renaming it into place, the barrier, removing the old
// pack; the loose files go once their pack is durable), every live blob is
// still somewhere: verify passes, and rewinding the turn kept gives back
// its bytes exactly.
func TestCrashDuringRepack(t *testing.T) {
	base := t.TempDir()
	tmpl := filepath.Join(base, "template")
	var paths []string
	for i := range 16 {
		p := fmt.Sprintf("p/f%02d.txt", i)
		writeText(t, tmpl, p, strings.Repeat(fmt.Sprintf("first %d\n", i), 50+i))
		paths = append(paths, p)
	}
	// Turn 1 keeps every file in one pack; turn 2 half of them in another.
	ckptOK(t, tmpl, append([]string{"capture", "--turn", "1"}, paths...)...)
	for _, p := range paths {
		writeText(t, tmpl, p, "by turn 1 "+p+"\n")
	}
	ckptOK(t, tmpl, append([]string{"seal", "--turn", "1"}, paths...)...)
	ckptOK(t, tmpl, append([]string{"capture", "--turn", "2"}, paths[:8]...)...)
	for _, p := range paths[:8] {
		writeText(t, tmpl, p, "by turn 2 "+p+"\n")
	}
	ckptOK(t, tmpl, append([]string{"seal", "--turn", "2"}, paths[:8]...)...)
	before := snapshotDir(t, tmpl)
	kills := eachKill(t, base, tmpl, "prune", []string{"prune", "--keep", "1"}, func(k int, root string, _ ckptRun) {
		requireSnapshot(t, root, before, fmt.Sprintf("prune:%d: prune changes nothing in the folder", k))
		if v := ckpt(t, root, "verify"); v.Code != 0 {
			t.Errorf("prune:%d: verify\n%s", k, v)
		}
		ckptOK(t, root, "rewind", "2", "--yes")
		for _, p := range paths[:8] {
			if got := readText(t, root, p); got != "by turn 1 "+p+"\n" {
				t.Errorf("prune:%d: %s after rewinding turn 2: %q", k, p, got)
			}
		}
	})
	if kills < 4 {
		t.Errorf("prune killed at only %d file operations", kills)
	}
	t.Logf("prune killed after each of %d file operations", kills)
}

// eachKill runs args in a fresh copy of tmpl (under base) with
// CKPT_FAILPOINT=point:K, for K = 1, 2, … until a run outlives its
// failpoint, and hands each run to check (the last one not killed). The
// run that outlived it must exit 0, and the first must be killed (else
// the failpoint is not honoured); it fails the test when K passes
// maxFailpoint. It returns how many runs were killed.
func eachKill(t *testing.T, base, tmpl, point string, args []string, check func(k int, root string, r ckptRun)) int {
	t.Helper()
	for k := 1; ; k++ {
		if k > maxFailpoint {
			t.Fatalf("%s still killed at %s:%d", args[0], point, k)
		}
		root := filepath.Join(base, fmt.Sprintf("k%d", k))
		copyTree(t, tmpl, root)
		r := ckptDo(t, ckptCall{Root: root, Env: []string{"CKPT_FAILPOINT=" + point + ":" + strconv.Itoa(k)}}, args...)
		check(k, root, r)
		if !r.Killed {
			if r.Code != 0 {
				t.Fatalf("%s:%d: want exit 0 or SIGKILL\n%s", point, k, r)
			}
			if k == 1 {
				t.Fatalf("CKPT_FAILPOINT=%s:1 did not kill %s: the failpoint is not honoured\n%s", point, args[0], r)
			}
			return k - 1
		}
		os.RemoveAll(root)
	}
}

// --- many processes ---

func TestManyProcesses(t *testing.T) {
	const workers, perWorker = 8, 6
	root := t.TempDir()
	files := map[string]string{}
	for w := 0; w < workers; w++ {
		for i := 0; i < perWorker; i++ {
			files[fmt.Sprintf("w%d/f%d.txt", w, i)] = fmt.Sprintf("worker %d file %d before\n", w, i)
		}
	}
	writeTexts(t, root, files)
	ckptOK(t, root, "capture", "--turn", "0", "--label", "make the store", "seed.txt")
	writeText(t, root, "seed.txt", "seed\n")
	ckptOK(t, root, "seal", "--turn", "0", "seed.txt")
	s0 := snapshotDir(t, root)

	turnOf := func(w int) string {
		if w < workers/2 {
			return "shared"
		}
		return fmt.Sprintf("own-%d", w)
	}
	var wg sync.WaitGroup
	errs := make(chan string, workers*perWorker*2)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			turn := turnOf(w)
			for i := 0; i <= perWorker; i++ { // the last one is a new file
				p := fmt.Sprintf("w%d/f%d.txt", w, i)
				if r := ckpt(t, root, "capture", "--turn", turn, "--label", "parallel "+turn, p); r.Code != 0 {
					errs <- r.String()
					continue
				}
				if err := os.WriteFile(filepath.Join(root, p), []byte(fmt.Sprintf("worker %d file %d after\n", w, i)), 0o644); err != nil {
					errs <- err.Error()
				}
				if r := ckpt(t, root, "seal", "--turn", turn, p); r.Code != 0 {
					errs <- r.String()
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	want := map[string][]string{}
	for w := 0; w < workers; w++ {
		for i := 0; i <= perWorker; i++ {
			want[turnOf(w)] = append(want[turnOf(w)], fmt.Sprintf("w%d/f%d.txt", w, i))
		}
	}
	for turn, paths := range want {
		s := ckptShow(t, root, turn)
		var got []string
		for _, f := range s.Files {
			got = append(got, f.Path)
			if f.Status != "modified" && f.Status != "created" {
				t.Errorf("show %s: %s is %q, want modified or created", turn, f.Path, f.Status)
			}
		}
		if !sameSet(got, paths) {
			t.Errorf("show %s --json lists %d files, want %d:\n got %v\nwant %v", turn, len(got), len(paths), sortedCopy(got), sortedCopy(paths))
		}
	}
	if v := ckpt(t, root, "verify"); v.Code != 0 {
		t.Fatalf("verify after the parallel captures\n%s", v)
	}
	es := ckptLog(t, root)
	if len(es) != 1+len(want) {
		t.Errorf("log has %d entries, want %d", len(es), 1+len(want))
	}
	// Every pre-image was kept: rewinding the oldest parallel turn (and so
	// all of them) brings back the folder.
	oldest := es[len(es)-2].Turn
	ckptOp(t, root, 0, "rewind", oldest, "--yes")
	requireSnapshot(t, root, s0, "rewind of every parallel turn")
}

// lockHolders reads /proc/locks for the pids holding a lock.
func lockHolders(t *testing.T) map[int]bool {
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		t.Skipf("no /proc/locks: %v", err)
	}
	pids := map[int]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; blocked
		// waiters carry a "->" field first.
		if len(f) > 1 && f[1] == "->" {
			continue
		}
		if len(f) >= 5 {
			if pid, err := strconv.Atoi(f[4]); err == nil {
				pids[pid] = true
			}
		}
	}
	return pids
}

func TestRewindWaitsForCaptureInFlight(t *testing.T) {
	for attempt, size := range []int{4 << 20, 7 << 20, 7 << 20, 7 << 20, 7 << 20} {
		root := t.TempDir()
		writeText(t, root, "small.txt", "small 0\n")
		ckptOK(t, root, "capture", "--turn", "1", "small.txt")
		writeText(t, root, "small.txt", "small 1\n")
		ckptOK(t, root, "seal", "--turn", "1", "small.txt")
		rng := rand.New(rand.NewSource(int64(attempt)))
		var paths []string
		for i := 0; i < 8; i++ {
			b := make([]byte, size)
			rng.Read(b)
			p := fmt.Sprintf("big%d.bin", i)
			writeText(t, root, p, string(b))
			paths = append(paths, p)
		}

		ctx, cancel := context.WithTimeout(context.Background(), ckptTimeout)
		capture := ckptCommand(ctx, ckptCall{Root: root}, append([]string{"capture", "--turn", "2"}, paths...)...)
		var cerr bytes.Buffer
		capture.Stderr = &cerr
		if err := capture.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- capture.Wait() }()
		seen := false
		var werr error
	poll:
		for {
			select {
			case werr = <-done:
				break poll
			default:
			}
			if lockHolders(t)[capture.Process.Pid] {
				seen = true
				break
			}
		}
		if !seen {
			cancel()
			if werr != nil {
				t.Fatalf("capture: %v\n%s", werr, cerr.String())
			}
			t.Logf("attempt %d: the capture finished before it was seen holding a lock", attempt)
			continue
		}
		// The capture holds the store's lock: a rewind started now must
		// wait for it, and so see turn 2 as a later active turn.
		o := ckptOp(t, root, 0, "rewind", "1", "--yes")
		if err := <-done; err != nil {
			t.Fatalf("capture: %v\n%s", err, cerr.String())
		}
		cancel()
		es := ckptLog(t, root)
		op := findEntry(t, es, o.Op)
		if !sameSet(op.Turns, []string{"1", "2"}) {
			t.Errorf("a rewind started while turn 2's capture held the lock rewound turns %v, want [1 2]: it did not wait", op.Turns)
		}
		if st := findEntry(t, es, "2").State; st != "rewound" {
			t.Errorf("turn 2 is %q after the rewind, want rewound", st)
		}
		if got := readText(t, root, "small.txt"); got != "small 0\n" {
			t.Errorf("small.txt holds %q", got)
		}
		if v := ckpt(t, root, "verify"); v.Code != 0 {
			t.Errorf("verify\n%s", v)
		}
		return
	}
	t.Errorf("in 5 attempts no capture of 8 large files was seen holding a lock in /proc/locks: captures do not seem to lock the store")
}

func TestRewindAmidParallelCaptures(t *testing.T) {
	const workers, rounds = 8, 5
	root := t.TempDir()
	writeText(t, root, "base.txt", "base 0\n")
	ckptOK(t, root, "capture", "--turn", "1", "base.txt")
	writeText(t, root, "base.txt", "base 1\n")
	ckptOK(t, root, "seal", "--turn", "1", "base.txt")

	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	captured := map[string]bool{}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				p := fmt.Sprintf("w%d-%d.txt", w, i)
				r := ckptDo(t, ckptCall{Root: root, Stdin: []byte(p + " by the agent\n")}, "write", "--turn", "busy", p)
				mu.Lock()
				if r.Code != 0 {
					failures = append(failures, r.String())
				} else {
					captured[p] = true
				}
				mu.Unlock()
			}
		}(w)
	}
	rw := ckpt(t, root, "rewind", "1", "--yes", "--json")
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	if rw.Code != 0 {
		t.Fatalf("rewind amid captures\n%s", rw)
	}
	if got := readText(t, root, "base.txt"); got != "base 0\n" {
		t.Errorf("base.txt holds %q after the rewind", got)
	}
	// No record was lost: every path written is in one busy turn.
	listed := map[string]int{}
	for _, e := range ckptLog(t, root) {
		if e.Kind != "agent" || !strings.HasPrefix(e.Turn, "busy") {
			continue
		}
		for _, f := range ckptShow(t, root, e.Turn).Files {
			listed[f.Path]++
		}
	}
	var missing []string
	for p := range captured {
		if listed[p] != 1 {
			missing = append(missing, fmt.Sprintf("%s (listed %d times)", p, listed[p]))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("paths written by `ckpt write` not listed exactly once among the busy turns: %v", missing)
	}
	if v := ckpt(t, root, "verify"); v.Code != 0 {
		t.Errorf("verify\n%s", v)
	}
}

// TestCrashThenEdits adds a second actor to the kills: after each kill
// point of a rewind, an undo and a redo, a random few files are edited
// before the next command recovers. Recovery never writes over an edit:
// every byte the actor wrote, and what each path the actor left alone held
// before the operation, is on disk afterwards or comes back through undo
// and redo.
func TestCrashThenEdits(t *testing.T) {
	paths := []string{"a.txt", "b.txt", "c.txt", "gone.txt", "keep.txt", "src/main.go", "run.sh", "new/deep/x.txt", "new/y.txt"}
	for ci, c := range operationCrashes {
		t.Run(c.name, func(t *testing.T) {
			base, tmpl, before, after := crashTemplate(t, c)
			rng := rand.New(rand.NewSource(int64(ci + 1)))
			edited := 0
			for k := 1; ; k++ {
				root, r := killAt(t, base, tmpl, c, k)
				if !r.Killed {
					break
				}
				// The second actor.
				edits := map[string]string{}
				for _, p := range paths {
					if rng.Intn(3) == 0 {
						edits[p] = fmt.Sprintf("edited after kill %d of the %s: %s\n", k, c.name, p)
						writeText(t, root, p, edits[p])
					}
				}
				edited += len(edits)
				lr := ckpt(t, root, "log")
				if lr.Code != 0 {
					t.Fatalf("apply:%d: log after the kill and edits %v\n%s", k, slices.Sorted(maps.Keys(edits)), lr)
				}
				now := snapshotDir(t, root)
				for p, v := range edits {
					if now[p].Data != v {
						t.Fatalf("apply:%d: recovery overwrote %s, edited after the kill (it holds %s)\n%s", k, p, now[p], lr.Stderr)
					}
				}
				// The paths the actor left alone are wholly before or
				// wholly after the operation.
				wholly := func(want map[string]fsNode) bool {
					for _, p := range paths {
						if _, ok := edits[p]; !ok && now[p] != want[p] {
							return false
						}
					}
					return true
				}
				if !wholly(before) && !wholly(after) {
					t.Fatalf("apply:%d: after the edits %v and recovery, the other paths are neither before nor after the %s\nvs before:\n  %s\nvs after:\n  %s",
						k, slices.Sorted(maps.Keys(edits)), c.name, strings.Join(snapshotDiff(before, now), "\n  "), strings.Join(snapshotDiff(after, now), "\n  "))
				}
				// Everything is reachable: walk undo back and redo forward,
				// gathering every state seen.
				seen := []map[string]fsNode{now}
				for _, verb := range []string{"undo", "redo"} {
					for i := 0; i < 3; i++ {
						args := []string{verb, "--yes", "--force"}
						if r := ckpt(t, root, args...); r.Code != 0 && r.Code != 3 {
							break
						}
						seen = append(seen, snapshotDir(t, root))
					}
				}
				reachable := func(p string, data string, gone bool) bool {
					for _, s := range seen {
						n, ok := s[p]
						if gone && !ok || !gone && ok && n.Kind == 'f' && n.Data == data {
							return true
						}
					}
					return false
				}
				for p, v := range edits {
					if !reachable(p, v, false) {
						t.Fatalf("apply:%d: the edit of %s made after the kill is lost: in no state undo and redo reach", k, p)
					}
				}
				for _, p := range paths {
					if _, ok := edits[p]; ok {
						continue
					}
					// What it held before the operation was on disk; what
					// it holds after is now, if the operation took effect.
					if n, ok := before[p]; !reachable(p, n.Data, !ok) {
						t.Fatalf("apply:%d: %s as it was before the %s (%s) is lost: in no state undo and redo reach", k, p, c.name, n)
					}
				}
				if v := ckpt(t, root, "verify"); v.Code != 0 {
					t.Errorf("apply:%d: verify\n%s", k, v)
				}
				os.RemoveAll(root)
			}
			if edited == 0 {
				t.Errorf("%s: the second actor edited nothing", c.name)
			}
		})
	}
}

// TestCrashDuringSweep kills `ckpt exec` after each file operation of the
// sweep before a command (the first sweep, which keeps every file) and of
// the sweep after it (CKPT_FAILPOINT=sweep-before:K, sweep-after:K). Each
// time verify must accept the store, and the baseline must still be right:
// the next command's sweeps record the killed command's changes against
// the true pre-images, so rewinding the turn gives the folder back.
func TestCrashDuringSweep(t *testing.T) {
	bin := buildHookBinary(t)
	files := map[string]string{".gitignore": "out/\n", "a.txt": "a 0\n", "b.txt": "b 0\n", "c/d.txt": "d 0\n", "e.txt": "e 0\n", ".env": "K=0\n"}
	change := "echo a1 > a.txt; rm b.txt; mv e.txt c/e.txt; echo new > n.txt; echo K=1 > .env; mkdir -p out; echo o > out/o"
	for _, phase := range []string{"sweep-before", "sweep-after"} {
		for k := 1; k < 100; k++ {
			root := t.TempDir()
			writeTexts(t, root, files)
			before := snapshotDir(t, root)
			env := hookEnv(map[string]string{"CKPT_ROOT": root})
			if phase == "sweep-after" {
				if r := runBinary(bin, root, nil, env, "exec", "--turn", "1", "--", "true"); r.Code != 0 {
					t.Fatalf("first sweep: %+v", r)
				}
			}
			kenv := hookEnv(map[string]string{"CKPT_ROOT": root, "CKPT_FAILPOINT": phase + ":" + strconv.Itoa(k)})
			r := runBinary(bin, root, nil, kenv, "exec", "--turn", "1", "--", "sh", "-c", change)
			killed := r.Code != 0
			if v := runBinary(bin, root, nil, env, "verify"); v.Code != 0 {
				t.Fatalf("%s:%d: verify after the kill: %+v", phase, k, v)
			}
			// The next command of the turn picks up what the killed sweep
			// missed; a rewind then gives back the folder as it was.
			if r := runBinary(bin, root, nil, env, "exec", "--turn", "1", "--", "true"); r.Code != 0 {
				t.Fatalf("%s:%d: next command: %+v", phase, k, r)
			}
			if phase == "sweep-after" {
				if r := runBinary(bin, root, nil, env, "rewind", "1", "--yes"); r.Code != 0 {
					t.Fatalf("%s:%d: rewind: %+v", phase, k, r)
				}
				os.RemoveAll(filepath.Join(root, "out"))
				requireSnapshot(t, root, before, phase+":"+strconv.Itoa(k)+": after rewinding the turn")
			}
			if !killed {
				if k < 3 {
					t.Fatalf("%s: never killed", phase)
				}
				break
			}
		}
	}
}

// A release build (no ckptfailpoint tag) ignores CKPT_FAILPOINT: no
// environment variable can kill it in the middle of a write.
func TestReleaseBuildIgnoresFailpoints(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "ckpt")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644)
	cmd := exec.Command(bin, "--root", root, "capture", "--turn", "1", "a.txt")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CKPT_FAILPOINT=capture:1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("a release build honoured CKPT_FAILPOINT=capture:1: %v\n%s", err, out)
	}
}
