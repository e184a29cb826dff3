package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// TestLongCommandKeptOnce: a 256 KiB command that changed 200 files
// grows the store by about the command and the files, not by the command
// once per path's record (which made a 1 MB command over 500 files a
// 1 GB turn). Every path still shows the whole command, a reader that
// knows no cmd record sees its start, and the rewind gives the files back.
func TestLongCommandKeptOnce(t *testing.T) {
	const files = 200
	s, root, grew, payload := longCommandStore(t, files, 256<<10)
	cmd := longCommand(256 << 10)
	if grew > 2*payload {
		t.Errorf("the store grew by %d bytes for a command of %d and files of %d: over twice both", grew, len(cmd), payload-int64(len(cmd)))
	}
	turn := "1"
	got, err := openStore(t, root).Files(turn, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != files {
		t.Fatalf("turn %s holds %d files, want %d", turn, len(got), files)
	}
	for _, f := range got {
		if f.Shell != cmd {
			t.Fatalf("%s shows a command of %d bytes, want the whole %d", f.Path, len(f.Shell), len(cmd))
		}
	}
	// What a reader without cmd records sees: each path's own "cmd".
	data, _ := os.ReadFile(filepath.Join(root, storeDir, turnFileName(turn)))
	record.Each(data, func(r *record.Line) {
		if (r.R == "pre" || r.R == "post") && (!strings.HasPrefix(cmd, strings.TrimSuffix(r.Cmd, "…")) || len(r.Cmd) > cmdStartLen+4) {
			t.Fatalf("a %s record of %s holds %d bytes of command, want its start", r.R, r.Path, len(r.Cmd))
		}
	})
	res := rewind(t, s, turn)
	if len(res.Failed) > 0 || len(res.Restored) != files {
		t.Fatalf("rewind: %+v", res)
	}
	for i := range files {
		p := fmt.Sprintf("src/d%02d/f%03d.txt", i%20, i)
		if want := strings.Repeat(fmt.Sprintf("file %d before\n", i), 60); rd(t, root, p) != want {
			t.Fatalf("%s after the rewind: %q", p, rd(t, root, p))
		}
	}
}

// TestShortCommandInline: a command under the limit stays in each path's
// records as before, with no cmd record.
func TestShortCommandInline(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "a\n")
	s := openStore(t, root)
	turn, _ := s.NewTurn(TurnMeta{})
	s.SweepBefore(turn, TurnMeta{}, "sed -i s/a/b/ a.txt")
	wr(t, root, "a.txt", "b\n")
	if _, err := s.SweepAfter(turn, TurnMeta{}, "sed -i s/a/b/ a.txt"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(root, storeDir, turnFileName(string(turn))))
	record.Each(data, func(r *record.Line) {
		if r.R == "cmd" || (r.R == "pre" || r.R == "post") && (r.Cmd != "sed -i s/a/b/ a.txt" || r.CmdN != 0) {
			t.Fatalf("record %+v, want the command inline", r)
		}
	})
}
