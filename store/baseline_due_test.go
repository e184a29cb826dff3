package store

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A baseline.log past its share that the background pass cannot fold (a
// log of another generation, which a compaction killed before it removed
// the old log leaves; a torn tail past the last whole frame) must not
// keep the pass due: before, MaintenanceDue said yes at every turn's end
// and every pass wrote nothing, so each turn started another. The pass
// removes a stale log and cuts a torn tail, which no reader reads, and
// the baseline a sweep reads is the one before.
func TestBaselineLogNotFoldableIsNotDueForever(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(log []byte) []byte
		next  []string // what the next sweep finds: what the baseline read lacks
	}{
		{"a log of another generation", func(log []byte) []byte {
			log[len(baselineLogMagic)] ^= 1
			return append(log, make([]byte, 80<<10)...)
		}, []string{"d000/f00000.txt", "d001/f00050.txt"}},
		{"a torn tail", func(log []byte) []byte {
			return append(log, bytes.Repeat([]byte("torn"), 20<<10)...)
		}, []string{"d001/f00050.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, s := sweptTree(t, 200)
			wr(t, root, "d000/f00000.txt", "one\n")
			if _, err := s.SweepAfter("1", TurnMeta{}, "one"); err != nil {
				t.Fatal(err)
			}
			logPath := filepath.Join(s.path(""), baselineLog)
			log, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(logPath, tc.spoil(log), 0o600); err != nil {
				t.Fatal(err)
			}
			before, err := s.loadBaseline()
			if err != nil || before == nil {
				t.Fatal(err)
			}
			if !s.baselineDue() {
				t.Fatal("the spoiled log is not past its share")
			}
			if _, err := s.Maintain(Budget{}, false); err != nil {
				t.Fatal(err)
			}
			if s.baselineDue() || s.MaintenanceDue() {
				t.Fatal("the pass is still due after a pass")
			}
			after, err := s.loadBaseline()
			if err != nil || after == nil {
				t.Fatal(err)
			}
			if after.turn != before.turn || after.cmd != before.cmd || after.at != before.at || !slices.Equal(after.entries, before.entries) {
				t.Fatal("the pass changed the baseline a sweep reads")
			}
			// Sweeps go on from it.
			wr(t, root, "d001/f00050.txt", "two\n")
			res, err := s.SweepAfter("2", TurnMeta{}, "two")
			if err != nil || !slices.Equal(res.Changed, tc.next) {
				t.Fatalf("the next sweep: %v, %v", res, err)
			}
			sameAsFull(t, s, "after the next sweep")
		})
	}
}
