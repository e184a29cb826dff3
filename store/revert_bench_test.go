package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store"
)

// BenchmarkRevertVsRewind: one turn that changed line 10 of 500 files,
// a later turn that changed line 150 of each, and then either a revert of
// the first turn (a three-way merge per file, the later change kept) or a
// rewind to before it (every file put back). Each run is undone, untimed.
// `go test ./store -run X -bench RevertVsRewind -benchtime 1x` gives one
// run of each.
func BenchmarkRevertVsRewind(b *testing.B) {
	const n, lines = 500, 200
	root := b.TempDir()
	var files []string
	body := func(i int, edits map[int]string) string {
		var sb strings.Builder
		for l := range lines {
			if s, ok := edits[l]; ok {
				sb.WriteString(s + "\n")
				continue
			}
			fmt.Fprintf(&sb, "file %d line %d: some code that is the same in every version\n", i, l)
		}
		return sb.String()
	}
	write := func(f, s string) {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for i := range n {
		f := fmt.Sprintf("pkg%d/file%d.go", i%20, i)
		files = append(files, f)
		write(f, body(i, nil))
	}
	s, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	turn := func(id string, edits func(i int) map[int]string) {
		if _, err := s.Capture(store.TurnID(id), store.TurnMeta{Label: id}, files); err != nil {
			b.Fatal(err)
		}
		for i, f := range files {
			write(f, body(i, edits(i)))
		}
		if err := s.Seal(store.TurnID(id), files); err != nil {
			b.Fatal(err)
		}
	}
	turn("1", func(i int) map[int]string { return map[int]string{10: "changed by turn 1"} })
	turn("2", func(i int) map[int]string { return map[int]string{10: "changed by turn 1", 150: "changed by turn 2"} })
	run := func(b *testing.B, plan func() (*store.Plan, error), want int) {
		for b.Loop() {
			p, err := plan()
			if err != nil {
				b.Fatal(err)
			}
			res, err := s.Apply(p, nil)
			if err != nil || len(res.Restored) != want || len(res.Failed) > 0 {
				b.Fatalf("restored %d of %d, failed %v, err %v", len(res.Restored), want, res.Failed, err)
			}
			b.StopTimer()
			u, err := s.PlanUndo(false)
			if err == nil {
				_, err = s.Apply(u, nil)
			}
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		b.ReportMetric(float64(want), "files")
	}
	b.Run("revert", func(b *testing.B) {
		run(b, func() (*store.Plan, error) { return s.PlanRevert("1", store.RevertOptions{}) }, n)
	})
	b.Run("rewind", func(b *testing.B) {
		run(b, func() (*store.Plan, error) { return s.PlanRewind("1") }, n)
	})
}
