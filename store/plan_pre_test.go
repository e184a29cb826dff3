package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// TestRewindBothSessionsEarliestPre: of two sessions' turns, the older
// (A) may record a path after the newer (B) changed it: its pre-image is
// then B's change, observed after B's own record of what was there
// before. Whether each write is a file tool's (a capture when it is
// made) or a shell command's (a sweep against the baseline taken when
// the command began), rewinding both turns gives back the folder before
// both, and its undo the folder after; a Store opened anew (which reads
// the summary) plans the same.
func TestRewindBothSessionsEarliestPre(t *testing.T) {
	paths := []string{"y.txt", "d/n.txt"} // one there before, one new in a new folder
	cases := []struct {
		name   string
		bShell bool // B's write is a command's, else an edit tool's
		aShell bool // so A's, after it
	}{
		{"edit after the other session's edit", false, false},
		{"edit after the other session's command", true, false},
		{"command after the other session's edit", false, true},
		{"command after the other session's command", true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, s, a, b, before := twoTurns(t, "x.txt", "y.txt")
			write := func(turn TurnID, shell bool, who string) {
				if shell {
					commandIn(t, s, turn, "gen "+who, func() {
						for _, p := range paths {
							put(t, root, p, p+" by "+who+"'s command\n", 0o644)
						}
					})
					return
				}
				for _, p := range paths {
					editIn(t, s, root, turn, p, p+" by "+who+"'s edit\n")
				}
			}
			write(b, tc.bShell, "B")
			write(a, tc.aShell, "A")
			after := tree(t, root)
			for i := range 2 { // the second Store reads the first's summary
				s2 := openStore(t, root)
				rewind(t, s2, string(a))
				sameTree(t, "after rewinding both sessions' turns", before, tree(t, root))
				undo(t, s2)
				sameTree(t, "after undoing the rewind", after, tree(t, root))
				if i == 0 {
					s2.Close()
				}
			}
		})
	}
}

// TestRewindBothSessionsLeftPath: a file B's command makes while A's
// command runs is rewritten by A's edit tool before any sweep sees it;
// A's closing sweep leaves it to B's command, and only when that ends
// does B's turn record the file as new. That record's pre-image (not
// there) was observed before A's capture, when the baseline the file
// was first left against was taken, not when a sweep first found it or
// when the baseline B's closing sweep compares with was: a rewind of
// both turns removes the file.
func TestRewindBothSessionsLeftPath(t *testing.T) {
	root, s, a, b, before := twoTurns(t, "x.txt", "y.txt")
	if _, err := s.SweepBefore(a, TurnMeta{}, "make gen"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepBefore(b, TurnMeta{}, "make out"); err != nil {
		t.Fatal(err)
	}
	put(t, root, "n.txt", "n by B's command\n", 0o644)
	editIn(t, s, root, a, "n.txt", "n by A's edit\n")
	if _, err := s.SweepAfter(a, TurnMeta{}, "make gen"); err != nil {
		t.Fatal(err)
	}
	commandIn(t, s, a, "make test", nil)
	if _, err := s.SweepAfter(b, TurnMeta{}, "make out"); err != nil {
		t.Fatal(err)
	}
	files, err := s.Files(string(b), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "n.txt" || files[0].Pre.Kind != ImageAbsent {
		t.Fatalf("B's turn holds %+v, want n.txt, new", files)
	}
	after := tree(t, root)
	rewind(t, s, string(a))
	sameTree(t, "after rewinding both sessions' turns", before, tree(t, root))
	undo(t, s)
	sameTree(t, "after undoing the rewind", after, tree(t, root))
}

// TestRewindPreSeenMixed: a rewind over two turns takes each path's
// pre-image observed first; a record that does not say when (written by
// a ckpt before "seen") counts as observed when its turn began, so a
// store of such records keeps turn order. Read from the records and
// from the summary alike.
func TestRewindPreSeenMixed(t *testing.T) {
	const began1, began2 = 100, 200 // the turns' "n"
	cases := []struct {
		name         string
		seen1, seen2 int64 // 0: the record does not say
		want         string
	}{
		{"neither says: turn order", 0, 0, "one"},
		{"both say: the earlier", 300, 250, "two"},
		{"both say, in turn order", 250, 300, "one"},
		{"only the newer says, before the older began", 0, 50, "two"},
		{"only the newer says, after the older began", 0, 210, "one"},
		{"only the older says, after the newer began", 250, 0, "two"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := tempRoot(t)
			if err := os.MkdirAll(filepath.Join(root, storeDir, "turns"), 0o700); err != nil {
				t.Fatal(err)
			}
			turn := func(id string, n, seen int64, target string) {
				var buf []byte
				buf = record.Append(buf, &record.Line{R: "turn", Turn: record.Turn{V: formatVersion, ID: id}, At: n, N: n})
				buf = record.Append(buf, &record.Line{R: "pre", File: record.File{Path: "l", Img: &Image{Kind: ImageLink, Link: target}, Seen: seen}, At: n + 20, N: n + 20})
				if err := os.WriteFile(filepath.Join(root, storeDir, "turns", id+".log"), buf, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			turn("1", began1, tc.seen1, "one")
			turn("2", began2, tc.seen2, "two")
			for i := range 2 { // the second Store reads the first's summary
				s := openStore(t, root)
				p, err := s.PlanRewind("1")
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Steps) != 1 || p.Steps[0].Want.Link != tc.want {
					t.Fatalf("store %d: the rewind wants %+v, want the link to %q", i, p.Steps, tc.want)
				}
				s.Close()
			}
		})
	}
}
