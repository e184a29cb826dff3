package store

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// special is a kind of special file a command makes, and how.
type special struct {
	name string
	kind ImageKind
	make func(t *testing.T, abs string)
}

func specials() []special {
	return []special{
		{"fifo", ImageFifo, func(t *testing.T, abs string) {
			if err := syscall.Mkfifo(abs, 0o640); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(abs, 0o640); err != nil { // the umask
				t.Fatal(err)
			}
		}},
		{"socket", ImageSocket, func(t *testing.T, abs string) {
			l, err := net.ListenUnix("unix", &net.UnixAddr{Name: abs, Net: "unix"})
			if err != nil {
				t.Skipf("no unix socket here: %v", err)
			}
			l.SetUnlinkOnClose(false) // the file stays, as a server killed leaves it
			l.Close()
		}},
		{"device", ImageDevice, func(t *testing.T, abs string) {
			if err := syscall.Mknod(abs, syscall.S_IFCHR|0o600, 0x0103); err != nil { // /dev/null's
				t.Skipf("cannot make a device node here: %v", err)
			}
		}},
	}
}

// fileOf is turn id's record of rel.
func fileOf(t *testing.T, s *Store, id TurnID, rel string) File {
	t.Helper()
	files, err := s.Files(string(id), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == rel {
			return f
		}
	}
	t.Fatalf("turn %s does not hold %s: %+v", id, rel, files)
	return File{}
}

// rewindSpecial checks that turn id recorded p as sp's kind before and
// post after, and rewinds the turn: a named pipe is made again (restored
// is true); a socket or a device node must be reported as not restored.
func rewindSpecial(t *testing.T, s *Store, id TurnID, sp special, post ImageKind) (r *Result, restored bool) {
	t.Helper()
	f := fileOf(t, s, id, "p")
	if f.Pre.Kind != sp.kind || f.Post == nil || f.Post.Kind != post {
		t.Fatalf("p recorded as %+v → %+v, want %s → %s", f.Pre, f.Post, sp.kind, post)
	}
	r = rewind(t, s, string(id))
	if sp.kind != ImageFifo {
		if len(r.Failed) != 1 || r.Failed[0].Path != "p" || !strings.Contains(r.Failed[0].Reason, "not restored: it was a "+sp.name) {
			t.Fatalf("rewind: %+v, want p not restored, as a %s", r, sp.name)
		}
		return r, false
	}
	return r, true
}

// TestSweepSpecialMade: a command makes a named pipe, a socket or a
// device node. The turn records it, made; a second sweep finds nothing
// new; a rewind removes it and says so; an undo makes a named pipe
// again with its mode, and reports a socket or a device as not
// restorable.
func TestSweepSpecialMade(t *testing.T) {
	for _, sp := range specials() {
		t.Run(sp.name, func(t *testing.T) {
			root := tempRoot(t)
			put(t, root, "a.txt", "a\n", 0o644)
			s := openStore(t, root)
			id, _ := s.NewTurn(TurnMeta{Label: "make"})
			if _, err := s.SweepBefore(id, TurnMeta{}, "make"); err != nil {
				t.Fatal(err)
			}
			before := tree(t, root)
			sp.make(t, filepath.Join(root, "p"))
			made := tree(t, root)
			if _, err := s.SweepAfter(id, TurnMeta{}, "make"); err != nil {
				t.Fatal(err)
			}
			f := fileOf(t, s, id, "p")
			if f.Pre.Kind != ImageAbsent || f.Post == nil || f.Post.Kind != sp.kind {
				t.Fatalf("p recorded as %+v → %+v, want absent → %s", f.Pre, f.Post, sp.kind)
			}
			next, _ := s.NewTurn(TurnMeta{Label: "true"})
			if _, err := s.SweepBefore(next, TurnMeta{}, "true"); err != nil {
				t.Fatal(err)
			}
			if res, err := s.SweepAfter(next, TurnMeta{}, "true"); err != nil || len(res.Changed) != 0 {
				t.Fatalf("a sweep with nothing changed: %+v %v", res, err)
			}
			r := rewind(t, s, string(id))
			if len(r.Deleted) != 1 || r.Deleted[0] != "p" || len(r.Failed) != 0 {
				t.Fatalf("rewind: %+v, want p deleted", r)
			}
			sameTree(t, "after the rewind", before, tree(t, root))
			p, err := s.PlanUndo(false)
			r = apply(t, s, p, err)
			if sp.kind != ImageFifo {
				if len(r.Failed) != 1 || !strings.Contains(r.Failed[0].Reason, sp.name) {
					t.Fatalf("undo: %+v, want p not restored, as a %s", r, sp.name)
				}
				return
			}
			if len(r.Restored) != 1 || len(r.Failed) != 0 {
				t.Fatalf("undo: %+v, want p made again", r)
			}
			sameTree(t, "after the undo", made, tree(t, root))
		})
	}
}

// TestSweepSpecialRemoved: a command removes a named pipe, a socket or
// a device node there before it. The turn records it, removed; a rewind
// makes a named pipe again, with its mode, and reports a socket or a
// device as not restorable, never silently.
func TestSweepSpecialRemoved(t *testing.T) {
	for _, sp := range specials() {
		t.Run(sp.name, func(t *testing.T) {
			root := tempRoot(t)
			put(t, root, "a.txt", "a\n", 0o644)
			sp.make(t, filepath.Join(root, "p"))
			s := openStore(t, root)
			if _, err := s.SweepBefore("0", TurnMeta{}, "true"); err != nil {
				t.Fatal(err)
			}
			before := tree(t, root)
			id, _ := s.NewTurn(TurnMeta{Label: "rm p"})
			if _, err := s.SweepBefore(id, TurnMeta{}, "rm p"); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(root, "p")); err != nil {
				t.Fatal(err)
			}
			if _, err := s.SweepAfter(id, TurnMeta{}, "rm p"); err != nil {
				t.Fatal(err)
			}
			r, restored := rewindSpecial(t, s, id, sp, ImageAbsent)
			if !restored {
				return
			}
			if len(r.Restored) != 1 || r.Restored[0] != "p" {
				t.Fatalf("rewind: %+v, want p made again", r)
			}
			sameTree(t, "after the rewind", before, tree(t, root))
			fi, err := os.Lstat(filepath.Join(root, "p"))
			if err != nil || fi.Mode()&fs.ModeNamedPipe == 0 || fi.Mode().Perm() != 0o640 {
				t.Fatalf("p after the rewind: %v %v, want a named pipe of mode 0640", fi, err)
			}
			undo(t, s)
			if _, err := os.Lstat(filepath.Join(root, "p")); !os.IsNotExist(err) {
				t.Fatalf("p after the undo: %v, want it gone", err)
			}
		})
	}
}

// TestBaselineSpecialEntry: a special file's baseline entry is written
// as an unread one (kind 'x') with its type in the mode, which a ckpt
// that predates special files reads as a path it could not read, and
// read back as what it is.
func TestBaselineSpecialEntry(t *testing.T) {
	e := baseEntry{path: "p", kind: baseSpecial, mode: 0o640 | specialFifo, mtime: 1, ctime: 2, ino: 3}
	buf := appendEntry(nil, "", &e)
	if k := buf[3]; k != baseUnknown { // after the shared length and the path
		t.Fatalf("written as kind %q, want %q", k, baseUnknown)
	}
	d := &bdec{b: buf}
	got := d.entry("")
	if d.bad || got != e {
		t.Fatalf("read back %+v (bad %v), want %+v", got, d.bad, e)
	}
	if img := got.image(0); img.Kind != ImageFifo || img.Mode != 0o640 {
		t.Fatalf("its image: %+v", img)
	}
}

// TestSweepSpecialOlderBaseline: a named pipe there before the
// baseline, which left it out (as a ckpt that did not list special
// files wrote it), is no change of the command whose sweep after finds
// it: the baseline takes it in.
func TestSweepSpecialOlderBaseline(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "a.txt", "a\n", 0o644)
	specials()[0].make(t, filepath.Join(root, "p"))
	s := openStore(t, root)
	id, _ := s.NewTurn(TurnMeta{Label: "make"})
	if _, err := s.SweepBefore(id, TurnMeta{}, "make"); err != nil {
		t.Fatal(err)
	}
	b, err := s.loadBaseline()
	if err != nil || b == nil {
		t.Fatal(b, err)
	}
	for i, e := range b.entries {
		if e.path == "p" {
			b.entries = append(b.entries[:i], b.entries[i+1:]...)
		}
	}
	b.at += 3 * racyWindow // the pipe is older than the baseline by more than the racy window
	if err := s.saveBaseline(b); err != nil {
		t.Fatal(err)
	}
	put(t, root, "b.txt", "b\n", 0o644) // the folder is listed again
	res, err := s.SweepAfter(id, TurnMeta{}, "make")
	if err != nil || len(res.Changed) != 1 || res.Changed[0] != "b.txt" {
		t.Fatalf("the sweep after the command: %+v %v, want b.txt alone changed", res, err)
	}
	if e := mustBaseline(t, s).find("p"); e == nil || e.kind != baseSpecial {
		t.Fatalf("the baseline's p: %+v, want the named pipe", e)
	}
}

func mustBaseline(t *testing.T, s *Store) *baseline {
	t.Helper()
	b, err := s.loadBaseline()
	if err != nil || b == nil {
		t.Fatal(b, err)
	}
	return b
}

// TestSweepSpecialReplacedByFile: a named pipe, a socket or a device
// node there before the first baseline, which a command replaces by a
// file (ckpt watch's turn, or a hook's), is recorded as the special file
// it was; a rewind puts a named pipe back and reports a socket or a
// device node as not restored, never a silent loss.
func TestSweepSpecialReplacedByFile(t *testing.T) {
	for _, sp := range specials() {
		for _, watched := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/watched=%v", sp.name, watched), func(t *testing.T) {
				root := tempRoot(t)
				sp.make(t, filepath.Join(root, "p"))
				s := openStore(t, root)
				id := TurnID("1")
				if watched {
					if _, err := s.SweepWatch("", watchMeta); err != nil { // the first baseline
						t.Fatal(err)
					}
				} else if _, err := s.SweepBefore(id, TurnMeta{}, "rm p; echo f > p"); err != nil {
					t.Fatal(err)
				}
				before := tree(t, root)
				if err := os.Remove(filepath.Join(root, "p")); err != nil {
					t.Fatal(err)
				}
				put(t, root, "p", "f\n", 0o644)
				if watched {
					res, err := s.SweepWatch("", watchMeta)
					if err != nil {
						t.Fatal(err)
					}
					id = res.Turn
				} else if _, err := s.SweepAfter(id, TurnMeta{}, "rm p; echo f > p"); err != nil {
					t.Fatal(err)
				}
				if _, restored := rewindSpecial(t, s, id, sp, ImageContent); !restored {
					return
				}
				sameTree(t, "after the rewind", before, tree(t, root))
			})
		}
	}
}
