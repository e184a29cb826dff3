package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// bigTurn gives turn 1 n more pre records, of paths that are not there,
// as thousands of calls of one turn leave it.
func bigTurn(t *testing.T, root string, n int) {
	t.Helper()
	var buf []byte
	for i := range n {
		buf = record.Append(buf, &record.Line{R: "pre", File: record.File{Path: fmt.Sprintf("gen/d%d/f%05d.go", i%40, i), Img: &Image{Kind: ImageAbsent}}, At: 1, N: 1})
	}
	f, err := os.OpenFile(filepath.Join(root, storeDir, "turns/1.log"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(buf)
	f.Close()
}

// TestCaptureInBigTurnReadsLittle: a capture and a seal in a turn of
// 20,000 records cost what they cost in a small one. Measured in bytes
// allocated, not time: reading the turn's whole file (5 MB) and decoding
// it, as every call once did, allocates far more than the bound.
func TestCaptureInBigTurnReadsLittle(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "a\n")
	wr(t, root, "b.txt", "b before\n")
	s := openStore(t, root)
	captureEditSeal(t, s, root, "1", []string{"a.txt"})
	bigTurn(t, root, 20000)
	captureEditSeal(t, s, root, "1", []string{"a.txt"}) // the first call after them reads them once
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := s.Capture("1", TurnMeta{}, []string{"b.txt"}); err != nil {
		t.Fatal(err)
	}
	wr(t, root, "b.txt", "b after\n")
	if err := s.Seal("1", []string{"b.txt"}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 2<<20 {
		t.Errorf("a capture and a seal in a turn of 20,000 records allocated %d bytes, want under 2 MiB", n)
	}
	r := rewind(t, s, "1")
	if len(r.Failed) > 0 || rd(t, root, "a.txt") != "a\n" || rd(t, root, "b.txt") != "b before\n" {
		t.Fatalf("rewind: %+v; a.txt %q, b.txt %q", r, rd(t, root, "a.txt"), rd(t, root, "b.txt"))
	}
}

// preCount counts the pre records of p in turn 1's file.
func preCount(t *testing.T, root, p string) int {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(root, storeDir, "turns/1.log"))
	n := 0
	record.Each(data, func(r *record.Line) {
		if r.R == "pre" && r.Path == p {
			n++
		}
	})
	return n
}

// TestTurnIndexNeverTrustedBlind: the turn's path index is a cache. A
// damaged one, one of another file, one naming a path at a record that is
// not its capture, or one behind records another writer appended (a
// shell sweep, an older ckpt) never makes a capture skip a path nor a
// seal refuse one: the first capture still wins, and the rewind gives
// every file back.
func TestTurnIndexNeverTrustedBlind(t *testing.T) {
	damages := []struct {
		name string
		do   func(t *testing.T, root string)
	}{
		{"garbage", func(t *testing.T, root string) {
			os.WriteFile(filepath.Join(root, storeDir, "turns/1.idx"), bytes.Repeat([]byte{0xa5}, 100), 0o600)
		}},
		{"cut mid-batch", func(t *testing.T, root string) {
			p := filepath.Join(root, storeDir, "turns/1.idx")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)-7], 0o600)
		}},
		{"of another file", func(t *testing.T, root string) {
			p := filepath.Join(root, storeDir, "turns/1.log")
			b, _ := os.ReadFile(p)
			os.Remove(p)
			os.WriteFile(p, b, 0o600) // the same bytes, another inode
		}},
		{"entries at the wrong records", func(t *testing.T, root string) {
			p := filepath.Join(root, storeDir, "turns/1.idx")
			b, _ := os.ReadFile(p)
			one := []byte{1, 0, 0, 0, 0, 0, 0, 0} // offset 0, plus one
			for off := 64; off+32 <= len(b); off += 32 {
				if !bytes.Equal(b[off+24:off+32], make([]byte, 8)) {
					copy(b[off:], one) // every pre and post at the header
					copy(b[off+8:], one)
				}
			}
			os.WriteFile(p, b, 0o600)
		}},
		{"records past it from another writer", func(t *testing.T, root string) {
			s := openStore(t, root)
			if _, err := s.SweepBefore("1", TurnMeta{}, "sed -i"); err != nil {
				t.Fatal(err)
			}
			wr(t, root, "c.txt", "c by the command\n")
			if _, err := s.SweepAfter("1", TurnMeta{}, "sed -i"); err != nil {
				t.Fatal(err)
			}
		}},
		{"a torn record past it", func(t *testing.T, root string) {
			f, _ := os.OpenFile(filepath.Join(root, storeDir, "turns/1.log"), os.O_WRONLY|os.O_APPEND, 0)
			f.Write([]byte(`1234abcd {"r":"pre","p":"d.txt"`))
			f.Close()
		}},
	}
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			root := t.TempDir()
			wr(t, root, "a.txt", "a before\n")
			wr(t, root, "b.txt", "b before\n")
			wr(t, root, "c.txt", "c before\n")
			wr(t, root, "d.txt", "d before\n")
			s := openStore(t, root)
			captureEditSeal(t, s, root, "1", []string{"a.txt"})
			bigTurn(t, root, 200) // long enough to want an index
			captureEditSeal(t, s, root, "1", []string{"a.txt"})
			if _, err := os.Stat(filepath.Join(root, storeDir, "turns/1.idx")); err != nil {
				t.Fatalf("no index after a capture: %v", err)
			}
			d.do(t, root)
			s = openStore(t, root)
			captureEditSeal(t, s, root, "1", []string{"a.txt", "b.txt", "c.txt", "d.txt"})
			captureEditSeal(t, s, root, "1", []string{"a.txt", "b.txt", "c.txt", "d.txt"})
			for _, p := range []string{"a.txt", "b.txt", "c.txt", "d.txt"} {
				if n := preCount(t, root, p); n != 1 {
					t.Errorf("%s captured %d times, want once", p, n)
				}
			}
			if fs, err := s.Verify(); err != nil || len(fs) > 0 {
				t.Fatalf("verify: %v %v", fs, err)
			}
			r := rewind(t, s, "1")
			if len(r.Failed) > 0 {
				t.Fatalf("rewind: %+v", r)
			}
			for _, p := range []string{"a.txt", "b.txt", "c.txt", "d.txt"} {
				if got, want := rd(t, root, p), strings.TrimSuffix(p, ".txt")+" before\n"; got != want {
					t.Errorf("%s after the rewind: %q, want %q", p, got, want)
				}
			}
		})
	}
}

// TestShellInBigTurnReadsLittle: a shell command's sweep late in a turn
// of 20,000 records finds what the turn holds of the paths it changed
// through the turn's path index, as a capture does, not by reading the
// turn's whole file; and a path the agent's file tool sealed with the
// bytes the command found is not recorded again.
func TestShellInBigTurnReadsLittle(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "a\n")
	wr(t, root, "b.txt", "b before\n")
	s := openStore(t, root)
	captureEditSeal(t, s, root, "1", []string{"a.txt"})
	bigTurn(t, root, 20000)
	captureEditSeal(t, s, root, "1", []string{"a.txt"}) // the first call after them reads them once
	if _, err := s.SweepBefore("1", TurnMeta{}, "true"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepAfter("1", TurnMeta{}, "true"); err != nil {
		t.Fatal(err)
	}
	// The file tool writes a.txt again, and seals it; then a command
	// writes b.txt. The sweep after it finds both changed since its
	// baseline, and records b.txt alone: a.txt's change is the file
	// tool's, as its notes say.
	if _, err := s.Capture("1", TurnMeta{}, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	wr(t, root, "a.txt", "a by the file tool\n")
	if err := s.Seal("1", []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepBefore("1", TurnMeta{}, "make"); err != nil {
		t.Fatal(err)
	}
	wr(t, root, "b.txt", "b after\n")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := s.SweepAfter("1", TurnMeta{}, "make")
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 2<<20 {
		t.Errorf("a sweep in a turn of 20,000 records allocated %d bytes, want under 2 MiB", n)
	}
	if got := strings.Join(res.Changed, " "); got != "b.txt" {
		t.Fatalf("the sweep recorded %q, want b.txt", got)
	}
	data, _ := os.ReadFile(filepath.Join(root, storeDir, "turns/1.log"))
	var shellA, shellB int
	record.Each(data, func(r *record.Line) {
		if r.R == "post" && r.Cmd == "make" {
			switch r.Path {
			case "a.txt":
				shellA++
			case "b.txt":
				shellB++
			}
		}
	})
	if shellA != 0 || shellB != 1 {
		t.Fatalf("the command's post records: %d of a.txt, %d of b.txt; want 0 and 1", shellA, shellB)
	}
}

// TestTurnIndexAgreesWithTurnFile: over hundreds of captures and seals
// of a hundred paths, the index grows, is written anew and covers more
// as it goes, its slots running ahead of what it covers in between (by
// no more than the last call's records: each call's barrier covers the
// calls before it); and
// after every call what it answers (a path captured, its newest seal) is
// what the whole turn file says, without once leading to a record that
// is not the path's.
func TestTurnIndexAgreesWithTurnFile(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	seen := map[string]bool{}
	slotsSeen := map[int64]bool{}
	for call := range 300 {
		p := fmt.Sprintf("d%d/f%03d.txt", call%7, (call*37)%100)
		wr(t, root, p, "before\n")
		if _, err := s.Capture("1", TurnMeta{}, []string{p}); err != nil {
			t.Fatal(err)
		}
		wr(t, root, p, fmt.Sprintf("call %d\n", call))
		if err := s.Seal("1", []string{p}); err != nil {
			t.Fatal(err)
		}
		seen[p] = true
		full, _, err := s.readTurnFile("1", false)
		if err != nil {
			t.Fatal(err)
		}
		tp, err := s.openTurnPaths("1", false)
		if err != nil {
			t.Fatal(err)
		}
		for q := range seen {
			post, ok := tp.lastPost(q)
			want := full.byPath[q].post
			if !tp.has(q) || !ok || want == nil || post.SHA256 != want.SHA256 {
				t.Fatalf("call %d: %s: has %v, newest seal %v %v, the turn file's %v", call, q, tp.has(q), ok, post, want)
			}
		}
		if tp.has("never/captured.txt") {
			t.Fatalf("call %d: a path never captured is held", call)
		}
		if tp.damaged {
			t.Fatalf("call %d: the index led to a record that is not its path's", call)
		}
		if tp.ix != nil {
			fi, _ := tp.ixf.Stat()
			slotsSeen[fi.Size()] = true
			// A seal's barrier covers what the calls before it merged:
			// what is left is the seal's own record.
			if tp.size-tp.ix.Covered > 1024 {
				t.Fatalf("call %d: %d bytes past what the index covers", call, tp.size-tp.ix.Covered)
			}
		}
		tp.close()
	}
	if len(slotsSeen) < 2 {
		t.Fatalf("the index never grew: sizes %v", slotsSeen)
	}
}
