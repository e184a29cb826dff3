package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// storeWithTurn makes a project with one sealed turn, one rewind and one
// entry in each store file, so every file a command touches exists.
func storeWithTurn(t *testing.T) (root string, s *Store) {
	t.Helper()
	root = t.TempDir()
	wr(t, root, "a.txt", "A0")
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("1", TurnMeta{Label: "one"}, filepath.Join(root, "a.txt"), []byte("A1")); err != nil {
		t.Fatal(err)
	}
	id, err := s.NewTurn(TurnMeta{Label: "two"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(id, TurnMeta{}, filepath.Join(root, "b.txt"), []byte("B1")); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSessionTurn("claude:s", string(id)); err != nil {
		t.Fatal(err)
	}
	rewind(t, s, string(id))
	s.LogError("an error")
	if _, err := s.Log(true); err != nil {
		t.Fatal(err)
	}
	unlock, err := s.LockSessions()
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	s.Close()
	return root, nil
}

// Every store file replaced by a symlink — to a file outside the project,
// or to another file inside the store — is refused, never followed: the
// target is neither created nor changed, and no command hangs.
func TestStoreFileSymlinksRefused(t *testing.T) {
	names := []string{"lock", "blobs.lock", "hook.lock", "errors.log", "statcache.json", "summary", "seq", "ops.log",
		"FORMAT", "turns/1.log", "turns", "ops", "blobs", "sessions", "clock", "a blob", "ops/op-1.steps"}
	for _, name := range names {
		for _, inside := range []bool{false, true} {
			where := "outside"
			if inside {
				where = "inside"
			}
			t.Run(strings.ReplaceAll(name, "/", "_")+"/"+where, func(t *testing.T) {
				root, _ := storeWithTurn(t)
				dir := filepath.Join(root, storeDir)
				target := filepath.Join(t.TempDir(), "target")
				if inside {
					target = filepath.Join(dir, "target")
				}
				name := name
				if name == "a blob" {
					list, _ := os.ReadDir(filepath.Join(dir, "blobs"))
					if len(list) == 0 {
						t.Fatal("no blob")
					}
					name = "blobs/" + list[0].Name()
				}
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.RemoveAll(p); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, p); err != nil {
					t.Fatal(err)
				}
				exercise(t, root)
				if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("the link %s was followed: %s exists (%v)", name, target, err)
				}
				fi, err := os.Lstat(p)
				if strings.HasPrefix(name, "blobs/") && errors.Is(err, os.ErrNotExist) {
					// Prune may delete a blob nothing names: the link
					// itself goes, its target stays.
					return
				}
				if err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Fatalf("the link %s was replaced: %v %v", name, fi, err)
				}
			})
		}
	}
}

// exercise runs every kind of store call once, in a goroutine that must
// finish: a store file that is a FIFO or a link must not make one hang.
func exercise(t *testing.T, root string) (errs []error) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		note := func(err error) {
			if err != nil {
				errs = append(errs, err)
			}
		}
		s, err := Open(root, Options{Create: true})
		if err != nil {
			note(err)
			return
		}
		defer s.Close()
		_, err = s.Write("3", TurnMeta{}, filepath.Join(root, "c.txt"), []byte("C"))
		note(err)
		_, err = s.NewTurn(TurnMeta{})
		note(err)
		note(s.SetSessionTurn("claude:t", "3"))
		s.SessionTurn("claude:s")
		if unlock, err := s.LockSessions(); err == nil {
			unlock()
		} else {
			note(err)
		}
		s.LogError("x\x00y")
		_, err = s.Errors()
		note(err)
		_, err = s.Log(true)
		note(err)
		_, err = s.Files("1", true)
		note(err)
		if p, err := s.PlanRewind("1"); err == nil {
			_, err = s.Apply(p, nil)
			note(err)
		} else {
			note(err)
		}
		_, err = s.Verify()
		note(err)
		_, err = s.Prune(PruneOptions{Keep: 1})
		note(err)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		// Not a timing assertion: a hang is the failure.
		t.Fatal("a store call hung")
	}
	return errs
}

// A store file that is a FIFO is refused, not waited on.
func TestStoreFileFIFORefused(t *testing.T) {
	for _, name := range []string{"lock", "errors.log", "statcache.json", "summary", "seq", "ops.log", "turns/1.log", "sessions"} {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			root, _ := storeWithTurn(t)
			p := filepath.Join(root, storeDir, filepath.FromSlash(name))
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			exercise(t, root)
		})
	}
}

// The folders above the store are not followed either.
func TestStoreFolderSymlinkRefused(t *testing.T) {
	for _, name := range []string{".osfoundry", storeDir} {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			root := t.TempDir()
			elsewhere := t.TempDir()
			if err := os.MkdirAll(filepath.Join(elsewhere, "checkpoints"), 0o700); err != nil {
				t.Fatal(err)
			}
			if name == storeDir {
				os.Mkdir(filepath.Join(root, ".osfoundry"), 0o700)
				elsewhere = filepath.Join(elsewhere, "checkpoints")
			}
			if err := os.Symlink(elsewhere, filepath.Join(root, filepath.FromSlash(name))); err != nil {
				t.Fatal(err)
			}
			if _, err := Open(root, Options{Create: true}); !errors.Is(err, ErrLinkInStore) {
				t.Fatalf("open: %v, want ErrLinkInStore", err)
			}
		})
	}
}

// The store folder opened as "." is a fresh open of it each time: a walk
// that read it to the end leaves the next walk all of it.
func TestStoreFolderWalkedTwice(t *testing.T) {
	root, _ := storeWithTurn(t)
	s, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first, err := s.Size()
	if err != nil || first == 0 {
		t.Fatalf("Size = %d, %v; want the store's bytes", first, err)
	}
	for i := 0; i < 2; i++ {
		if n, err := s.Size(); err != nil || n < first {
			t.Fatalf("Size again = %d, %v; want at least %d", n, err, first)
		}
	}
	if got, err := s.Verify(); err != nil || len(got) != 0 {
		t.Fatalf("Verify after walks: %v, %v", got, err)
	}
}

// On a file system that does not fold case, .OSFoundry is a project
// folder like any other: swept, captured and rewound. Only the store's
// exact name (or, where case folds, the same folder) is left out.
func TestStoreNameMatchedExactly(t *testing.T) {
	root := tempRoot(t)
	put(t, root, ".OSFoundry/plan.md", "plan\n", 0o644)
	s := openStore(t, root)
	if foldsCase(root) {
		t.Skip("this file system folds case: .OSFoundry is the store here")
	}
	turn, _ := s.NewTurn(TurnMeta{})
	if _, err := s.SweepBefore(turn, TurnMeta{}, "rm"); err != nil {
		t.Fatal(err)
	}
	before := tree(t, root)
	os.RemoveAll(filepath.Join(root, ".OSFoundry"))
	res, err := s.SweepAfter(turn, TurnMeta{}, "rm -rf .OSFoundry")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Changed, []string{".OSFoundry/plan.md"}) {
		t.Fatalf("sweep recorded %v, want .OSFoundry/plan.md", res.Changed)
	}
	rewind(t, s, string(turn))
	sameTree(t, "after the rewind", before, tree(t, root))
	// A hook's write there is the project's, not the store's.
	if _, err := s.Capture("2", TurnMeta{}, []string{filepath.Join(root, ".OSFoundry/new.md")}); err != nil {
		t.Fatalf("capture under .OSFoundry: %v", err)
	}
	if _, err := s.Rel(".osfoundry/checkpoints/lock"); err == nil {
		t.Fatal("the store itself was not refused")
	}
}

// A path naming ROOT/link/../x, with link -> a/b, is where the kernel
// writes: a/x, not x.
func TestRelDotDotAfterALink(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "a/b/in.txt", "in\n", 0o644)
	if err := os.Symlink("a/b", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, root)
	for in, want := range map[string]string{
		filepath.Join(root, "link") + "/../x": "a/x",
		"link/../x":                           "a/x",
		"link/../../x":                        "x",
		"a/../x":                              "x",
		"link/./in.txt":                       "a/b/in.txt",
	} {
		if got, err := s.Rel(in); err != nil || got != want {
			t.Errorf("Rel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := s.Rel("link/../../../x"); err == nil {
		t.Error("a path out of the root through a link and .. was not refused")
	}
}
