package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRel: whatever the path, Rel either refuses it or returns a clean
// relative path that stays inside the root and outside the store.
func FuzzRel(f *testing.F) {
	root := f.TempDir()
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	os.Symlink("/etc", filepath.Join(root, "out"))
	os.Symlink("a", filepath.Join(root, "in"))
	s, err := Open(root, Options{Create: true})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	for _, seed := range []string{"a/b/c.txt", "../x", "/etc/passwd", "a/../../x", root + "/a/b", root + "/../x",
		".osfoundry/checkpoints/lock", "out/passwd", "in/b/c", "./a//b/", "", ".", "a/./..", "\x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, p string) {
		rel, err := s.Rel(p)
		if err != nil {
			return
		}
		if rel == "" || rel == "." || strings.HasPrefix(rel, "/") || rel == ".." || strings.HasPrefix(rel, "../") ||
			strings.Contains(rel, "/../") || strings.HasSuffix(rel, "/..") {
			t.Fatalf("Rel(%q) = %q escapes the root", p, rel)
		}
		if rel == ".osfoundry" || strings.HasPrefix(rel, ".osfoundry/") {
			t.Fatalf("Rel(%q) = %q is inside the store", p, rel)
		}
		// Writing through the store's root must never land outside it.
		full := filepath.Join(root, filepath.FromSlash(rel))
		if !strings.HasPrefix(full, root+string(filepath.Separator)) {
			t.Fatalf("Rel(%q) = %q joins to %q outside %q", p, rel, full, root)
		}
	})
}

// TestRelRefuses names the paths that must be refused.
func TestRelRefuses(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	for _, p := range []string{"../x", "/etc/passwd", "a/../../x", "", ".", ".osfoundry/checkpoints/lock", filepath.Dir(root) + "/x"} {
		if rel, err := s.Rel(p); err == nil {
			t.Errorf("Rel(%q) = %q, want refusal", p, rel)
		}
	}
	for p, want := range map[string]string{"a/b.txt": "a/b.txt", root + "/a/./b.txt": "a/b.txt", "a/../c": "c"} {
		if rel, err := s.Rel(p); err != nil || rel != want {
			t.Errorf("Rel(%q) = %q, %v; want %q", p, rel, err, want)
		}
	}
}
