package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSeedTurnPassedThroughWeighed: a turn a seed index holds, to which
// a later capture naming its id added a file it made and removed again,
// weighs that file's pre-image in a rewind as a turn of records alone
// does: x.txt was not there before turn 1, so rewinding to 1 removes
// the x.txt a hand made since and turn 2 wrote; show still leaves it
// out of turn 1.
func TestSeedTurnPassedThroughWeighed(t *testing.T) {
	for _, seeded := range []bool{false, true} {
		name := map[bool]string{false: "records", true: "seed"}[seeded]
		t.Run(name, func(t *testing.T) {
			root := tempRoot(t)
			wr(t, root, "a.txt", "a\n")
			if seeded {
				writeSeedIndex(t, root)
			}
			s := openStore(t, root)
			x := filepath.Join(root, "x.txt")
			if _, err := s.Write("1", TurnMeta{}, x, []byte("x by 1\n")); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Remove("1", TurnMeta{}, []string{x}); err != nil {
				t.Fatal(err)
			}
			sh, err := s.Show("1", false)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range sh.Files {
				if f.Path == "x.txt" {
					t.Fatal("show 1 lists x.txt, which turn 1 made and removed")
				}
			}
			wr(t, root, "x.txt", "x by hand\n")
			if _, err := s.Write("2", TurnMeta{}, x, []byte("x by 2\n")); err != nil {
				t.Fatal(err)
			}
			rewind(t, s, "1")
			if got := rd(t, root, "x.txt"); got[0] != '<' {
				t.Fatalf("after rewinding to turn 1, x.txt holds %q, want it gone", got)
			}
		})
	}
}

// writeSeedIndex puts in root a seed store's index.json of one turn, 1,
// which found c.txt absent.
func writeSeedIndex(t *testing.T, root string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, storeDir), 0o700); err != nil {
		t.Fatal(err)
	}
	idx := `[{"turn": 1, "at": 1, "files": [{"path": "c.txt", "pre": {"kind": "absent"}}]}]`
	if err := os.WriteFile(filepath.Join(root, storeDir, "index.json"), []byte(idx), 0o600); err != nil {
		t.Fatal(err)
	}
}
