package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The summary file that lets log, show and the UI skip reading every
// turn (store/summary.go), killed after each of its file operations:
// written whole (no summary yet), appended to (a turn added since), and
// rewritten (its stale entries outweigh the live ones). Whatever a kill
// leaves, the next log and show print exactly what they print from the
// records alone, and verify passes.
func TestCrashDuringSummary(t *testing.T) {
	base := t.TempDir()
	tmpl := filepath.Join(base, "template")
	if err := os.MkdirAll(tmpl, 0o755); err != nil {
		t.Fatal(err)
	}
	writeText(t, tmpl, "a.txt", "a0\n")
	for i := 1; i <= 6; i++ {
		ckptDo(t, ckptCall{Root: tmpl, Stdin: fmt.Appendf(nil, "a%d\n", i)}, "write", "--turn", strconv.Itoa(i), "--label", "turn "+strconv.Itoa(i), "a.txt")
	}
	ckptOK(t, tmpl, "rewind", "5", "--yes")
	off := []string{"CKPT_SUMMARY_MIN=100000"} // no summary: the records alone
	on := []string{"CKPT_SUMMARY_MIN=1"}
	read := func(root string, env []string) string {
		t.Helper()
		out := ""
		for _, args := range [][]string{{"log", "--json"}, {"show", "3", "--json"}, {"show", "6", "--json"}} {
			r := ckptDo(t, ckptCall{Root: root, Env: env}, args...)
			if r.Code != 0 || r.Killed {
				t.Fatalf("%v: %s", args, r)
			}
			out += r.Stdout
		}
		return out
	}
	summary := func(root string) string { return filepath.Join(storeFolder(root), "summary") }
	for _, phase := range []struct {
		name    string
		prepare func(root string)
	}{
		{"written whole", func(string) {}},
		{"appended to", func(root string) {
			read(root, on)
			ckptDo(t, ckptCall{Root: root, Stdin: []byte("a7\n")}, "write", "--turn", "7", "a.txt")
		}},
		{"rewritten", func(root string) {
			read(root, on)
			// Stale entries past the live ones (and past 64 KiB): the
			// next write rewrites the file.
			data, err := os.ReadFile(summary(root))
			if err != nil {
				t.Fatal(err)
			}
			stale := data[len("ckptsum\x00\x01"):]
			for len(data) < 200<<10 {
				data = append(data, stale...)
			}
			os.WriteFile(summary(root), data, 0o600)
			ckptDo(t, ckptCall{Root: root, Stdin: []byte("a7\n")}, "write", "--turn", "7", "a.txt")
		}},
	} {
		kills := 0
		for k := 1; ; k++ {
			if k > maxFailpoint {
				t.Fatalf("%s: still killed at summary:%d", phase.name, k)
			}
			root := filepath.Join(base, fmt.Sprintf("%s-%d", phase.name, k))
			copyTree(t, tmpl, root)
			phase.prepare(root)
			want := read(root, off)
			r := ckptDo(t, ckptCall{Root: root, Env: append([]string{"CKPT_FAILPOINT=summary:" + strconv.Itoa(k)}, on...)}, "log", "--json")
			for i := range 2 { // after the kill, and from what the next read wrote
				if got := read(root, on); got != want {
					t.Fatalf("%s, killed at summary:%d: read %d differs from the records':\n%s\nwant\n%s", phase.name, k, i, got, want)
				}
			}
			if ok, _, _, out := verifyJSON(t, root); !ok {
				t.Errorf("%s, summary:%d: verify\n%s", phase.name, k, out)
			}
			if _, err := os.Stat(summary(root)); err != nil {
				t.Errorf("%s, summary:%d: no summary after two reads: %v", phase.name, k, err)
			}
			if !r.Killed {
				if r.Code != 0 {
					t.Fatalf("%s, summary:%d: want exit 0 or SIGKILL\n%s", phase.name, k, r)
				}
				break
			}
			kills++
		}
		if kills < 2 {
			t.Errorf("%s: killed at only %d file operations: the failpoint is not honoured", phase.name, kills)
		}
	}
}
