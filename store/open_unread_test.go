package store

import (
	"bytes"
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
			gs.note("n", g)
			e := tc.e
			e.path, e.kind = "n", baseFile
			gs.settle(&e)
			if e.ctime != tc.want {
				t.Errorf("ctime %d, want %d", e.ctime, tc.want)
			}
			if gs.settle(&e); len(gs.by) != 0 {
				t.Errorf("the grant stays after it was used: %v", gs.by)
			}
		})
	}
}
