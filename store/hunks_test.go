package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
)

func sumOf(s string) string { return blob.Of([]byte(s)).String() }

// TestRewindKeepHunks: a rewind that keeps two of a file's three hunks as
// they are now writes the pre-image with those hunks of the disk in
// place, byte for byte (CRLF line ends, no final newline, the pre-image's
// mode); its plan id is not the id of the plan keeping nothing, so one
// cannot be applied for the other; undo gives back the file exactly, and
// redo the result again.
func TestRewindKeepHunks(t *testing.T) {
	root := t.TempDir()
	pre := "l1\r\nl2\r\nl3\r\nl4\r\nl5\r\nl6\r\nl7\r\nl8\r\nl9"
	now := "l1\r\nL2\r\nl3\r\nl4\r\nL5 and\r\nmore\r\nl6\r\nl7\r\nl8\r\nL9"
	put(t, root, "a.txt", pre, 0o755)
	s := openStore(t, root)
	if _, err := s.Write("1", TurnMeta{Label: "edit"}, filepath.Join(root, "a.txt"), []byte(now)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "a.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := s.PlanRewind("1")
	if err != nil {
		t.Fatal(err)
	}
	hunks := []Hunk{
		{Now: LineSpan{1, 1}, Want: LineSpan{1, 1}}, // L2
		{Now: LineSpan{9, 1}, Want: LineSpan{8, 1}}, // L9, no final newline
	}
	keep := HunkKeep{Path: "a.txt", Now: sumOf(now), Want: sumOf(pre), Hunks: hunks}
	p, err := s.PlanRewindWith("1", RewindOptions{KeepHunks: []HunkKeep{keep}})
	if err != nil {
		t.Fatal(err)
	}
	want := "l1\r\nL2\r\nl3\r\nl4\r\nl5\r\nl6\r\nl7\r\nl8\r\nL9"
	if len(p.Steps) != 1 || p.Steps[0].Do != ActRestore || p.Steps[0].KeptHunks != 2 || p.Steps[0].Want.SHA256.String() != sumOf(want) {
		t.Fatalf("plan keeping hunks: %+v", p.Steps)
	}
	if b, err := s.ReadImage(p.Steps[0].Want); err != nil || string(b) != want {
		t.Fatalf("ReadImage of the result: %q %v", b, err)
	}
	if p.ID == base.ID {
		t.Fatal("the plan keeping hunks has the id of the plan keeping nothing")
	}
	// The plan shown without hunks, made to carry them, is refused.
	forged := *base
	forged.KeepHunks = p.KeepHunks
	if _, err := s.Apply(&forged, nil); !errors.Is(err, ErrPlanChanged) {
		t.Fatalf("a plan id applied with another choice of hunks: %v", err)
	}
	if _, err := s.Apply(p, nil); err != nil {
		t.Fatal(err)
	}
	if got := rd(t, root, "a.txt"); got != want {
		t.Fatalf("after the rewind keeping hunks:\n%q\nwant\n%q", got, want)
	}
	if fi, _ := os.Stat(filepath.Join(root, "a.txt")); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %o, want the pre-image's 755", fi.Mode().Perm())
	}
	undo(t, s)
	if got := rd(t, root, "a.txt"); got != now {
		t.Fatalf("undo: %q, want %q", got, now)
	}
	redo(t, s)
	if got := rd(t, root, "a.txt"); got != want {
		t.Fatalf("redo: %q, want %q", got, want)
	}
}

// TestKeepHunksRefused: hunks chosen against bytes the file no longer
// holds are refused (ErrHunksChanged), a plan keeping them that is applied
// after the file changed changes nothing, and hunks that are not changes
// of the diff are refused with the reason.
func TestKeepHunksRefused(t *testing.T) {
	root := t.TempDir()
	put(t, root, "a.txt", "a\nb\nc\n", 0o644)
	s := openStore(t, root)
	now := "A\nb\nC\n"
	if _, err := s.Write("1", TurnMeta{}, filepath.Join(root, "a.txt"), []byte(now)); err != nil {
		t.Fatal(err)
	}
	good := HunkKeep{Path: "a.txt", Now: sumOf(now), Want: sumOf("a\nb\nc\n"), Hunks: []Hunk{{Now: LineSpan{2, 1}, Want: LineSpan{2, 1}}}}
	p, err := s.PlanRewindWith("1", RewindOptions{KeepHunks: []HunkKeep{good}})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		k    HunkKeep
		want string
	}{
		"stale":      {HunkKeep{Path: "a.txt", Now: sumOf("other"), Want: good.Want, Hunks: good.Hunks}, ""},
		"outside":    {HunkKeep{Path: "a.txt", Now: good.Now, Want: good.Want, Hunks: []Hunk{{Now: LineSpan{2, 2}, Want: LineSpan{2, 1}}}}, "outside the file"},
		"not a hunk": {HunkKeep{Path: "a.txt", Now: good.Now, Want: good.Want, Hunks: []Hunk{{Now: LineSpan{1, 1}, Want: LineSpan{1, 1}}}}, "lines before it differ"},
		"untouched":  {HunkKeep{Path: "b.txt", Now: good.Now, Want: good.Want, Hunks: good.Hunks}, "does not touch it"},
	} {
		_, err := s.PlanRewindWith("1", RewindOptions{KeepHunks: []HunkKeep{c.k}})
		switch {
		case err == nil:
			t.Errorf("%s: planned", name)
		case c.want == "" && !errors.Is(err, ErrHunksChanged):
			t.Errorf("%s: %v, want ErrHunksChanged", name, err)
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	put(t, root, "a.txt", "A\nb\nC!\n", 0o644)
	if _, err := s.Apply(p, nil); !errors.Is(err, ErrPlanChanged) {
		t.Fatalf("applied after the file changed: %v", err)
	}
	if got := rd(t, root, "a.txt"); got != "A\nb\nC!\n" {
		t.Fatalf("the file was changed: %q", got)
	}
}

// TestRevertKeepHunks: a revert keeps a hunk of its merge as it is now
// while the rest of the turn's change is taken out and a later turn's
// change stays.
func TestRevertKeepHunks(t *testing.T) {
	root := t.TempDir()
	var lines []string
	for i := 1; i <= 20; i++ {
		lines = append(lines, "line "+string(rune('a'+i)))
	}
	text := func(edit map[int]string) string {
		out := append([]string(nil), lines...)
		for i, l := range edit {
			out[i-1] = l
		}
		return strings.Join(out, "\n") + "\n"
	}
	put(t, root, "a.txt", text(nil), 0o644)
	s := openStore(t, root)
	abs := filepath.Join(root, "a.txt")
	if _, err := s.Write("1", TurnMeta{}, abs, []byte(text(map[int]string{1: "ONE", 10: "TEN"}))); err != nil {
		t.Fatal(err)
	}
	now := text(map[int]string{1: "ONE", 10: "TEN", 20: "TWENTY"})
	if _, err := s.Write("2", TurnMeta{}, abs, []byte(now)); err != nil {
		t.Fatal(err)
	}
	base, err := s.PlanRevert("1", RevertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	merged, err := s.ReadImage(base.Steps[0].Want)
	if err != nil {
		t.Fatal(err)
	}
	keep := HunkKeep{Path: "a.txt", Now: sumOf(now), Want: sumOf(string(merged)), Hunks: []Hunk{{Now: LineSpan{9, 1}, Want: LineSpan{9, 1}}}}
	p, err := s.PlanRevert("1", RevertOptions{KeepHunks: []HunkKeep{keep}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(p, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := rd(t, root, "a.txt"), text(map[int]string{10: "TEN", 20: "TWENTY"}); got != want {
		t.Fatalf("after the revert keeping the hunk of line 10:\n%s\nwant\n%s", got, want)
	}
	undo(t, s)
	if got := rd(t, root, "a.txt"); got != now {
		t.Fatalf("undo: %q", got)
	}
}

// TestSpliceHunks: the splice, byte for byte, at a file's edges.
func TestSpliceHunks(t *testing.T) {
	for _, c := range []struct {
		name, now, want, out string
		h                    []Hunk
	}{
		{"insert kept at the top", "new\na\n", "a\n", "new\na\n", []Hunk{{LineSpan{0, 1}, LineSpan{0, 0}}}},
		{"delete kept at the end", "a\n", "a\nold\n", "a\n", []Hunk{{LineSpan{1, 0}, LineSpan{1, 1}}}},
		{"final newline kept off", "a\nb", "a\nb\n", "a\nb", []Hunk{{LineSpan{1, 1}, LineSpan{1, 1}}}},
		{"CRLF and LF mixed", "a\r\nX\nc\r\n", "a\r\nb\r\nc\r\n", "a\r\nX\nc\r\n", []Hunk{{LineSpan{1, 1}, LineSpan{1, 1}}}},
		{"bytes not UTF-8", "a\n\xff\xfe\nc\n", "a\nb\nc\n", "a\n\xff\xfe\nc\n", []Hunk{{LineSpan{1, 1}, LineSpan{1, 1}}}},
	} {
		got, err := spliceHunks([]byte(c.now), []byte(c.want), c.h)
		if err != nil || string(got) != c.out {
			t.Errorf("%s: %q %v, want %q", c.name, got, err, c.out)
		}
	}
}
