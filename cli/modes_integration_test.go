package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// Folders whose mode shuts their owner out (0500: no writing) come back
// with that mode and the files they held, run as a user the bits apply
// to: each folder is made open, filled, and given its mode last, the
// deepest first. Before, a rewind made d 0500 and then could not write
// d/e/f into it.
func TestShutFoldersComeBack(t *testing.T) {
	p := newPermProject(t)
	writeTexts(t, p.root, map[string]string{"d/e/f": "f\n", "n.txt": "n\n"})
	p.own(t)
	for _, name := range []string{"d/e", "d"} {
		if err := os.Chmod(filepath.Join(p.root, name), 0o500); err != nil {
			t.Fatal(err)
		}
	}
	if r := p.run(t, "exec", "--turn", "0", "--", "true"); r.Code != 0 {
		t.Fatalf("first sweep\n%s", r)
	}
	r := p.run(t, "exec", "--turn", "1", "--", "sh", "-c", "chmod -R u+w d && rm -r d && echo n2 > n.txt")
	if r.Code != 0 {
		t.Fatalf("exec\n%s", r)
	}
	if r := p.run(t, "rewind", "1", "--yes"); r.Code != 0 {
		t.Fatalf("rewind\n%s", r)
	}
	for _, name := range []string{"d", "d/e"} {
		if m := p.mode(t, name); m != 0o500 {
			t.Errorf("%s is %v after the rewind, want 0500", name, m)
		}
	}
	if got := readText(t, p.root, "d/e/f"); got != "f\n" {
		t.Errorf("d/e/f holds %q after the rewind", got)
	}
}
