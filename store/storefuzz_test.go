package store

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// fuzzStoreFiles are the store files FuzzStoreFiles may replace. Blob
// files are the blob layer's own fuzzing; here they may only be linked.
var fuzzStoreFiles = []string{"lock", "blobs.lock", "hook.lock", "errors.log", "statcache.json", "summary", "seq", "clock",
	"ops.log", "FORMAT", "turns/1.log", "turns/2.log", "ops/op-1.steps", "sessions", "turns", "ops", "blobs", "baseline"}

// FuzzStoreFiles replaces store files with links (out of the project, to
// another store file, dangling), FIFOs, folders and garbage, then runs
// every kind of store call: none may hang, panic, write outside the
// project, or write through a link to another store file.
func FuzzStoreFiles(f *testing.F) {
	f.Add([]byte{0, 0})
	f.Add([]byte{3, 1, 7, 2})
	f.Add([]byte{9, 2, 1, 6, 4, 3})
	f.Add([]byte{13, 0, 12, 5, 10, 4})
	f.Add([]byte{5, 1, 6, 1, 2, 0, 11, 2})
	f.Fuzz(func(t *testing.T, plan []byte) {
		if len(plan) > 16 {
			plan = plan[:16]
		}
		root, _ := storeWithTurn(t)
		dir := filepath.Join(root, storeDir)
		outside := t.TempDir()
		wr(t, outside, "target", "outside")
		wr(t, dir, "sentinel", "sentinel")
		for i := 0; i+1 < len(plan); i += 2 {
			name := fuzzStoreFiles[int(plan[i])%len(fuzzStoreFiles)]
			p := filepath.Join(dir, filepath.FromSlash(name))
			os.RemoveAll(p)
			var err error
			switch plan[i+1] % 7 {
			case 0:
				err = os.Symlink(filepath.Join(outside, "target"), p)
			case 1:
				err = os.Symlink(filepath.Join(dir, "sentinel"), p)
			case 2:
				err = syscall.Mkfifo(p, 0o600)
			case 3:
				err = os.Mkdir(p, 0o700)
			case 4:
				err = os.WriteFile(p, bytes.Repeat(plan, 3), 0o600)
			case 5:
				err = os.WriteFile(p, nil, 0o600)
			case 6:
				err = os.Symlink(filepath.Join(outside, "nothing"), p)
			}
			// An error here is a parent replaced by an earlier step: the
			// file simply is not there.
			_ = err
		}
		exercise(t, root)
		if got := rd(t, outside, "target"); got != "outside" {
			t.Fatalf("a file outside the project was written: %q", got)
		}
		ents, _ := os.ReadDir(outside)
		if len(ents) != 1 {
			t.Fatalf("files made outside the project: %v", ents)
		}
		if got := rd(t, dir, "sentinel"); got != "sentinel" {
			t.Fatalf("a link inside the store was written through: %q", got)
		}
		// Nothing under the project but the store and the files the calls
		// wrote.
		var extra []string
		top, _ := os.ReadDir(root)
		for _, e := range top {
			if !slices.Contains([]string{".osfoundry", "a.txt", "b.txt", "c.txt"}, e.Name()) {
				extra = append(extra, e.Name())
			}
		}
		if len(extra) > 0 {
			t.Fatalf("unexpected files in the project: %v", extra)
		}
	})
}
