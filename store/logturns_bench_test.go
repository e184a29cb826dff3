package store

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// manyTurns is a store of n turns of 5 sealed files each, its turn files
// written directly (the records a capture and a seal write, without their
// barriers), kept in the temporary folder across runs.
var manyTurns sync.Map

func manyTurnsStore(b *testing.B, n int) string {
	if v, ok := manyTurns.Load(n); ok {
		return v.(string)
	}
	root := filepath.Join(os.TempDir(), "ckpt-bench", "turns-"+strconv.Itoa(n))
	if _, err := os.Stat(filepath.Join(root, "built")); err != nil {
		os.RemoveAll(root)
		os.RemoveAll(root + ".tmp")
		os.MkdirAll(root+".tmp", 0o755)
		s, err := Open(root+".tmp", Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now().Add(-24 * time.Hour).UnixNano()
		for t := 1; t <= n; t++ {
			id := strconv.Itoa(t)
			var buf []byte
			at := now + int64(t)*int64(time.Millisecond)
			buf = record.Append(buf, &record.Line{R: "turn", Turn: record.Turn{V: formatVersion, ID: id, Label: "turn " + id + ": refactor the module"}, At: at, N: at})
			for j := range 5 {
				p := fmt.Sprintf("pkg%03d/file%d.go", t%100, j)
				pre := &Image{Kind: ImageContent, SHA256: blobIDOf([]byte(p + id)), Size: 100, Mode: 0o644, Kept: true}
				post := &Image{Kind: ImageContent, SHA256: blobIDOf([]byte(p + id + "post")), Size: 120, Mode: 0o644, Kept: true}
				buf = record.Append(buf, &record.Line{R: "pre", File: record.File{Path: p, Img: pre}, At: at, N: at + 1})
				buf = record.Append(buf, &record.Line{R: "post", File: record.File{Path: p, Img: post}, At: at, N: at + 2})
			}
			os.MkdirAll(filepath.Join(root+".tmp", storeDir, "turns"), 0o700)
			if err := os.WriteFile(filepath.Join(root+".tmp", storeDir, turnFileName(id)), buf, 0o600); err != nil {
				b.Fatal(err)
			}
		}
		// What the writers of those records would have left: the lock
		// they took and the clock their order numbers came from.
		os.WriteFile(filepath.Join(root+".tmp", storeDir, "lock"), nil, 0o600)
		last := now + int64(n)*int64(time.Millisecond) + 2
		os.WriteFile(filepath.Join(root+".tmp", storeDir, clockFile), fmt.Appendf(nil, "%020d\n", last), 0o600)
		s.Close()
		os.WriteFile(filepath.Join(root+".tmp", "built"), nil, 0o644)
		if err := os.Rename(root+".tmp", root); err != nil {
			b.Fatal(err)
		}
	}
	manyTurns.Store(n, root)
	return root
}

// BenchmarkLogTurns is the log as `ckpt log --json` reads it (with each
// turn's files changed since the agent) and as the UI's first frame reads
// it (without), from opening the store, at 2,000 and 20,000 turns: with
// the summary file (written by the first run), and without it (every
// turn file read). Besides the time it reports the CPU time per call,
// which a busy machine changes less.
func BenchmarkLogTurns(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		root := manyTurnsStore(b, n)
		for _, status := range []bool{false, true} {
			for _, summary := range []bool{true, false} {
				b.Run(fmt.Sprintf("turns=%d/status=%v/summary=%v", n, status, summary), func(b *testing.B) {
					fromOpen(b, root, summary, func(s *Store) {
						es, err := s.Log(status)
						if err != nil || len(es) != n {
							b.Fatalf("%d entries, %v", len(es), err)
						}
					})
				})
			}
		}
	}
}

// fromOpen times op on the store at root, opened for each call and
// closed after it, with the summary or without it (every turn file read),
// and reports the CPU time per call too. A first call, untimed, writes
// the summary, when there is to be one.
func fromOpen(b *testing.B, root string, summary bool, op func(s *Store)) {
	defer func(m int) { summaryMin = m }(summaryMin)
	if !summary {
		summaryMin = math.MaxInt
	}
	run := func() {
		s, err := Open(root, Options{})
		if err != nil {
			b.Fatal(err)
		}
		op(s)
		s.Close()
	}
	run()
	cpu := procCPU()
	for b.Loop() {
		run()
	}
	b.ReportMetric(float64(procCPU()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

// procCPU is the user and system time this process has used, in ns.
func procCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkShowTurns is `ckpt show` of the newest turn and of one in the
// middle, with each path's status, from opening the store, at 2,000 and
// 20,000 turns (the stores of BenchmarkLogTurns), with the summary and
// without it.
func BenchmarkShowTurns(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		root := manyTurnsStore(b, n)
		for _, id := range []string{strconv.Itoa(n), strconv.Itoa(n / 2)} {
			for _, summary := range []bool{true, false} {
				b.Run(fmt.Sprintf("turns=%d/turn=%s/summary=%v", n, id, summary), func(b *testing.B) {
					fromOpen(b, root, summary, func(s *Store) {
						sh, err := s.Show(id, true)
						if err != nil || len(sh.Files) != 5 {
							b.Fatalf("%+v, %v", sh, err)
						}
					})
				})
			}
		}
	}
}

// BenchmarkLogAfterWriter is `ckpt log --json` at 20,000 turns just after
// another process appended a record to a turn (a relabel) or opened a
// turn, the summary's generation being from before (and, for comparison,
// with no writer since it): read through the
// clock journal (journal=true), and with the journal gone, as a store an
// older ckpt wrote is read (every turn file listed and stated). The store
// is a copy of BenchmarkLogTurns's; the settling times are the ones
// outside tests, so the turn just written is not summarized. Only the
// load is timed, and its CPU time reported.
func BenchmarkLogAfterWriter(b *testing.B) {
	const n = 20000
	src := manyTurnsStore(b, n)
	defer func(s, g time.Duration) { summarySettle, genSettle = s, g }(summarySettle, genSettle)
	summarySettle, genSettle = 2*time.Second, 2*time.Second
	for _, what := range []string{"none", "append", "newturn"} {
		for _, journal := range []bool{false, true} {
			if what == "none" && !journal {
				continue
			}
			b.Run(fmt.Sprintf("turns=%d/%s/journal=%v", n, what, journal), func(b *testing.B) {
				root := filepath.Join(b.TempDir(), "p")
				if out, err := exec.Command("cp", "-a", src, root).CombinedOutput(); err != nil {
					b.Fatalf("copy the store: %v: %s", err, out)
				}
				time.Sleep(genSettle + 100*time.Millisecond) // the copy's folders left alone
				w, err := Open(root, Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer w.Close()
				turns := n
				load := func() {
					s, err := Open(root, Options{})
					if err != nil {
						b.Fatal(err)
					}
					es, err := s.Log(true)
					if err != nil || len(es) != turns {
						b.Fatalf("%d entries, want %d, %v", len(es), turns, err)
					}
					s.Close()
				}
				load() // the summary and its generation, as a quiet moment leaves them
				var cpu int64
				i := 0
				for b.Loop() {
					b.StopTimer()
					i++
					switch what {
					case "append":
						must(b, w.Relabel(TurnID(strconv.Itoa(n/2)), "relabelled "+strconv.Itoa(i)))
					case "newturn":
						_, err := w.NewTurn(TurnMeta{Label: "new " + strconv.Itoa(i)})
						must(b, err)
						turns++
					}
					if !journal {
						must(b, os.Remove(filepath.Join(root, storeDir, journalFile)))
					}
					c := procCPU()
					b.StartTimer()
					load()
					b.StopTimer()
					cpu += procCPU() - c
					b.StartTimer()
				}
				b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}
