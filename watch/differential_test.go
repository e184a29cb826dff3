//go:build linux

package watch

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// noFeed makes a store list the whole tree at every sweep.
type noFeed struct{}

func (noFeed) Since(string) (store.Changes, error) { return store.Changes{}, errors.New("no feed") }

// swapFeed lets a test kill and restart the watcher under one store.
type swapFeed struct{ t *Tree }

func (f *swapFeed) Since(tok string) (store.Changes, error) {
	if f.t == nil {
		return store.Changes{}, errors.New("no watcher")
	}
	return f.t.Since(tok)
}

func openTree(t *testing.T, root string) *Tree {
	t.Helper()
	tr, err := Open(root, filepath.Join(root, ".osfoundry", "checkpoints"))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestFedSweepFindsWhatAFullSweepFinds makes random changes while the
// watcher runs (and is killed, restarted, and loses its queue), and after
// each step sweeps twice: once fed by the watcher, then once listing the
// whole tree. The full sweep must find nothing the fed one missed.
func TestFedSweepFindsWhatAFullSweepFinds(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	write := func(rel, data string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		write(fmt.Sprintf("d%d/e%d/f%d.txt", i%4, i%3, i), "seed")
	}
	write(".gitignore", "ignored/\n")
	write("ignored/x", "x")
	// On a case-sensitive file system these are the project's, not the
	// store's: swept, so watched.
	storeLike := []string{".OSFoundry/checkpoints", ".OSFoundry/hooks", ".osfoundry/Hooks"}
	for _, d := range storeLike {
		write(d+"/seed", "seed")
	}
	feed := &swapFeed{}
	fed, err := store.Open(root, store.Options{Create: true, Feed: feed})
	if err != nil {
		t.Fatal(err)
	}
	defer fed.Close()
	full, err := store.Open(root, store.Options{Feed: noFeed{}})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	feed.t = openTree(t, root)
	defer func() {
		if feed.t != nil {
			feed.t.Close()
		}
	}()
	if _, err := fed.SweepBefore("", store.TurnMeta{}, ""); err != nil {
		t.Fatal(err)
	}
	// Past the time a sweep looks again at what changed just before it,
	// only the watcher tells the fed sweep of a write in a seeded folder.
	time.Sleep(2100 * time.Millisecond)
	files := func() []string {
		var out []string
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			if d.IsDir() && (d.Name() == ".osfoundry" || d.Name() == "ignored") {
				return filepath.SkipDir
			}
			if !d.IsDir() && rel != ".gitignore" {
				out = append(out, rel)
			}
			return nil
		})
		return out
	}
	dirs := func() []string {
		var out []string
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				if d.Name() == ".osfoundry" || d.Name() == "ignored" {
					return filepath.SkipDir
				}
				rel, _ := filepath.Rel(root, p)
				if rel != "." {
					out = append(out, rel)
				}
			}
			return nil
		})
		return out
	}
	fedCount := 0
	for step := range 120 {
		fs, ds := files(), dirs()
		pick := func(l []string) string {
			if len(l) == 0 {
				return ""
			}
			return l[rng.IntN(len(l))]
		}
		op := rng.IntN(12)
		switch op {
		case 0, 1: // edit
			if f := pick(fs); f != "" {
				write(f, fmt.Sprintf("edit %d", step))
			}
		case 2: // create, perhaps in a new folder
			write(fmt.Sprintf("d%d/n%d/g%d.txt", rng.IntN(5), rng.IntN(3), step), "new")
		case 3: // delete
			if f := pick(fs); f != "" {
				os.Remove(filepath.Join(root, f))
			}
		case 4: // rename a file
			if f := pick(fs); f != "" {
				os.Rename(filepath.Join(root, f), filepath.Join(root, filepath.Dir(f), fmt.Sprintf("r%d", step)))
			}
		case 5: // rename a folder, over an empty one sometimes
			if d := pick(ds); d != "" {
				to := filepath.Join(root, fmt.Sprintf("m%d", step%3))
				os.Rename(filepath.Join(root, d), to)
			}
		case 6: // remove a folder
			if d := pick(ds); d != "" {
				os.RemoveAll(filepath.Join(root, d))
			}
		case 7: // a whole new tree moved in from outside
			tmp := t.TempDir()
			os.MkdirAll(filepath.Join(tmp, "in", "deep"), 0o755)
			os.WriteFile(filepath.Join(tmp, "in", "deep", "z"), []byte("z"), 0o644)
			os.Rename(filepath.Join(tmp, "in"), filepath.Join(root, fmt.Sprintf("in%d", step)))
		case 8: // the watcher is killed, and started again later
			if feed.t != nil {
				feed.t.Close()
				feed.t = nil
			} else {
				feed.t = openTree(t, root)
			}
		case 9: // the queue overflows
			if feed.t != nil {
				feed.t.lose("test overflow")
			}
		case 10: // an ignore file changes: what it stopped skipping is swept
			if rng.IntN(2) == 0 {
				write(".gitignore", "")
			} else {
				write(".gitignore", "ignored/\n")
			}
			write(fmt.Sprintf("ignored/y%d", step), "y")
		case 11: // a file in a folder named like one of the store's
			write(fmt.Sprintf("%s/s%d", storeLike[rng.IntN(len(storeLike))], step), "s")
		}
		turn := store.TurnID(fmt.Sprintf("t%d", step))
		r1, err := fed.SweepAfter(turn, store.TurnMeta{}, "op")
		if err != nil {
			t.Fatal(err)
		}
		if r1.Feed == store.FeedFed {
			fedCount++
		}
		r2, err := full.SweepAfter(turn+"-full", store.TurnMeta{}, "check")
		if err != nil {
			t.Fatal(err)
		}
		if len(r2.Changed) > 0 {
			t.Fatalf("step %d (op %d, feed %q): the fed sweep found %v and missed %v", step, op, r1.Feed, r1.Changed, r2.Changed)
		}
		if slices.Contains(r1.Changed, "ignored/x") {
			t.Fatalf("step %d: an ignored folder was swept", step)
		}
	}
	if fedCount < 30 {
		t.Fatalf("only %d of 120 sweeps were fed by the watcher", fedCount)
	}
}
