package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The long session: a tree of about 4,700 files (a copy of the first
// 4,686 of Go's src), then 2,000 turns of 5 edits each, every fourth
// turn also a shell step that writes 12 files (500 shell steps), with the
// background pass after each turn (MaintenanceDue, then Maintain), as
// the hooks run it. CKPT_BENCH_TURNS sets another number of turns.
var longSession struct {
	once  sync.Once
	root  string
	fresh string
	files []string
	packs int // after the session, before the benchmark's own sweeps
	loose int
	size  int64
	end   time.Time // when the session's last write was
	err   error
}

func longTurns() int {
	if n, err := strconv.Atoi(os.Getenv("CKPT_BENCH_TURNS")); err == nil && n > 0 {
		return n
	}
	return 2000
}

// longTree copies one of benchTree's four copies to a project of its own,
// under $CKPT_BENCH_LONG_DIR when it is set (scripts/bench-peers.sh looks
// at the session's store afterwards with the ckpt binary).
func longTree(b *testing.B, name string) (string, []string) {
	src := filepath.Join(benchTree(b), "copy1")
	dst := filepath.Join(os.TempDir(), fmt.Sprintf("ckpt-long-%d-%s", os.Getpid(), name))
	if dir := os.Getenv("CKPT_BENCH_LONG_DIR"); dir != "" {
		dst = filepath.Join(dir, name)
	}
	os.RemoveAll(dst)
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		b.Fatal(err)
	}
	var files []string
	filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dst, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	// Aged past the racy window, as a real tree is.
	old := time.Now().Add(-time.Hour)
	for _, f := range files {
		os.Chtimes(filepath.Join(dst, f), old, old)
	}
	return dst, files
}

func buildLongSession(b *testing.B) {
	longSession.once.Do(func() {
		root, files := longTree(b, "long")
		fresh, _ := longTree(b, "fresh")
		longSession.root, longSession.fresh, longSession.files = root, fresh, files
		start := time.Now()
		longSession.err = runLongSession(root, files, longTurns())
		longSession.end = time.Now()
		if s, err := Open(root, Options{}); err == nil {
			longSession.packs, longSession.loose = s.PackCounts()
			longSession.size, _ = s.Size()
			s.Close()
		}
		b.Logf("long session of %d turns built in %v", longTurns(), time.Since(start).Round(time.Second))
		s, err := Open(fresh, Options{Create: true})
		if err == nil {
			_, err = s.SweepBefore("", TurnMeta{}, "")
			s.Close()
		}
		if longSession.err == nil {
			longSession.err = err
		}
		// What the session and the fresh store's first sweep wrote is
		// written back now, not inside the sweeps timed below (whichever
		// ran first would pay for it).
		syscall.Sync()
	})
	if longSession.err != nil {
		b.Fatal(longSession.err)
	}
}

func runLongSession(root string, files []string, turns int) error {
	s, err := Open(root, Options{Create: true})
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := s.SweepBefore("", TurnMeta{}, ""); err != nil {
		return err
	}
	edit := func(p string, i int) error {
		return os.WriteFile(filepath.Join(root, p), fmt.Appendf(nil, "edit %d of %s\n%0400d\n", i, p, i), 0o644)
	}
	for t := 1; t <= turns; t++ {
		id := strconv.Itoa(t)
		var paths []string
		for j := range 5 {
			paths = append(paths, files[(t*5+j)*7%len(files)])
		}
		if _, err := s.Capture(TurnID(id), TurnMeta{Label: "turn " + id}, paths); err != nil {
			return err
		}
		for _, p := range paths {
			if err := edit(p, t); err != nil {
				return err
			}
		}
		if err := s.Seal(TurnID(id), paths); err != nil {
			return err
		}
		if t%4 == 0 {
			if _, err := s.SweepBefore(TurnID(id), TurnMeta{}, "make"); err != nil {
				return err
			}
			for j := range 12 {
				if err := edit(files[(t*12+j)*13%len(files)], t); err != nil {
					return err
				}
			}
			if _, err := s.SweepAfter(TurnID(id), TurnMeta{}, "make"); err != nil {
				return err
			}
		}
		if s.MaintenanceDue() {
			if _, err := s.Maintain(DefaultBudget, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// BenchmarkLongSession is a 12-file sweep (a shell step's sweep after a
// command that wrote 12 files) in the long session's store and, side by
// side, in a fresh store of the same tree; it reports the packs and the
// store's size after the session, the CPU time of a step (a busy machine
// changes it less than the time) and how many steps wrote a new table of
// the baseline (tables/op: a table written in a hook's sweep costs the
// step its writing, the freeing of the old one and the next flush).
func BenchmarkLongSession(b *testing.B) {
	buildLongSession(b)
	for _, c := range []struct{ name, root string }{{"fresh", longSession.fresh}, {"long", longSession.root}} {
		b.Run("sweep12/"+c.name, func(b *testing.B) {
			s, err := Open(c.root, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			// The session's last edits are racy until racyWindow has
			// passed (the fresh tree's files are aged): a sweep before
			// then hashes them again, as it would the last edits of any
			// turn, in a store of any age. Both stores are compared
			// settled.
			time.Sleep(time.Until(longSession.end.Add(time.Duration(racyWindow) + 100*time.Millisecond)))
			id := "bench-" + c.name
			if _, err := s.SweepBefore(TurnID(id), TurnMeta{}, "make"); err != nil {
				b.Fatal(err)
			}
			files := longSession.files
			i := 0
			var cpu int64
			tables := 0
			table := filepath.Join(c.root, storeDir, baselineFile)
			was, _ := os.Stat(table)
			for b.Loop() {
				b.StopTimer()
				for j := range 12 {
					p := files[(i*12+j)*17%len(files)]
					os.WriteFile(filepath.Join(c.root, p), fmt.Appendf(nil, "bench %d %s\n%0300d\n", i, p, i), 0o644)
				}
				i++
				b.StartTimer()
				cpu -= procCPU()
				// A store opened per step, as a hook's process opens it.
				s2, err := Open(c.root, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s2.SweepAfter(TurnID(id), TurnMeta{}, "make"); err != nil {
					b.Fatal(err)
				}
				s2.Close()
				cpu += procCPU()
				b.StopTimer()
				if fi, err := os.Stat(table); err == nil && (was == nil || !os.SameFile(fi, was)) {
					tables++
					was = fi
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(tables)/float64(b.N), "tables/op")
			if c.name == "long" {
				b.ReportMetric(float64(longSession.packs), "session-packs")
				b.ReportMetric(float64(longSession.loose), "session-loose")
				b.ReportMetric(float64(longSession.size)/(1<<20), "session-MiB")
			}
		})
	}
}
