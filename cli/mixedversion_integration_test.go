package cli

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lastRelease is the commit of the release before the store format 3.
const lastRelease = "d453379"

// An agent's config can keep naming an older ckpt after an upgrade. The
// last release's binary, handed a store this one wrote, refuses to write
// to it — its commands with an error naming FORMAT, its hooks silently —
// and changes none of its files.
func TestLastReleaseRefusesThisStore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the last release")
	}
	if err := exec.Command("git", "cat-file", "-e", lastRelease+"^{commit}").Run(); err != nil {
		t.Skip("the last release's commit is not in this clone:", err)
	}
	src := filepath.Join(t.TempDir(), "release")
	if out, err := exec.Command("git", "worktree", "add", "--detach", src, lastRelease).CombinedOutput(); err != nil {
		t.Skipf("git worktree add: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("git", "worktree", "remove", "--force", src).Run() })
	old := filepath.Join(t.TempDir(), "ckpt-old")
	build := exec.Command("go", "build", "-o", old, ".")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", lastRelease, err, out)
	}

	p := newTestProject(t, map[string]string{"a.txt": "a\n"})
	ckptOK(t, p.root, "exec", "--turn", "1", "--", "sh", "-c", "rm a.txt; mkdir a.txt; echo g > a.txt/g")
	before := storeSums(t, p.root)
	run := func(stdin string, args ...string) (string, error) {
		cmd := exec.Command(old, args...)
		cmd.Dir = p.root
		cmd.Env = ckptEnv("", nil) // no CKPT_ROOT of the caller's naming another project
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("", "capture", "--turn", "2", "a.txt/g")
	if err == nil || !strings.Contains(out, "FORMAT") || !strings.Contains(out, "newer ckpt") {
		t.Errorf("the last release's capture: %v\n%s\nwant a refusal naming FORMAT", err, out)
	}
	ev := fmt.Sprintf(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":%q}`, p.root)
	if out, err := run(ev, "hook", "claude"); err != nil || out != "" {
		t.Errorf("the last release's hook: %v, %q; want exit 0 and silence", err, out)
	}
	if out, err := run("", "rewind", "1", "--yes"); err == nil {
		t.Errorf("the last release rewound this store:\n%s", out)
	}
	after := storeSums(t, p.root)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed under the last release", k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s made by the last release", k)
		}
	}
	// This one still reads and rewinds it.
	ckptOK(t, p.root, "rewind", "1", "--yes")
	if got := readText(t, p.root, "a.txt"); got != "a\n" {
		t.Fatalf("a.txt after the rewind: %q", got)
	}
}

// storeSums hashes every file of root's store.
func storeSums(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	dir := filepath.Join(root, ".osfoundry")
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[strings.TrimPrefix(p, dir+"/")] = fmt.Sprintf("%x", sha256.Sum256(b))
		return err
	})
	return out
}
