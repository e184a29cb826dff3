package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// gitIndexTemplate is a repository with one turn that ran git mv, git add
// and git commit, and edited a file: it returns the folder and git's
// index before the turn (s0, idx0) and after it (s1, idx1).
func gitIndexTemplate(t *testing.T, root string) (s0, s1 map[string]fsNode, idx0, idx1 []byte) {
	writeTexts(t, root, map[string]string{"docs/notes.txt": "notes\n", "a.txt": "a 0\n", "b.txt": "b 0\n"})
	gitIn(t, root, "init", "-q", "-b", "main")
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "commit", "-qm", "init")
	ckptOK(t, root, "write", "--turn", "0", "c.txt") // the store; no git
	gitIn(t, root, "add", "-A")
	gitIn(t, root, "commit", "-qm", "c")
	s0, idx0 = snapshotDir(t, root), readIndex(t, root)
	ckptOK(t, root, "exec", "--turn", "1", "--", "sh", "-c",
		`git mv docs/notes.txt docs/NOTES.md && echo a1 >> a.txt && git add a.txt && echo b1 >> b.txt && `+
			`GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com git commit -qm agent`)
	s1, idx1 = snapshotDir(t, root), readIndex(t, root)
	if bytes.Equal(idx0, idx1) {
		t.Fatal("the turn did not change git's index")
	}
	return s0, s1, idx0, idx1
}

// leftovers names what ckpt must never leave in .git: an index.lock, or
// its own file beside the index.
func leftovers(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	if _, err := os.Lstat(filepath.Join(root, ".git", "index.lock")); err == nil {
		out = append(out, ".git/index.lock")
	}
	m, _ := filepath.Glob(filepath.Join(root, ".git", "index.ckpt-*"))
	return append(out, m...)
}

// TestCrashDuringGitIndexRewind: a rewind with --git-index and its undo,
// killed after each file operation. The next command leaves the folder
// and git's index both wholly before or both wholly after (the index byte
// for byte), never a stale index.lock; and when ckpt was killed before it
// took index.lock, an index.lock git made meanwhile is left alone.
func TestCrashDuringGitIndexRewind(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base := t.TempDir()
	tmpl := filepath.Join(base, "template")
	s0, s1, idx0, idx1 := gitIndexTemplate(t, tmpl)
	cases := []struct {
		name    string
		prepare func(root string)
		args    []string
		// before and after: the folder and the index.
		before, after       map[string]fsNode
		idxBefore, idxAfter []byte
	}{
		{"rewind", func(string) {}, []string{"rewind", "1", "--git-index", "--yes"}, s1, s0, idx1, idx0},
		{"undo", func(root string) { ckptOK(t, root, "rewind", "1", "--git-index", "--yes") }, []string{"undo", "--yes"}, s0, s1, idx0, idx1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ct := filepath.Join(base, c.name)
			copyTree(t, tmpl, ct)
			c.prepare(ct)
			foreignKept := 0
			for k := 1; ; k++ {
				if k > maxFailpoint {
					t.Fatalf("still killed at apply:%d", k)
				}
				root := filepath.Join(base, fmt.Sprintf("%s-k%d", c.name, k))
				copyTree(t, ct, root)
				r := ckptDo(t, ckptCall{Root: root, Env: []string{"CKPT_FAILPOINT=apply:" + strconv.Itoa(k)}}, c.args...)
				if !r.Killed {
					if r.Code != 0 {
						t.Fatalf("apply:%d: want exit 0 or SIGKILL\n%s", k, r)
					}
					if !bytes.Equal(readIndex(t, root), c.idxAfter) || len(leftovers(t, root)) > 0 {
						t.Fatalf("apply:%d, outlived: the index is not as after %s, or %v is left", k, c.name, leftovers(t, root))
					}
					break
				}
				// Where ckpt was killed before it held index.lock, git may
				// take it: then the lock is git's, and stays.
				note := filepath.Join(root, ".osfoundry", "checkpoints", "index-lock")
				lock := filepath.Join(root, ".git", "index.lock")
				_, noteErr := os.Lstat(note)
				_, lockErr := os.Lstat(lock)
				if noteErr == nil && lockErr != nil {
					foreign := filepath.Join(base, fmt.Sprintf("%s-k%d-git", c.name, k))
					copyTree(t, root, foreign)
					idxAtKill := readIndex(t, foreign)
					flock := filepath.Join(foreign, ".git", "index.lock")
					if err := os.WriteFile(flock, []byte("git's own\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					ckpt(t, foreign, "log")
					if b, err := os.ReadFile(flock); err != nil || string(b) != "git's own\n" {
						t.Fatalf("apply:%d: ckpt removed or changed an index.lock that was git's: %q %v", k, b, err)
					}
					if !bytes.Equal(readIndex(t, foreign), idxAtKill) {
						t.Fatalf("apply:%d: with git's index.lock there, ckpt changed the index", k)
					}
					foreignKept++
					os.RemoveAll(foreign)
				}
				lr := ckpt(t, root, "log")
				if lr.Code != 0 {
					t.Fatalf("apply:%d: log after the kill\n%s", k, lr)
				}
				if left := leftovers(t, root); len(left) > 0 {
					t.Fatalf("apply:%d: after the kill and `ckpt log`, %v is left in .git\nlog stderr: %s", k, left, lr.Stderr)
				}
				got, idx := snapshotDir(t, root), readIndex(t, root)
				isBefore := len(snapshotDiff(c.before, got)) == 0 && bytes.Equal(idx, c.idxBefore)
				isAfter := len(snapshotDiff(c.after, got)) == 0 && bytes.Equal(idx, c.idxAfter)
				if !isBefore && !isAfter {
					t.Fatalf("apply:%d: the folder and index are neither both before nor both after %s (folder vs after: %v; index after: %v)\nlog stderr: %s",
						k, c.name, snapshotDiff(c.after, got), bytes.Equal(idx, c.idxAfter), lr.Stderr)
				}
				if v := ckpt(t, root, "verify"); v.Code != 0 {
					t.Errorf("apply:%d: verify after recovery\n%s", k, v)
				}
				if isBefore {
					ckptOK(t, root, c.args...) // it can be run again
					if !bytes.Equal(readIndex(t, root), c.idxAfter) {
						t.Fatalf("apply:%d: %s run again after the rollback did not write the index", k, c.name)
					}
				}
				os.RemoveAll(root)
			}
			if foreignKept == 0 {
				t.Errorf("no kill left ckpt's note without its index.lock: the foreign-lock case was never tried")
			}
			t.Logf("%s: an index.lock of git's own was planted after %d kills and kept every time", c.name, foreignKept)
		})
	}
}
