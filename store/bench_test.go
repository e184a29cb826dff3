package store_test

// Benchmarks of the costs the store promises (README, "Speed"):
//
//   - BenchmarkCapture: a 4-file turn in stores of 0, 60,000 and 600,000
//     entries, as four hook calls do it (open, capture one file, close, four
//     times, in this process: the cost of starting a process is not in it)
//     and as one open store does it (one Capture of 4 paths). A capture
//     reads and writes only its own turn's records, so the cost must stay
//     flat as the store grows.
//   - BenchmarkTreeWriteFloor: writing the tree's files plainly, the floor
//     the tree benchmarks stand on for this machine's disk.
//   - BenchmarkLogJSONish: Log(true), encoded as `log --json` encodes it, on
//     the 60,000-entry store.
//   - BenchmarkCaptureTree: one Capture of the first 4,686 files, sorted by
//     path, of a copy of $(go env GOROOT)/src (files under 8 MiB; about
//     54 MB for Go 1.26), reporting the bytes the store occupies against the
//     raw bytes. $CKPT_BENCH_TREE_FILES changes the count (0: every file).
//   - BenchmarkRewindTree: a rewind of all those files after each was
//     modified.
//
// Every figure has the store's real durability on. The big stores are
// built once and kept under os.TempDir()/ckpt-bench, keyed by size, so
// reruns start at once; delete that folder to rebuild them. Each benchmark
// works on a clone made of hard links, so the kept stores never grow. The
// Go tree is kept there too, read-only, and hard-linked the same way.

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

const (
	benchPerTurn   = 500  // entries per turn while building a big store
	benchSmallFile = 2000 // small files the build turns capture, besides absent paths
)

func benchDir(b *testing.B) string {
	d := filepath.Join(os.TempDir(), "ckpt-bench")
	if err := os.MkdirAll(d, 0o755); err != nil {
		b.Fatal(err)
	}
	return d
}

// bigStore returns a project root whose store holds entries entries, built
// on first use and cached across runs.
func bigStore(b *testing.B, entries int) string {
	b.Helper()
	if entries == 0 {
		root := b.TempDir()
		s, err := store.Open(root, store.Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
		return root
	}
	root := filepath.Join(benchDir(b), "store-"+strconv.Itoa(entries))
	if usable(root, entries) {
		return cloneTree(b, root)
	}
	os.RemoveAll(root)
	building := fmt.Sprintf("%s.building-%d", root, os.Getpid())
	os.RemoveAll(building)
	start := time.Now()
	if err := buildStore(building, entries); err != nil {
		os.RemoveAll(building)
		b.Fatalf("build a store of %d entries: %v", entries, err)
	}
	if err := os.Rename(building, root); err != nil {
		os.RemoveAll(building)
		if !usable(root, entries) {
			b.Fatalf("keep the store of %d entries: %v", entries, err)
		}
	}
	b.Logf("built a store of %d entries in %v (kept in %s)", entries, time.Since(start).Round(time.Millisecond), root)
	return cloneTree(b, root)
}

// cloneTree makes a copy of the folder src in a temporary folder, its files
// hard links to src's (copies where links fail). The store only ever adds
// files or replaces them by renaming, so src is left as it was.
func cloneTree(b *testing.B, src string) string {
	b.Helper()
	dst := filepath.Join(b.TempDir(), "project")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(to, fi.Mode().Perm())
		case d.Type().IsRegular():
			if os.Link(p, to) == nil {
				return nil
			}
			return copyFile(p, to, fi.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		b.Fatalf("clone %s: %v", src, err)
	}
	return dst
}

// usable says whether root holds a finished build that this store code
// reads: a marker, and the first build turn with all its entries.
func usable(root string, entries int) bool {
	if b, err := os.ReadFile(filepath.Join(root, "built")); err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(entries) {
		return false
	}
	s, err := store.Open(root, store.Options{})
	if err != nil {
		return false
	}
	defer s.Close()
	fs, err := s.Files("build-0", false)
	return err == nil && len(fs) == benchPerTurn
}

// buildStore makes a project at root whose store holds entries entries:
// turns of benchPerTurn paths, a fifth of them small files (kept as blobs,
// mostly shared between turns) and the rest absent paths.
func buildStore(root string, entries int) error {
	if err := os.MkdirAll(filepath.Join(root, "small"), 0o755); err != nil {
		return err
	}
	for i := range benchSmallFile {
		data := fmt.Sprintf("small file %d\n%s", i, strings.Repeat("x", i%300))
		if err := os.WriteFile(filepath.Join(root, "small", fmt.Sprintf("f%04d.txt", i)), []byte(data), 0o644); err != nil {
			return err
		}
	}
	s, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		return err
	}
	defer s.Close()
	paths := make([]string, benchPerTurn)
	for t := range entries / benchPerTurn {
		for j := range paths {
			if j < benchPerTurn/5 {
				paths[j] = fmt.Sprintf("small/f%04d.txt", (t*7+j)%benchSmallFile)
			} else {
				paths[j] = fmt.Sprintf("gone/d%03d/t%d-%d.txt", j%100, t, j)
			}
		}
		if _, err := s.Capture(store.TurnID(fmt.Sprintf("build-%d", t)), store.TurnMeta{Label: fmt.Sprintf("build turn %d", t)}, paths); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(root, "built"), []byte(strconv.Itoa(entries)+"\n"), 0o644)
}

// hotFiles makes the four files each benchmark turn captures, and returns
// a function that gives them new bytes (so every capture keeps new blobs).
func hotFiles(b *testing.B, root string) ([]string, func(i int)) {
	paths := []string{"hot/handler.go", "hot/handler_test.go", "hot/README.md", "hot/config.json"}
	if err := os.MkdirAll(filepath.Join(root, "hot"), 0o755); err != nil {
		b.Fatal(err)
	}
	stamp := time.Now().UnixNano()
	touch := func(i int) {
		for k, p := range paths {
			data := fmt.Sprintf("// %s, version %d-%d\n%s", p, stamp, i, strings.Repeat("some source text\n", 40+k*30))
			// Replace the file: a clone's files are links to the kept store's.
			os.Remove(filepath.Join(root, p))
			if err := os.WriteFile(filepath.Join(root, p), []byte(data), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	touch(-1)
	return paths, touch
}

func BenchmarkCapture(b *testing.B) {
	for _, n := range []int{0, 60_000, 600_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			if n >= 600_000 && testing.Short() {
				b.Skip("the 600,000-entry store takes a while to build the first time")
			}
			root := bigStore(b, n)
			paths, touch := hotFiles(b, root)
			prefix := fmt.Sprintf("bench-%d", time.Now().UnixNano())

			// As hooks do it: four processes, each opening the store and
			// capturing the one file its tool call is about to write.
			b.Run("hook", func(b *testing.B) {
				i := 0
				for b.Loop() {
					b.StopTimer()
					touch(i)
					turn := fmt.Sprintf("%s-hook-%d", prefix, i)
					b.StartTimer()
					for _, p := range paths {
						s, err := store.Open(root, store.Options{})
						if err != nil {
							b.Fatal(err)
						}
						if _, err := s.Capture(store.TurnID(turn), store.TurnMeta{Label: "benchmark"}, []string{p}); err != nil {
							b.Fatal(err)
						}
						s.Close()
					}
					i++
				}
			})

			// One Capture of all four paths on an open store.
			b.Run("open", func(b *testing.B) {
				s, err := store.Open(root, store.Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				i := 0
				for b.Loop() {
					b.StopTimer()
					touch(i)
					turn := fmt.Sprintf("%s-open-%d", prefix, i)
					b.StartTimer()
					if _, err := s.Capture(store.TurnID(turn), store.TurnMeta{Label: "benchmark"}, paths); err != nil {
						b.Fatal(err)
					}
					i++
				}
				b.StopTimer()
				fs, err := s.Files(fmt.Sprintf("%s-open-%d", prefix, i-1), false)
				if err != nil || len(fs) != len(paths) {
					b.Fatalf("the last benchmark turn holds %d files (%v), want %d", len(fs), err, len(paths))
				}
			})
		})
	}
}

// logJSON is one line of `log --json` (CONTRACT.md, "JSON").
type logJSON struct {
	Turn       string        `json:"turn"`
	Label      string        `json:"label"`
	At         string        `json:"at"`
	Kind       store.Kind    `json:"kind"`
	State      store.State   `json:"state"`
	Files      int           `json:"files"`
	HandEdited int           `json:"hand_edited"`
	Source     *store.Source `json:"source,omitempty"`
	Target     string        `json:"target,omitempty"`
	Turns      []string      `json:"turns,omitempty"`
}

func BenchmarkLogJSONish(b *testing.B) {
	const entries = 60_000
	root := bigStore(b, entries)
	var out []byte
	c0 := cpuTime()
	for b.Loop() {
		s, err := store.Open(root, store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		es, err := s.Log(true)
		if err != nil {
			b.Fatal(err)
		}
		lines := make([]logJSON, len(es))
		for i, e := range es {
			lines[i] = logJSON{e.ID, e.Label, e.At.UTC().Format("2006-01-02T15:04:05.000000000Z"), e.Kind, e.State,
				e.Files, e.HandEdited, e.Source, e.Target, e.Turns}
		}
		if out, err = json.Marshal(lines); err != nil {
			b.Fatal(err)
		}
		s.Close()
		if len(es) < entries/benchPerTurn {
			b.Fatalf("log has %d entries, want at least %d turns", len(es), entries/benchPerTurn)
		}
	}
	b.ReportMetric(float64((cpuTime()-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(len(out)), "json-bytes")
}

// goTree is the Go source tree the tree benchmarks work on: a read-only
// copy of $(go env GOROOT)/src (regular files under 8 MiB), kept across
// runs, and its files sorted by path.
var goTree struct {
	once  sync.Once
	dir   string
	files []string
	raw   int64
	err   error
}

func loadGoTree(b *testing.B) (string, []string, int64) {
	goTree.once.Do(func() {
		goTree.dir, goTree.files, goTree.raw, goTree.err = copyGoTree(benchDir(b))
	})
	if goTree.err != nil {
		b.Fatalf("copy the Go tree: %v", goTree.err)
	}
	return goTree.dir, goTree.files, goTree.raw
}

func copyGoTree(cache string) (string, []string, int64, error) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", nil, 0, fmt.Errorf("go env GOROOT: %w", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	limit := 4686
	if v := os.Getenv("CKPT_BENCH_TREE_FILES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return "", nil, 0, fmt.Errorf("CKPT_BENCH_TREE_FILES=%q: want a count", v)
		}
		limit = n
	}
	dir := filepath.Join(cache, fmt.Sprintf("gosrc-%s-%d", runtime.Version(), limit))
	list := dir + ".list"
	if b, err := os.ReadFile(list); err == nil {
		files := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		var raw int64
		ok := len(files) > 0
		for _, f := range files {
			fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f)))
			if err != nil || !fi.Mode().IsRegular() {
				ok = false
				break
			}
			raw += fi.Size()
		}
		if ok {
			return dir, files, raw, nil
		}
	}
	os.RemoveAll(dir)
	os.Remove(list)
	type entry struct {
		rel  string
		size int64
		perm fs.FileMode
	}
	var all []entry
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil || fi.Size() >= store.DefaultMaxBlob {
			return err
		}
		rel, err := filepath.Rel(src, p)
		all = append(all, entry{filepath.ToSlash(rel), fi.Size(), fi.Mode().Perm()})
		return err
	})
	if err != nil {
		return "", nil, 0, err
	}
	slices.SortFunc(all, func(a, b entry) int { return strings.Compare(a.rel, b.rel) })
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	var files []string
	var raw int64
	tmp := fmt.Sprintf("%s.copying-%d", dir, os.Getpid())
	for _, e := range all {
		if err = copyFile(filepath.Join(src, filepath.FromSlash(e.rel)), filepath.Join(tmp, filepath.FromSlash(e.rel)), e.perm); err != nil {
			break
		}
		files = append(files, e.rel)
		raw += e.size
	}
	if err == nil {
		err = os.Rename(tmp, dir)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return "", nil, 0, err
	}
	slices.Sort(files)
	if err := os.WriteFile(list, []byte(strings.Join(files, "\n")+"\n"), 0o644); err != nil {
		return "", nil, 0, err
	}
	return dir, files, raw, nil
}

func copyFile(from, to string, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// treeRoot makes a project folder holding the Go tree's files, hard-linked
// to the kept copy (copied where links fail). Writers must replace a file,
// never write into it, so the kept copy stays as it is.
func treeRoot(b *testing.B) (string, []string, int64) {
	dir, files, raw := loadGoTree(b)
	root := b.TempDir()
	for _, f := range files {
		from, to := filepath.Join(dir, filepath.FromSlash(f)), filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.Link(from, to); err != nil {
			fi, serr := os.Stat(from)
			if serr != nil {
				b.Fatal(serr)
			}
			if err := copyFile(from, to, fi.Mode().Perm()); err != nil {
				b.Fatal(err)
			}
		}
	}
	return root, files, raw
}

// cpuTime is the CPU time (user and system) the process has used. The
// benchmarks report it per operation beside the wall-clock figure, which a
// busy machine inflates.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// diskUsage is the apparent size and the allocated blocks of a folder.
func diskUsage(dir string) (size, blocks int64, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			size += fi.Size()
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			blocks += int64(st.Blocks) * 512
		}
		return nil
	})
	return size, blocks, err
}

func BenchmarkCaptureTree(b *testing.B) {
	root, files, raw := treeRoot(b)
	storeDir := filepath.Join(root, ".osfoundry")
	b.SetBytes(raw)
	var stored, blocks int64
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		if err := os.RemoveAll(storeDir); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c0 := cpuTime()
		s, err := store.Open(root, store.Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Capture("tree", store.TurnMeta{Label: "the whole tree"}, files); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
		b.StopTimer()
		var err2 error
		if stored, blocks, err2 = diskUsage(storeDir); err2 != nil {
			b.Fatal(err2)
		}
		b.StartTimer()
	}
	b.StopTimer()
	s, err := store.Open(root, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	fs, err := s.Files("tree", false)
	if err != nil || len(fs) != len(files) {
		b.Fatalf("the turn holds %d files (%v), want %d", len(fs), err, len(files))
	}
	if size, err := s.Size(); err != nil || size <= 0 || size > stored {
		b.Fatalf("Size() = %d, %v; the store folder's files hold %d bytes", size, err, stored)
	}
	b.ReportMetric(float64(len(files)), "files")
	b.ReportMetric(float64(stored)/float64(raw), "stored/raw")
	b.ReportMetric(float64(blocks)/float64(raw), "blocks/raw")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkCaptureTreeFloor reads and hashes the files CaptureTree
// captures, one after the other, as `git hash-object --stdin-paths` does
// (with SHA-256): the floor a bulk capture is held against. Compare the
// two MB/s figures from one run.
func BenchmarkCaptureTreeFloor(b *testing.B) {
	root, files, raw := treeRoot(b)
	b.SetBytes(raw)
	for b.Loop() {
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
			if err != nil {
				b.Fatal(err)
			}
			sha256.Sum256(data)
		}
	}
	b.ReportMetric(float64(len(files)), "files")
}

func BenchmarkRewindTree(b *testing.B) {
	root, files, raw := treeRoot(b)
	b.SetBytes(raw)
	kept, _, _ := loadGoTree(b)
	s, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var cpu time.Duration
	i := 0
	for b.Loop() {
		b.StopTimer()
		turn := fmt.Sprintf("edit-all-%d", i)
		i++
		if _, err := s.Capture(store.TurnID(turn), store.TurnMeta{Label: "edit every file"}, files); err != nil {
			b.Fatal(err)
		}
		for _, f := range files {
			p := filepath.Join(root, filepath.FromSlash(f))
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			// Replace the file rather than write into it: it may be a
			// hard link to the kept copy.
			if err := os.Remove(p); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, append(data, "\n// edited\n"...), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Seal(store.TurnID(turn), files); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c0 := cpuTime()
		p, err := s.PlanRewind(turn)
		if err != nil {
			b.Fatal(err)
		}
		res, err := s.Apply(p, nil)
		if err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
		b.StopTimer()
		if len(res.Restored) != len(files) || len(res.Failed) > 0 {
			b.Fatalf("rewind restored %d of %d files, failed %v", len(res.Restored), len(files), res.Failed)
		}
		b.StartTimer()
	}
	b.StopTimer()
	// Every file must be back byte for byte.
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			b.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(kept, filepath.FromSlash(f)))
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			b.Fatalf("%s differs after the rewind", f)
		}
	}
	b.ReportMetric(float64(len(files)), "files")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkTreeWriteFloor writes the tree's files, compressed nowhere and
// synced nowhere, into a fresh folder: the floor under any capture of the
// tree that keeps each file as its own blob, on this machine's disk.
func BenchmarkTreeWriteFloor(b *testing.B) {
	dir, files, raw := loadGoTree(b)
	data := make([][]byte, len(files))
	for i, f := range files {
		var err error
		if data[i], err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(raw)
	for b.Loop() {
		b.StopTimer()
		out := filepath.Join(b.TempDir(), "floor")
		if err := os.Mkdir(out, 0o700); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for i := range files {
			if err := os.WriteFile(filepath.Join(out, strconv.Itoa(i)), data[i], 0o600); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(files)), "files")
}

// BenchmarkHookBlobs weighs loose blobs against packs for hook-sized
// captures: "capture" is one capture of 2 new files (open, capture,
// close), as a hook does it, with the blobs loose (the default for so few)
// or in a pack of their own; "read" is opening the store afterwards and
// reading one blob back, once 200 such captures have been made. A pack
// per hook call costs about the same to write, but every reader must load
// every pack's index, so hooks keep loose blobs.
func BenchmarkHookBlobs(b *testing.B) {
	for _, mode := range []string{"loose", "packed"} {
		b.Run(mode, func(b *testing.B) {
			root := b.TempDir()
			var files []string
			for i := range 400 {
				p := filepath.Join(root, fmt.Sprintf("f%03d.txt", i))
				os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("file %d\n", i), 40)), 0o644)
				files = append(files, p)
			}
			capture := func(i int) {
				j := i % 200
				for _, f := range files[2*j : 2*j+2] {
					os.WriteFile(f, []byte(strings.Repeat(fmt.Sprintf("%s %d\n", f, i), 40)), 0o644)
				}
				s, err := store.Open(root, store.Options{Create: true})
				if err != nil {
					b.Fatal(err)
				}
				if mode == "packed" {
					store.SetLooseMax(s, 0)
				}
				if _, err := s.Capture(store.TurnID(fmt.Sprintf("t%d", i)), store.TurnMeta{}, files[2*j:2*j+2]); err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
			b.Run("capture", func(b *testing.B) {
				i := 0
				for b.Loop() {
					capture(i)
					i++
				}
			})
			for i := range 200 {
				capture(1_000_000 + i)
			}
			s0, err := store.Open(root, store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			fl, err := s0.Files("t1000000", false)
			s0.Close()
			if err != nil || len(fl) == 0 {
				b.Fatal(err)
			}
			b.Run("read", func(b *testing.B) {
				for b.Loop() {
					s, err := store.Open(root, store.Options{})
					if err != nil {
						b.Fatal(err)
					}
					if _, err := s.ReadImage(fl[0].Pre); err != nil {
						b.Fatal(err)
					}
					s.Close()
				}
			})
		})
	}
}
