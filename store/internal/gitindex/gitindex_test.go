package gitindex

import (
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestReadAgainstGit: the entries read are what `git ls-files --stage`
// lists, for every index version git writes, with an intent-to-add entry
// (extended flags), a link, an executable, names sharing long prefixes
// (version 4 compresses them), and a SHA-256 repository.
func TestReadAgainstGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, c := range []struct {
		version string
		format  string
	}{{"2", "sha1"}, {"3", "sha1"}, {"4", "sha1"}, {"4", "sha256"}, {"2", "sha256"}} {
		t.Run(c.format+"-v"+c.version, func(t *testing.T) {
			dir := t.TempDir()
			git(t, dir, "init", "-q", "--object-format="+c.format)
			for i := range 12 {
				name := filepath.Join(dir, "src", "deep", "folder", fmt.Sprintf("file-%02d.go", i))
				if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(name, []byte(fmt.Sprintf("package p // %d\n", i)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("run.sh", filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "later.txt"), []byte("later\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			git(t, dir, "add", "src", "run.sh", "link")
			git(t, dir, "add", "-N", "later.txt")
			git(t, dir, "update-index", "--index-version", c.version)
			data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Read(data)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, e := range got {
				lines = append(lines, fmt.Sprintf("%06o %s %d\t%s", e.Mode, e.OID, e.Stage, e.Path))
			}
			want := strings.Split(strings.TrimSpace(git(t, dir, "ls-files", "--stage")), "\n")
			if !slices.Equal(lines, want) {
				t.Fatalf("read\n%s\ngit says\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestReadRefusesDamage: bytes that are not an index, or one cut short,
// are an error, never a partial list.
func TestReadRefusesDamage(t *testing.T) {
	for name, data := range map[string][]byte{
		"empty":     nil,
		"not DIRC":  []byte("DIRX\x00\x00\x00\x02\x00\x00\x00\x00"),
		"version 9": []byte("DIRC\x00\x00\x00\x09\x00\x00\x00\x00"),
		"cut short": append([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x05"), make([]byte, 40)...),
	} {
		if _, err := Read(data); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
	// Read and Staged share one entry decoder: what the digest refuses,
	// Read refuses too.
	bad := synthetic(50)
	bad[12+40+20+1]++ // the first entry's name length
	if _, err := Read(bad); !errors.Is(err, ErrFormat) {
		t.Errorf("a name length that is not the name's: %v, want ErrFormat", err)
	}
}

func TestChanged(t *testing.T) {
	a := []Entry{{Path: "a", Mode: 0o100644, OID: "1"}, {Path: "b", Mode: 0o100644, OID: "2"}, {Path: "c", Mode: 0o100644, OID: "3"}}
	b := []Entry{{Path: "a", Mode: 0o100644, OID: "1"}, {Path: "b", Mode: 0o100755, OID: "2"}, {Path: "d", Mode: 0o100644, OID: "4"}}
	if got := Changed(a, b); !slices.Equal(got, []string{"b", "c", "d"}) {
		t.Fatalf("Changed: %v", got)
	}
}

// synthetic is a version 2 index of n entries, as git writes one.
func synthetic(n int) []byte {
	var b []byte
	b = append(b, "DIRC"...)
	b = binary.BigEndian.AppendUint32(b, 2)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	for i := range n {
		start := len(b)
		b = append(b, make([]byte, 24)...)
		b = binary.BigEndian.AppendUint32(b, 0o100644)
		b = append(b, make([]byte, 12)...)
		b = append(b, make([]byte, 20)...)
		name := fmt.Sprintf("src/pkg%03d/sub/file%06d.go", i/1000, i)
		b = binary.BigEndian.AppendUint16(b, uint16(len(name)))
		b = append(b, name...)
		for pad := (len(b) - start + 8) &^ 7; len(b)-start < pad; {
			b = append(b, 0)
		}
	}
	sum := sha1.Sum(b)
	return append(b, sum[:]...)
}

// BenchmarkRead300k reads an index of 300,000 entries (about 30 MB, a
// large monorepo's): a revert's plan reads two when git's index changed
// after its turns.
func BenchmarkRead300k(b *testing.B) {
	data := synthetic(300_000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Read(data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSynthetic(t *testing.T) {
	got, err := Read(synthetic(1000))
	if err != nil || len(got) != 1000 || got[999].Path != "src/pkg000/sub/file000999.go" {
		t.Fatalf("%d entries, %v", len(got), err)
	}
}
