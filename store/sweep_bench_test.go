package store

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain removes the shared benchmark tree once every benchmark of the
// run is done with it; a tree per run would otherwise stay in the
// temporary folder.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchTreeDir != "" {
		os.RemoveAll(benchTreeDir)
	}
	os.Exit(code)
}

var (
	benchTreeOnce sync.Once
	benchTreeDir  string
)

// benchTree is four copies of the first 4,686 files of $(go env GOROOT)/src
// (18,744 files), aged past the racy window; shared by the benchmarks.
func benchTree(b *testing.B) string {
	b.Helper()
	benchTreeOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			b.Fatalf("go env GOROOT: %v", err)
		}
		goroot := strings.TrimSpace(string(out))
		src := filepath.Join(goroot, "src")
		var files []string
		filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil && fi.Size() < 8<<20 {
					rel, _ := filepath.Rel(src, p)
					files = append(files, filepath.ToSlash(rel))
				}
			}
			return nil
		})
		sort.Strings(files)
		files = files[:min(4686, len(files))]
		dir, err := os.MkdirTemp("", "ckpt-sweep-bench")
		if err != nil {
			b.Fatal(err)
		}
		for c := 1; c <= 4; c++ {
			for _, f := range files {
				data, err := os.ReadFile(filepath.Join(src, f))
				if err != nil {
					continue
				}
				p := filepath.Join(dir, "copy"+string(rune('0'+c)), filepath.FromSlash(f))
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, data, 0o644)
			}
		}
		// Files written in the last two seconds are re-read by every
		// sweep (racily clean); a real tree is older.
		time.Sleep(2*time.Duration(racyWindow) + time.Second)
		benchTreeDir = dir
	})
	if benchTreeDir == "" {
		b.Skip("no tree")
	}
	return benchTreeDir
}

// BenchmarkSweepWarm is a shell step's two sweeps, in process, with one
// file changed between them.
func BenchmarkSweepWarm(b *testing.B) {
	root := benchTree(b)
	os.RemoveAll(filepath.Join(root, ".osfoundry"))
	s, err := Open(root, Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	turn, _ := s.NewTurn(TurnMeta{Label: "bench"})
	if _, err := s.SweepBefore(turn, TurnMeta{}, "make"); err != nil {
		b.Fatal(err)
	}
	f := filepath.Join(root, "copy2", "go.mod")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.SweepBefore(turn, TurnMeta{}, "make"); err != nil {
			b.Fatal(err)
		}
		os.WriteFile(f, []byte("module std // "+time.Now().String()+"\n"), 0o644)
		if _, err := s.SweepAfter(turn, TurnMeta{}, "make"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSweepCold is the first sweep of the tree into a fresh store.
func BenchmarkSweepCold(b *testing.B) {
	root := benchTree(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.RemoveAll(filepath.Join(root, ".osfoundry"))
		s, err := Open(root, Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := s.SweepBefore("", TurnMeta{}, ""); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkWalk is the listing alone: one stat per entry, folders matched
// against the .gitignore files; every folder read, or, compared with the
// baseline, the folders as it lists them (unchanged since).
func BenchmarkWalk(b *testing.B) {
	root := benchTree(b)
	b.Run("read", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, _, _, err := walkTree(root); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("from-baseline", func(b *testing.B) {
		os.RemoveAll(filepath.Join(root, ".osfoundry"))
		s, err := Open(root, Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		if _, err := s.SweepBefore("", TurnMeta{}, ""); err != nil {
			b.Fatal(err)
		}
		old, err := s.loadBaseline()
		if err != nil || old == nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, _, err := walkChanged(root, nil, old); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkBaselineLoad decodes a baseline of 100,000 entries.
func BenchmarkBaselineLoad(b *testing.B) {
	bl := &baseline{at: 1}
	for i := 0; i < 100000; i++ {
		bl.entries = append(bl.entries, baseEntry{path: "src/pkg" + itoa(i/100) + "/file" + itoa(i) + ".go", kind: baseFile, mode: 0o644, size: 1234, mtime: 1700000000000000000 + int64(i), ctime: 1700000000000000000, ino: uint64(i)})
	}
	sort.Slice(bl.entries, func(i, j int) bool { return bl.entries[i].path < bl.entries[j].path })
	data := bl.encode()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := decodeBaseline(data); err != nil {
			b.Fatal(err)
		}
	}
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + string(appendInt(nil, i))) }

func appendInt(b []byte, i int) []byte {
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}

// BenchmarkWalkGitignores lists a tree of 1,000 folders (5 files each),
// with a 4-pattern .gitignore in every folder or in none, to price the
// matcher.
func BenchmarkWalkGitignores(b *testing.B) {
	for _, with := range []bool{false, true} {
		name := "none"
		if with {
			name = "every-folder"
		}
		b.Run(name, func(b *testing.B) {
			root := b.TempDir()
			for d := 0; d < 1000; d++ {
				dir := filepath.Join(root, "a"+itoa(d%10), "b"+itoa(d/10%10), "c"+itoa(d))
				os.MkdirAll(dir, 0o755)
				for f := 0; f < 5; f++ {
					os.WriteFile(filepath.Join(dir, "f"+itoa(f)+".txt"), []byte("x"), 0o644)
				}
				if with {
					os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("build/\n*.o\n!keep.o\n/dist\n"), 0o644)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, _, err := walkTree(root); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
