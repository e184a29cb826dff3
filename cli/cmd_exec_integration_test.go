package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExec: ckpt exec passes the command's streams through, exits with its
// status, and records what it changed so a rewind undoes it.
func TestExec(t *testing.T) {
	bin := buildHookBinary(t)
	root := t.TempDir()
	writeTexts(t, root, map[string]string{".gitignore": "dist/\n", "a.txt": "a\n", "b.txt": "b\n", ".env": "K=1\n"})
	before := snapshotDir(t, root)
	env := hookEnv(map[string]string{"CKPT_ROOT": root})
	r := runBinary(bin, root, []byte("piped in\n"), env, "exec", "--turn", "1", "--label", "tidy", "--",
		"sh", "-c", "cat; echo to-stderr >&2; echo A > a.txt; rm b.txt; echo K=2 > .env; mkdir -p dist && echo x > dist/out; exit 7")
	if r.Code != 7 || r.Stdout != "piped in\n" || r.Stderr != "to-stderr\n" {
		t.Fatalf("exec: exit %d, stdout %q, stderr %q; want 7, the input echoed, to-stderr", r.Code, r.Stdout, r.Stderr)
	}
	r = runBinary(bin, root, nil, env, "show", "1")
	for _, p := range []string{"a.txt", "b.txt", ".env"} {
		if !strings.Contains(r.Stdout, p) {
			t.Errorf("show 1 lacks %s:\n%s", p, r.Stdout)
		}
	}
	if strings.Contains(r.Stdout, "dist/out  ") {
		t.Errorf("show 1 holds the ignored folder:\n%s", r.Stdout)
	}
	if r = runBinary(bin, root, nil, env, "rewind", "1", "--yes"); r.Code != 0 {
		t.Fatalf("rewind: %+v", r)
	}
	os.RemoveAll(filepath.Join(root, "dist"))
	requireSnapshot(t, root, before, "after rewinding the command")
	if r = runBinary(bin, root, nil, env, "exec", "--turn", "2", "--", "sh", "-c", "kill -TERM $$"); r.Code != 128+15 {
		t.Fatalf("a command killed by SIGTERM: exit %d, want 143", r.Code)
	}
	if r = runBinary(bin, root, nil, env, "exec", "--turn", "2", "--", "no-such-command-here"); r.Code != 127 {
		t.Fatalf("a command not found: exit %d, want 127", r.Code)
	}
	if r = runBinary(bin, root, nil, env, "exec", "--", "true"); r.Code != 2 {
		t.Fatalf("no --turn: exit %d, want 2", r.Code)
	}
}
