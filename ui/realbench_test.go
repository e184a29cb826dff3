package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ckpt-dev/ckpt/store"
)

// BenchmarkFirstFrameRealStore measures the first frame on a real store of
// 10,000 turns and 100,000 entries. Making that store takes minutes, so it
// runs only when CKPT_BENCH_STORE names a folder to keep it in (made on
// the first run, reused after).
func BenchmarkFirstFrameRealStore(b *testing.B) {
	dir := os.Getenv("CKPT_BENCH_STORE")
	if dir == "" {
		b.Skip("set CKPT_BENCH_STORE to a folder for the 10,000-turn store")
	}
	if _, err := os.Stat(filepath.Join(dir, ".osfoundry")); err != nil {
		makeBigStore(b, dir, 10000, 10)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	for b.Loop() {
		m, s := openFirstFrame(b, dir)
		if m.View().Content == "" || len(m.entries) < 10000 {
			b.Fatalf("%d entries", len(m.entries))
		}
		runtime.ReadMemStats(&after)
		s.Close()
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MiB")
}

// BenchmarkLogWithStatusRealStore is the badge pass that follows the first
// frame: the log with every path checked against the disk.
func BenchmarkLogWithStatusRealStore(b *testing.B) {
	dir := os.Getenv("CKPT_BENCH_STORE")
	if dir == "" {
		b.Skip("set CKPT_BENCH_STORE to a folder for the 10,000-turn store")
	}
	if _, err := os.Stat(filepath.Join(dir, ".osfoundry")); err != nil {
		makeBigStore(b, dir, 10000, 10)
	}
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for b.Loop() {
		if _, err := s.Log(true); err != nil {
			b.Fatal(err)
		}
	}
}

func makeBigStore(b *testing.B, dir string, turns, files int) {
	b.Helper()
	b.Logf("making a store of %d turns × %d files in %s", turns, files, dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	s, err := store.Open(dir, store.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for t := 0; t < turns; t++ {
		var paths []string
		for f := 0; f < files; f++ {
			p := filepath.Join(dir, fmt.Sprintf("pkg%03d", t%100), fmt.Sprintf("file%d.go", f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			paths = append(paths, p)
		}
		id, err := s.NewTurn(store.TurnMeta{Label: fmt.Sprintf("turn %d: refactor the module", t+1)})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Capture(id, store.TurnMeta{}, paths); err != nil {
			b.Fatal(err)
		}
		for i, p := range paths {
			if err := os.WriteFile(p, []byte(fmt.Sprintf("package x // turn %d file %d\n", t, i)), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Seal(id, paths); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFirstFrameSeed is the first frame on a seed-format store: one
// index.json of 10,000 turns and 100,000 entries over 2,000 files in 20
// folders, from opening the store to the first View, which shows the
// newest turn.
func BenchmarkFirstFrameSeed(b *testing.B) {
	dir := b.TempDir()
	ck := filepath.Join(dir, ".osfoundry", "checkpoints")
	if err := os.MkdirAll(ck, 0o755); err != nil {
		b.Fatal(err)
	}
	for d := range 20 {
		if err := os.MkdirAll(filepath.Join(dir, "src", fmt.Sprint("d", d)), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	var idx []byte
	idx = append(idx, '[')
	for t := range 10000 {
		if t > 0 {
			idx = append(idx, ',')
		}
		idx = fmt.Appendf(idx, `{"turn":%d,"label":"turn %d","at":%d,"files":[`, t+1, t+1, int64(1764412345123456789)+int64(t)*1e9)
		for k := range 10 {
			if k > 0 {
				idx = append(idx, ',')
			}
			i := (t*10 + k) % 2000
			idx = fmt.Appendf(idx, `{"path":"%s/src/d%d/f%d.txt","pre":{"kind":"content","sha256":"%064x","bytes":100}}`, dir, i%20, i, i+1)
		}
		idx = append(idx, "]}"...)
	}
	idx = append(idx, ']')
	if err := os.WriteFile(filepath.Join(ck, "index.json"), idx, 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		m, s := openFirstFrame(b, dir)
		if v := m.View().Content; !strings.Contains(v, "turn 10000") {
			b.Fatalf("the first frame does not show the newest turn:\n%s", v)
		}
		s.Close()
	}
}

// openFirstFrame opens the store in dir and the UI on it, sized: what the
// first frame needs.
func openFirstFrame(b *testing.B, dir string) (*Model, *store.Store) {
	b.Helper()
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	m := New(realStore{s}, Options{Poll: -1, NoWatch: true})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	return m, s
}

// BenchmarkFirstFrameTurns is the first frame, from opening the store to
// the first View, on the store CKPT_BENCH_TURNS_STORE names: one of the
// store package's BenchmarkLogTurns stores (scripts/bench-peers.sh runs
// it on the 20,000-turn one).
func BenchmarkFirstFrameTurns(b *testing.B) {
	dir := os.Getenv("CKPT_BENCH_TURNS_STORE")
	if dir == "" {
		b.Skip("set CKPT_BENCH_TURNS_STORE to a store of BenchmarkLogTurns")
	}
	run := func() {
		m, s := openFirstFrame(b, dir)
		if m.View().Content == "" || len(m.entries) == 0 {
			b.Fatalf("%d entries", len(m.entries))
		}
		s.Close()
	}
	run() // the summary, if the store has none yet
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for b.Loop() {
		run()
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
}
