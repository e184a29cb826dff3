package ui

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckpt-dev/ckpt/store"
)

// TestUndoStacksFollowTheStore: over random runs of rewinds, reverts,
// undos and redos on a real store, what the log tells the UI u and
// ctrl+r can act on is what the store's own undo and redo plan say, after
// every step; and the row that says "u to undo" is the operation the
// undo would take back (its target, or the redo that re-applied it).
func TestUndoStacksFollowTheStore(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			root := t.TempDir()
			s, err := store.Open(root, store.Options{Create: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			turns := []string{"1", "2", "3", "4"}
			for i, id := range turns {
				name := filepath.Join(root, fmt.Sprintf("f%d.txt", i))
				if err := os.WriteFile(name, []byte("before\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Write(store.TurnID(id), store.TurnMeta{Label: "turn " + id}, name, []byte("after "+id+"\n")); err != nil {
					t.Fatal(err)
				}
			}
			r := rand.New(rand.NewPCG(seed, 7))
			var did []string
			for step := 0; step < 14; step++ {
				var p *store.Plan
				var err error
				switch k := r.IntN(5); k {
				case 0:
					p, err = s.PlanRewindWith(turns[r.IntN(len(turns))], store.RewindOptions{})
				case 1:
					p, err = s.PlanRevert(turns[r.IntN(len(turns))], store.RevertOptions{})
				case 2, 3:
					p, err = s.PlanUndo(true)
				default:
					p, err = s.PlanRedo(true)
				}
				if err == nil && p != nil {
					if _, err := s.Apply(p, nil); err == nil {
						did = append(did, fmt.Sprintf("%s %s", p.Kind, p.Target))
					}
				}
				entries, err := s.Log(false)
				if err != nil {
					t.Fatal(err)
				}
				got := undoStacks(entries)
				up, uerr := s.PlanUndo(true)
				_, rerr := s.PlanRedo(true)
				wantUndo, wantRedo := !errors.Is(uerr, store.ErrNothingToUndo), !errors.Is(rerr, store.ErrNothingToRedo)
				if got.undo != wantUndo || got.redo != wantRedo {
					t.Fatalf("after %v: the log says undo %v redo %v, the store %v (%v) %v (%v)",
						did, got.undo, got.redo, wantUndo, uerr, wantRedo, rerr)
				}
				if up != nil && up.Retry == "" && got.row == "" {
					t.Fatalf("after %v: the store would undo %s, and no row says u", did, up.Target)
				}
			}
		})
	}
}
