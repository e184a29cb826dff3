package gitindex

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func digestOf(t *testing.T, data []byte) Digest {
	t.Helper()
	d, err := Staged(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestStagedIgnoresRefresh: for every index version git writes, in SHA-1
// and SHA-256 repositories, an index git rewrote only to refresh the
// stat data it caches has the digest it had; staging a change, a mode,
// an intent to add or a removal gives another.
func TestStagedIgnoresRefresh(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, c := range []struct{ version, format string }{{"2", "sha1"}, {"3", "sha1"}, {"4", "sha1"}, {"4", "sha256"}, {"2", "sha256"}} {
		t.Run(c.format+"-v"+c.version, func(t *testing.T) {
			dir := t.TempDir()
			git(t, dir, "init", "-q", "--object-format="+c.format)
			write := func(name, body string) {
				t.Helper()
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, n := range []string{"a.txt", "src/deep/folder/one.go", "src/deep/folder/two.go", "src/deep/other.go"} {
				write(n, n+"\n")
			}
			git(t, dir, "add", "-A")
			git(t, dir, "update-index", "--index-version", c.version)
			index := func() []byte {
				t.Helper()
				b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			first := index()
			d0 := digestOf(t, first)
			// Stale stat data for every entry: the refresh rewrites them all.
			later := time.Now().Add(time.Hour)
			for _, n := range []string{"a.txt", "src/deep/folder/one.go", "src/deep/other.go"} {
				if err := os.Chtimes(filepath.Join(dir, n), later, later); err != nil {
					t.Fatal(err)
				}
			}
			git(t, dir, "update-index", "--refresh")
			refreshed := index()
			if bytes.Equal(first, refreshed) {
				t.Fatal("the refresh did not rewrite the index")
			}
			if got := digestOf(t, refreshed); got != d0 {
				t.Fatal("a refresh of the stat data changed the digest")
			}
			seen := map[Digest]string{d0: "the first index"}
			step := func(what string, args ...string) {
				t.Helper()
				git(t, dir, args...)
				d := digestOf(t, index())
				if was, ok := seen[d]; ok {
					t.Fatalf("%s: the digest is that of %s", what, was)
				}
				seen[d] = what
			}
			write("a.txt", "changed\n")
			step("a change staged", "add", "a.txt")
			step("a mode staged", "update-index", "--chmod=+x", "a.txt")
			write("new.txt", "new\n")
			step("an intent to add", "add", "-N", "new.txt")
			step("the intent carried out", "add", "new.txt")
			step("a removal staged", "rm", "-q", "--cached", "src/deep/other.go")
		})
	}
}

// TestStagedRefusesDamage: bytes that are not an index, or one cut
// short anywhere, are an error, never a digest.
func TestStagedRefusesDamage(t *testing.T) {
	data := synthetic(50)
	for _, cut := range []int{0, 11, 12, 40, 100, len(data) / 2} {
		if _, err := Staged(bytes.NewReader(data[:cut]), int64(cut)); err == nil {
			t.Errorf("cut at %d of %d: a digest", cut, len(data))
		}
	}
	bad := bytes.Clone(data)
	bad[12+40+20+1]++ // the first entry's name length
	if _, err := Staged(bytes.NewReader(bad), int64(len(bad))); err == nil {
		t.Error("a name length that is not the name's: a digest")
	}
	if d := digestOf(t, data); d != digestOf(t, synthetic(50)) || d == digestOf(t, synthetic(51)) {
		t.Error("the digest is not a function of the entries")
	}
}

// BenchmarkStaged300k digests an index of 300,000 entries: the sweep
// after a command that rewrote git's index pays this once.
func BenchmarkStaged300k(b *testing.B) {
	data := synthetic(300_000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Staged(bytes.NewReader(data), int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStagedRefusesSplitIndex: with core.splitIndex, unstaging a path
// the shared index holds changes only the link extension's bitmaps, not
// the entries, so a split index is refused (and digested by its bytes
// by the store) rather than given the digest of what it stages no more.
func TestStagedRefusesSplitIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	for _, n := range []string{"a.txt", "b.txt"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// Not racy: the split index then holds no entry, only the
		// bitmap that deletes a.txt.
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "add", "-A")
	git(t, dir, "update-index", "--split-index")
	git(t, dir, "rm", "-q", "--cached", "a.txt")
	b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Staged(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrFormat) {
		t.Fatalf("a split index: %v, want ErrFormat", err)
	}
}
