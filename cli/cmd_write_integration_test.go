package cli

import (
	"fmt"
	"path/filepath"
	"testing"
)

func TestWriteAndRm(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n", "b.txt": "b 0\n"})
	s0 := snapshotDir(t, p.root)
	if r := ckptDo(t, ckptCall{Root: p.root, Stdin: []byte("a from stdin\n")}, "write", "--turn", "1", "--label", "write and rm", "a.txt"); r.Code != 0 {
		t.Fatalf("write\n%s", r)
	}
	if r := ckptDo(t, ckptCall{Root: p.root, Stdin: []byte("brand new\n")}, "write", "--turn", "1", "dir/new.txt"); r.Code != 0 {
		t.Fatalf("write of a new file in a new folder\n%s", r)
	}
	ckptOK(t, p.root, "rm", "--turn", "1", "b.txt")
	if got := readText(t, p.root, "a.txt"); got != "a from stdin\n" {
		t.Errorf("write left a.txt %q", got)
	}
	if pathExists(filepath.Join(p.root, "b.txt")) {
		t.Errorf("rm left b.txt")
	}
	want := map[string]string{"a.txt": "modified", "dir/new.txt": "created", "b.txt": "deleted"}
	if got := ckptShow(t, p.root, "1").statuses(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("show 1: %v, want %v (write and rm seal: nothing is hand_edited)", got, want)
	}
	ckptOp(t, p.root, 0, "rewind", "1", "--yes")
	requireSnapshot(t, p.root, s0, "rewind of write and rm")
}
