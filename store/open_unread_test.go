package store

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// nobodyID is the user a test that needs permission bits to stand in
// its way runs as when the tests run as root.
const nobodyID = 65534

// asOwner runs t as a user whose own files' modes can keep it from
// reading them: the test goes on in this process when it is not root
// (true); as root the test binary runs t again as nobody, which is the
// test, and asOwner reports false.
func asOwner(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return true
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "ckpt-owner-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "store.test")
	if err := copyExe(exe, bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "TMPDIR="+os.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobodyID, Gid: nobodyID}}
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: "+t.Name())) {
		t.Fatalf("%s as nobody: %v\n%s", t.Name(), err, out)
	}
	return false
}

func copyExe(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// unreadProject is a project holding a.txt and n, a file of mode 000
// holding "shut\n", both older than the racy window.
func unreadProject(t *testing.T) string {
	t.Helper()
	root := tempRoot(t)
	put(t, root, "a.txt", "a\n", 0o644)
	put(t, root, "n", "shut\n", 0)
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "n"), 0o600) })
	return root
}

// A file its owner cannot read, unchanged since the last sweep, is not
// read again: opening it to its owner and giving its mode back moves its
// ctime, and the baseline holds the ctime it then has, which, ckpt's own,
// does not make it racy. Before, every sweep read it again, and moved
// its ctime again.
func TestUnreadFileNotReadAgain(t *testing.T) {
	if !asOwner(t) {
		return
	}
	root := unreadProject(t)
	time.Sleep(racyWindowTest())
	s := openStore(t, root)
	turn, err := s.NewTurn(TurnMeta{Label: "one"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.SweepBefore(turn, TurnMeta{}, "true")
	if err != nil || !res.Fresh || res.Read != 2 {
		t.Fatalf("first sweep: %+v, %v; want fresh, 2 files read", res, err)
	}
	for i := range 3 {
		res, err := s.SweepAfter(turn, TurnMeta{}, "true")
		if err != nil || len(res.Changed) != 0 || res.Read != 0 {
			t.Fatalf("sweep %d after it, nothing changed: %+v, %v; want no file read", i+2, res, err)
		}
	}
}

// What changes in a file its owner cannot read is still found once the
// baseline holds the ctime ckpt's read left: new bytes of the same size,
// the same with the mtime set back, and a new mode.
func TestUnreadFileChangeFound(t *testing.T) {
	if !asOwner(t) {
		return
	}
	rewrite := func(root, data string) {
		p := filepath.Join(root, "n")
		os.Chmod(p, 0o600)
		os.WriteFile(p, []byte(data), 0)
		os.Chmod(p, 0)
	}
	cases := []struct {
		name   string
		change func(t *testing.T, root string)
	}{
		{"new bytes of the same size", func(t *testing.T, root string) { rewrite(root, "open\n") }},
		{"new bytes, mtime set back", func(t *testing.T, root string) {
			fi, err := os.Lstat(filepath.Join(root, "n"))
			if err != nil {
				t.Fatal(err)
			}
			rewrite(root, "open\n")
			if err := os.Chtimes(filepath.Join(root, "n"), fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}},
		{"a new mode", func(t *testing.T, root string) { os.Chmod(filepath.Join(root, "n"), 0o200) }},
	}
	roots := make([]string, len(cases))
	for i := range cases {
		roots[i] = unreadProject(t)
	}
	time.Sleep(racyWindowTest())
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := roots[i]
			s := openStore(t, root)
			turn, err := s.NewTurn(TurnMeta{Label: "one"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.SweepBefore(turn, TurnMeta{}, "change n"); err != nil {
				t.Fatal(err)
			}
			tc.change(t, root)
			res, err := s.SweepAfter(turn, TurnMeta{}, "change n")
			if err != nil || !slices.Equal(res.Changed, []string{"n"}) {
				t.Fatalf("sweep after the change: %+v, %v; want n changed", res, err)
			}
		})
	}
}

// A read's grant gives the entry the ctime the file had once its mode
// was back only when the entry's stat is the one the read began from.
func TestGrantFitsOnlyTheFileRead(t *testing.T) {
	g := grant{ino: 7, size: 5, mtime: 100, before: 200, after: 300}
	cases := []struct {
		name string
		e    baseEntry
		want int64
	}{
		{"the file read", baseEntry{ino: 7, size: 5, mtime: 100, ctime: 200}, 300},
		{"another file", baseEntry{ino: 8, size: 5, mtime: 100, ctime: 200}, 200},
		{"other bytes read", baseEntry{ino: 7, size: 6, mtime: 100, ctime: 200}, 200},
		{"another mtime", baseEntry{ino: 7, size: 5, mtime: 101, ctime: 200}, 200},
		{"changed before the read", baseEntry{ino: 7, size: 5, mtime: 100, ctime: 150}, 150},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var gs grants
			gs.begin()
			defer gs.end()
			gs.note("n", g)
			e := tc.e
			e.path, e.kind = "n", baseFile
			gs.settle(&e)
			if e.ctime != tc.want {
				t.Errorf("ctime %d, want %d", e.ctime, tc.want)
			}
			if own := gs.own(&e); own != (tc.want == g.after) {
				t.Errorf("own %v, want %v", own, tc.want == g.after)
			}
			if gs.settle(&e); len(gs.by) != 0 {
				t.Errorf("the grant stays after it was used: %v", gs.by)
			}
		})
	}
}

// A change no stat shows (new bytes of the same size, the mtime set back,
// in the clock tick the listing's stat was taken in) is found in a file
// its owner cannot read as in any other: the baseline holds the stat the
// file has now and the bytes from before, and the ctime, not one ckpt's
// read left, makes the entry racy. Before, the ctime of every file of
// mode 000 was left out, and the change was missed.
func TestUnreadFileSameTickChangeFound(t *testing.T) {
	if !asOwner(t) {
		return
	}
	sameTickChangeFound(t)
}

// The same as whoever runs the tests: as root, which reads a file of mode
// 000 without opening it up, no ctime is ckpt's own.
func TestModeZeroSameTickChangeFound(t *testing.T) { sameTickChangeFound(t) }

func sameTickChangeFound(t *testing.T) {
	root := unreadProject(t)
	time.Sleep(racyWindowTest())
	s := openStore(t, root)
	turn, err := s.NewTurn(TurnMeta{Label: "one"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepBefore(turn, TurnMeta{}, "change n"); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "n")
	was, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o600)
	if err := os.WriteFile(p, []byte("open\n"), 0); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0)
	if err := os.Chtimes(p, was.ModTime(), was.ModTime()); err != nil {
		t.Fatal(err)
	}
	// As if the listing had taken its stat after the change, in the same
	// tick: the entry gets the ctime the file has now.
	now, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.loadBaseline()
	if err != nil || b == nil {
		t.Fatalf("baseline: %v", err)
	}
	e := b.find("n")
	if e == nil || e.size != now.Size() || e.mtime != now.ModTime().UnixNano() {
		t.Fatalf("baseline's n: %+v; want the size and mtime n has", e)
	}
	e.ctime = ctimeOf(now.Sys().(*syscall.Stat_t))
	b.recheck = nil
	if err := s.saveBaseline(b); err != nil {
		t.Fatal(err)
	}
	res, err := s.SweepAfter(turn, TurnMeta{}, "change n")
	if err != nil || !slices.Equal(res.Changed, []string{"n"}) {
		t.Fatalf("sweep after the change: %+v, %v; want n changed", res, err)
	}
	files, err := s.Files(string(turn), false)
	if err != nil || len(files) != 1 || files[0].Pre.SHA256 != blobIDOf([]byte("shut\n")) || files[0].Post.SHA256 != blobIDOf([]byte("open\n")) {
		t.Fatalf("the turn's files: %+v, %v; want n from shut to open", files, err)
	}
}

// An entry's ctime within the racy window is ckpt's own only for a file
// its owner cannot read that the recheck list leaves out: a sweep leaves
// out only the ctimes its grants settled, and those they settled before.
func TestRacyCtimeOwnOnlyOffRecheck(t *testing.T) {
	b := &baseline{at: 10 * racyWindow, recheck: []string{"listed"}}
	cases := []struct {
		name string
		e    baseEntry
		want bool
	}{
		{"mode 000, left out", baseEntry{path: "own", kind: baseFile}, false},
		{"mode 000, listed", baseEntry{path: "listed", kind: baseFile}, true},
		{"readable, left out", baseEntry{path: "own", kind: baseFile, mode: 0o644}, true},
		{"mode 000, mtime racy", baseEntry{path: "own", kind: baseFile, mtime: 10 * racyWindow}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.e
			e.ctime = 10 * racyWindow
			if e.mtime == 0 {
				e.mtime = racyWindow
			}
			if got := b.racy(&e); got != tc.want {
				t.Errorf("racy %v, want %v", got, tc.want)
			}
		})
	}
}

// Reads of a file its owner cannot read outside a sweep note no grant,
// and a sweep leaves none: what the store keeps of them does not grow
// with the files a long session reads.
func TestUnreadGrantsCleared(t *testing.T) {
	if !asOwner(t) {
		return
	}
	root := unreadProject(t)
	for i := range 20 {
		put(t, root, fmt.Sprintf("m%d", i), "shut\n", 0)
		t.Cleanup(func() { os.Chmod(filepath.Join(root, fmt.Sprintf("m%d", i)), 0o600) })
	}
	s := openStore(t, root)
	turn, err := s.NewTurn(TurnMeta{Label: "one"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepBefore(turn, TurnMeta{}, "true"); err != nil {
		t.Fatal(err)
	}
	if n := len(s.grants.by); n != 0 {
		t.Fatalf("%d grants after the sweep, want none", n)
	}
	for i := range 20 {
		if _, err := s.Capture(turn, TurnMeta{}, []string{filepath.Join(root, fmt.Sprintf("m%d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(s.grants.by); n != 0 {
		t.Fatalf("%d grants after captures, want none", n)
	}
}
