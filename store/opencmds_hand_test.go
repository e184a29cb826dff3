package store

import (
	"os"
	"path/filepath"
	"testing"
)

// handEdit is the developer's edit by hand while A's command runs: y.txt
// rewritten and its mode changed, z.txt removed, h.txt and d/h.txt made,
// and x.txt, which A's command wrote, written again.
func handEdit(t *testing.T, root string) {
	t.Helper()
	put(t, root, "y.txt", "y by hand\n", 0o600)
	if err := os.Remove(filepath.Join(root, "z.txt")); err != nil {
		t.Fatal(err)
	}
	put(t, root, "h.txt", "h by hand\n", 0o644)
	put(t, root, "d/h.txt", "d/h by hand\n", 0o644)
	put(t, root, "x.txt", "x by hand after A's command\n", 0o644)
}

// TestHandEditDuringOtherSessionCommand: while session A's shell command
// runs, the developer edits files by hand. No command owns that change
// alone but the commands running: a sweep finds it A's when A's command
// is the only one running (B's sweep before its command, or A's closing
// sweep), and A's and B's, shared, when B's command runs too; a file made
// by hand is left to A's closing sweep, which gives it to every command
// running when it appeared. Each turn holding a path keeps its bytes of
// before the edit, and rewinding both turns gives back the folder before
// them, byte for byte; the undo, the folder after.
func TestHandEditDuringOtherSessionCommand(t *testing.T) {
	type holds map[string][]string
	cases := []struct {
		name  string
		steps func(t *testing.T, s *Store, root string, a, b TurnID)
		a, b  func(a, b TurnID) holds
	}{
		{"A's closing sweep finds it",
			func(t *testing.T, s *Store, root string, a, b TurnID) {
				handEdit(t, root)
				sweepAfter(t, s, a, "make gen")
			},
			func(a, b TurnID) holds {
				return holds{"x.txt": nil, "y.txt": nil, "z.txt": nil, "h.txt": nil, "d/h.txt": nil}
			},
			func(a, b TurnID) holds { return holds{} }},
		{"B's sweep before its command finds it",
			func(t *testing.T, s *Store, root string, a, b TurnID) {
				handEdit(t, root)
				commandIn(t, s, b, "ls", nil)
				sweepAfter(t, s, a, "make gen")
			},
			func(a, b TurnID) holds {
				return holds{"x.txt": nil, "y.txt": nil, "z.txt": nil, "h.txt": nil, "d/h.txt": nil}
			},
			func(a, b TurnID) holds { return holds{} }},
		{"while B's command runs, A's closing sweep finds it",
			func(t *testing.T, s *Store, root string, a, b TurnID) {
				sweepBefore(t, s, b, "ls")
				handEdit(t, root)
				sweepAfter(t, s, a, "make gen")
				sweepAfter(t, s, b, "ls")
			},
			func(a, b TurnID) holds {
				return holds{"x.txt": {string(b)}, "y.txt": {string(b)}, "z.txt": {string(b)}, "h.txt": {string(b)}, "d/h.txt": {string(b)}}
			},
			func(a, b TurnID) holds {
				return holds{"x.txt": {string(a)}, "y.txt": {string(a)}, "z.txt": {string(a)}, "h.txt": {string(a)}, "d/h.txt": {string(a)}}
			}},
		{"while B's command runs, B's closing sweep finds it",
			func(t *testing.T, s *Store, root string, a, b TurnID) {
				sweepBefore(t, s, b, "ls")
				handEdit(t, root)
				sweepAfter(t, s, b, "ls")
				sweepAfter(t, s, a, "make gen")
			},
			func(a, b TurnID) holds {
				return holds{"x.txt": {string(b)}, "y.txt": {string(b)}, "z.txt": {string(b)}, "h.txt": {string(b)}, "d/h.txt": {string(b)}}
			},
			func(a, b TurnID) holds {
				return holds{"x.txt": {string(a)}, "y.txt": {string(a)}, "z.txt": {string(a)}, "h.txt": {string(a)}, "d/h.txt": {string(a)}}
			}},
		{"by hand before and after B's sweep, B's command writing a file too",
			func(t *testing.T, s *Store, root string, a, b TurnID) {
				handEdit(t, root)
				sweepBefore(t, s, b, "sed -i y.txt")
				put(t, root, "y.txt", "y by B's command\n", 0o600)
				put(t, root, "h.txt", "h by hand again\n", 0o644)
				sweepAfter(t, s, b, "sed -i y.txt")
				put(t, root, "y.txt", "y by hand again\n", 0o644)
				sweepAfter(t, s, a, "make gen")
			},
			func(a, b TurnID) holds {
				return holds{"x.txt": nil, "y.txt": {string(b)}, "z.txt": nil, "h.txt": nil, "d/h.txt": nil}
			},
			func(a, b TurnID) holds { return holds{"y.txt": {string(a)}} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, s, a, b, before := twoRunning(t)
			tc.steps(t, s, root, a, b)
			after := tree(t, root)
			sameShares(t, "A's turn", turnShares(t, s, a), tc.a(a, b))
			sameShares(t, "B's turn", turnShares(t, s, b), tc.b(a, b))
			preKept(t, s, a, before)
			preKept(t, s, b, nil)
			sameAsFull(t, s, "after both sessions' sweeps")
			rewoundToBefore(t, s, root, a, before)
			undo(t, s)
			sameTree(t, "after undoing the rewind", after, tree(t, root))
		})
	}
}

// preKept checks that the pre-image of each path turn holds is kept: its
// bytes read back. With before, the folder before both turns, it checks
// too that each is what before held there (a file of twoTurns', or none).
func preKept(t *testing.T, s *Store, turn TurnID, before map[string]string) {
	t.Helper()
	files, err := s.Files(string(turn), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if before == nil {
			if f.Pre.Kind == ImageContent {
				if data, err := s.readBlobOf(f.Pre); err != nil || blobIDOf(data) != f.Pre.SHA256 {
					t.Errorf("turn %s, %s: pre-image's bytes not kept: %v", turn, f.Path, err)
				}
			}
			continue
		}
		_, ok := before[f.Path]
		was := f.Path + " before\n"
		switch {
		case !ok && f.Pre.Kind != ImageAbsent:
			t.Errorf("turn %s, %s: pre %v, want absent", turn, f.Path, f.Pre.Kind)
		case ok && (f.Pre.Kind != ImageContent || f.Pre.SHA256 != blobIDOf([]byte(was))):
			t.Errorf("turn %s, %s: pre %+v, want %q", turn, f.Path, f.Pre, was)
		case ok:
			if data, err := s.readBlobOf(f.Pre); err != nil || string(data) != was {
				t.Errorf("turn %s, %s: pre-image's bytes %q, %v; want %q", turn, f.Path, data, err, was)
			}
		}
	}
}

func sweepBefore(t *testing.T, s *Store, turn TurnID, cmd string) {
	t.Helper()
	if _, err := s.SweepBefore(turn, TurnMeta{}, cmd); err != nil {
		t.Fatal(err)
	}
}

func sweepAfter(t *testing.T, s *Store, turn TurnID, cmd string) {
	t.Helper()
	if _, err := s.SweepAfter(turn, TurnMeta{}, cmd); err != nil {
		t.Fatal(err)
	}
}
