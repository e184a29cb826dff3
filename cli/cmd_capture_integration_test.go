package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestStdinPaths: capture, seal and rm take their paths from standard
// input with --stdin-paths, one per line or NUL-terminated with -z, after
// any given as arguments; a list with none is a usage error.
func TestStdinPaths(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"a.txt", "b c.txt", "line\nbreak.txt", "d.txt"} {
		if err := os.WriteFile(filepath.Join(root, n), []byte(n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	do := func(stdin string, args ...string) ckptRun {
		t.Helper()
		return ckptDo(t, ckptCall{Root: root, Stdin: []byte(stdin)}, args...)
	}
	if r := do("a.txt\r\n\nb c.txt\n", "capture", "--turn", "1", "--stdin-paths", "d.txt"); r.Code != 0 {
		t.Fatalf("capture --stdin-paths: %s", r)
	}
	if r := do("line\nbreak.txt\x00", "capture", "--turn", "1", "--stdin-paths", "-z"); r.Code != 0 {
		t.Fatalf("capture --stdin-paths -z: %s", r)
	}
	var show struct {
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	r := ckptOK(t, root, "show", "1", "--json")
	if err := json.Unmarshal([]byte(r.Stdout), &show); err != nil {
		t.Fatalf("show --json: %v\n%s", err, r.Stdout)
	}
	var got []string
	for _, f := range show.Files {
		got = append(got, f.Path)
	}
	slices.Sort(got)
	if want := []string{"a.txt", "b c.txt", "d.txt", "line\nbreak.txt"}; !slices.Equal(got, want) {
		t.Fatalf("turn 1 holds %q, want %q", got, want)
	}
	if r := do("a.txt\n", "seal", "--turn", "1", "--stdin-paths"); r.Code != 0 {
		t.Fatalf("seal --stdin-paths: %s", r)
	}
	if r := do("d.txt\n", "rm", "--turn", "2", "--stdin-paths"); r.Code != 0 {
		t.Fatalf("rm --stdin-paths: %s", r)
	}
	if _, err := os.Lstat(filepath.Join(root, "d.txt")); !os.IsNotExist(err) {
		t.Fatalf("rm --stdin-paths left d.txt: %v", err)
	}
	if r := do("", "capture", "--turn", "3", "-z", "a.txt"); r.Code != 2 {
		t.Fatalf("capture -z without --stdin-paths: exit %d, want 2 (usage)\n%s", r.Code, r)
	}
	if r := do("\n\n", "capture", "--turn", "3", "--stdin-paths"); r.Code != 2 {
		t.Fatalf("capture --stdin-paths of no paths: exit %d, want 2 (usage)\n%s", r.Code, r)
	}
}
