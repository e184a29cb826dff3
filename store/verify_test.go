package store

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestVerifyAfterPruneOfRewrites: a turn that wrote the same file twice
// (two seals, and two shell commands of one turn) names the first seal's
// blob in its file too; a plain prune must keep it, so verify finds
// nothing, and a rewind of every kept turn still works.
func TestVerifyAfterPruneOfRewrites(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "f.txt", "before\n")
	wr(t, root, "g.txt", "g before\n")
	s := openStore(t, root)
	for i := 1; i <= 8; i++ {
		id := fmt.Sprint(i)
		switch {
		case i%2 == 1: // a file tool writing f twice
			for k := range 2 {
				if _, err := s.Capture(TurnID(id), TurnMeta{}, []string{"f.txt"}); err != nil {
					t.Fatal(err)
				}
				wr(t, root, "f.txt", fmt.Sprintf("turn %d write %d\n", i, k))
				if err := s.Seal(TurnID(id), []string{"f.txt"}); err != nil {
					t.Fatal(err)
				}
			}
		default: // two shell commands of one turn writing g
			turn, err := s.NewTurn(TurnMeta{Label: id})
			if err != nil {
				t.Fatal(err)
			}
			for k := range 2 {
				if _, err := s.SweepBefore(turn, TurnMeta{}, "echo"); err != nil {
					t.Fatal(err)
				}
				wr(t, root, "g.txt", fmt.Sprintf("turn %d command %d\n", i, k))
				if _, err := s.SweepAfter(turn, TurnMeta{}, "echo"); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if _, err := s.Prune(PruneOptions{Keep: 5}); err != nil {
		t.Fatal(err)
	}
	if fs, err := openStore(t, root).Verify(); err != nil || len(fs) != 0 {
		t.Fatalf("verify after prune --keep 5: %v %v", fs, err)
	}
}

// TestVerifyBesidePrune: verify run again and again while hooks capture,
// seal and sweep and prune drops turns and blobs, each through a store of
// its own (as separate processes are), reports nothing: what it reads is
// one consistent state, never one torn by a prune or repack in flight.
func TestVerifyBesidePrune(t *testing.T) {
	root := t.TempDir()
	paths := bulkTree(t, root, 12)
	hooks, pruner := openStore(t, root), openStore(t, root)
	var stop atomic.Bool
	var turns, prunes atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Add(2)
	go func() { // the hooks: file writes and shell commands, turn after turn
		defer wg.Done()
		for i := 1; !stop.Load(); i++ {
			id := fmt.Sprintf("h%d", i)
			p := paths[i%len(paths)]
			if _, err := hooks.Capture(TurnID(id), TurnMeta{}, []string{p}); err != nil {
				errs <- err
				return
			}
			wr(t, root, p, strings.Repeat(fmt.Sprintf("turn %d\n", i), 40))
			if err := hooks.Seal(TurnID(id), []string{p}); err != nil {
				errs <- err
				return
			}
			if _, err := hooks.SweepBefore(TurnID(id), TurnMeta{}, "sed -i"); err != nil {
				errs <- err
				return
			}
			for _, q := range paths[:4+i%8] {
				wr(t, root, q, fmt.Sprintf("%s by command %d\n", q, i))
			}
			if _, err := hooks.SweepAfter(TurnID(id), TurnMeta{}, "sed -i"); err != nil {
				errs <- err
				return
			}
			turns.Add(1)
		}
	}()
	go func() { // prune beside them, dropping all but the newest turns
		defer wg.Done()
		for !stop.Load() {
			if _, err := pruner.Prune(PruneOptions{Keep: 3}); err != nil {
				errs <- err
				return
			}
			prunes.Add(1)
		}
	}()
	// At least 250 runs, and on until prune and the hooks have each done
	// enough that the runs met them in every phase.
	minRuns, runs, alarms := 250, 0, 0
	if testing.Short() {
		minRuns = 40
	}
	var first []Finding
	for turns.Load() < 3 && len(errs) == 0 {
		runtime.Gosched()
	}
	for ; len(errs) == 0 && runs < 20*minRuns && (runs < minRuns || prunes.Load() < 10 || turns.Load() < 20); runs++ {
		v, err := Open(root, Options{})
		if err != nil {
			t.Fatal(err)
		}
		fs, err := v.Verify()
		v.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) > 0 {
			alarms++
			if first == nil {
				first = fs
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d verify runs beside %d turns and %d prunes", runs, turns.Load(), prunes.Load())
	if alarms > 0 {
		t.Fatalf("%d of %d verify runs beside prune and hooks found damage; the first: %v", alarms, runs, first)
	}
}
