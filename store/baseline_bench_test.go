package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// synthBaseline is a baseline of n files in folders of 100, as a tree
// of Go sources lays them out.
func synthBaseline(n int) *baseline {
	b := &baseline{at: 1900000000000000000, turn: "1", cmd: "make", rules: map[string][]byte{".gitignore": []byte("out/\n")}}
	for d := 0; d < n/100; d++ {
		b.entries = append(b.entries, baseEntry{path: fmt.Sprintf("src/pkg%04d", d), kind: baseDir, mode: 0o755, mtime: 1, ctime: 1, ino: uint64(d + 1)})
		for f := 0; f < 99 && len(b.entries) < n; f++ {
			b.entries = append(b.entries, baseEntry{path: fmt.Sprintf("src/pkg%04d/file%03d.go", d, f), kind: baseFile, mode: 0o644,
				size: 1234, mtime: 1700000000000000000 + int64(f), ctime: 1700000000000000000, ino: uint64(n + d*100 + f), sum: BlobID{byte(f), byte(d)}})
		}
	}
	return b
}

// BenchmarkBaselineStep prices the baseline's part of one shell step
// that changes 3 files of one folder, at 300,000 entries, in three
// designs: the whole file read and written again (version 4); a table
// read by block with the change written as a new table (every step a
// compaction); and the table with the change appended to the log
// (version 5). The last reads a few blocks and writes a few hundred
// bytes; the others read or write every entry.
func BenchmarkBaselineStep(b *testing.B) {
	const n = 300000
	bl := synthBaseline(n)
	step := func(i int) (dir string, puts []*baseEntry) {
		dir = fmt.Sprintf("src/pkg%04d", (i*37)%(n/100))
		for f := range 3 {
			e := baseEntry{path: fmt.Sprintf("%s/file%03d.go", dir, f), kind: baseFile, mode: 0o644, size: int64(2000 + i), mtime: 1800000000000000000 + int64(i), ino: uint64(f)}
			puts = append(puts, &e)
		}
		return dir, puts
	}
	b.Run("whole-file", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "baseline")
		if err := os.WriteFile(path, bl.encode(), 0o600); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			old, err := decodeBaseline(data)
			if err != nil {
				b.Fatal(err)
			}
			_, puts := step(i)
			for _, p := range puts {
				if e := old.find(p.path); e != nil {
					*e = *p
				}
			}
			if err := os.WriteFile(path+".tmp", old.encode(), 0o600); err != nil {
				b.Fatal(err)
			}
			if err := os.Rename(path+".tmp", path); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, design := range []string{"table-rewritten", "table-and-log"} {
		b.Run(design, func(b *testing.B) {
			s, err := Open(b.TempDir(), Options{Create: true})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if err := s.ensureDirs(); err != nil {
				b.Fatal(err)
			}
			if err := s.saveBaseline(synthBaseline(n)); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				old, err := s.openBaseline(true)
				if err != nil || old == nil {
					b.Fatal(err)
				}
				dir, puts := step(i)
				var scope []baseEntry
				if err := old.src.children(dir, func(e *baseEntry) { scope = append(scope, *e) }); err != nil {
					b.Fatal(err)
				}
				nb := &baseline{at: old.at + 1, turn: "2", cmd: "make", ops: old.ops, rules: old.rules, recheck: old.recheck}
				if design == "table-rewritten" {
					err = s.writeBaselineFrom(old, nb, puts, nil, &failpoint{})
				} else {
					err = s.saveSweep(old, nb, false, puts, nil, &failpoint{})
				}
				old.close()
				if err != nil {
					b.Fatal(err)
				}
				if len(scope) == 0 {
					b.Fatal("no entries in", dir)
				}
			}
		})
	}
}
