package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// longCommand is a shell command of about n bytes: a heredoc, as agents
// write them.
func longCommand(n int) string {
	var b strings.Builder
	b.WriteString("cat > gen.py <<'EOF'\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "print('line %d of a long generated script', %d)\n", i, i*7919%104729)
	}
	b.WriteString("EOF\npython3 gen.py\n")
	return b.String()
}

// longCommandStore sweeps a tree of files, then runs one command of
// cmdBytes bytes that rewrites every file, and returns the store, the
// bytes the command added to it, and the bytes of the command and of the
// files as it left them.
func longCommandStore(tb testing.TB, files, cmdBytes int) (s *Store, root string, grew, payload int64) {
	tb.Helper()
	root = tb.TempDir()
	for i := range files {
		wr(tb, root, fmt.Sprintf("src/d%02d/f%03d.txt", i%20, i), strings.Repeat(fmt.Sprintf("file %d before\n", i), 60))
	}
	s, err := Open(root, Options{Create: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	if _, err := s.SweepBefore("", TurnMeta{}, ""); err != nil {
		tb.Fatal(err)
	}
	size0, err := s.Size()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := longCommand(cmdBytes)
	turn, err := s.NewTurn(TurnMeta{Label: "generate"})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := s.SweepBefore(turn, TurnMeta{}, cmd); err != nil {
		tb.Fatal(err)
	}
	payload = int64(len(cmd))
	for i := range files {
		data := strings.Repeat(fmt.Sprintf("file %d after the command\n", i), 60)
		payload += int64(len(data))
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("src/d%02d/f%03d.txt", i%20, i)), []byte(data), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	res, err := s.SweepAfter(turn, TurnMeta{}, cmd)
	if err != nil {
		tb.Fatal(err)
	}
	if len(res.Changed) != files {
		tb.Fatalf("the sweep after found %d changed, want %d", len(res.Changed), files)
	}
	size1, err := s.Size()
	if err != nil {
		tb.Fatal(err)
	}
	return s, root, size1 - size0, payload
}

// BenchmarkLongCommandStore is a 1 MB command that changed 500 files:
// the store must grow by the command once and the files, not by the
// command per file (store-x is the growth over the command and the files'
// new bytes; goal at most 2). Each iteration builds the store again; the
// time is that of the whole (the sweeps, with the first one's copies).
func BenchmarkLongCommandStore(b *testing.B) {
	var grew, payload int64
	for b.Loop() {
		_, _, grew, payload = longCommandStore(b, 500, 1<<20)
	}
	b.ReportMetric(float64(grew)/float64(payload), "store-x")
	b.ReportMetric(float64(grew)/(1<<20), "store-MiB")
}
