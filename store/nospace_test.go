package store

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// A full disk in the sweep after a command: the file's new bytes cannot
// be kept, but the path is the command's all the same. It is in the turn
// with its pre-image, its post image unknown (never sealed), the rewind
// puts its old bytes back, and the problem says "no space".
func TestSweepAfterFullDisk(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "a.txt", "old bytes\n", 0o644)
	put(t, root, "b.txt", "b\n", 0o644)
	s := openStore(t, root)
	turn, _ := s.NewTurn(TurnMeta{})
	if _, err := s.SweepBefore(turn, TurnMeta{}, "gen"); err != nil {
		t.Fatal(err)
	}
	put(t, root, "a.txt", "the agent's new bytes\n", 0o644)
	storefs.WriteFault = func(name string) error {
		if strings.HasSuffix(name, ".zst") || strings.Contains(name, "pack") {
			return syscall.ENOSPC
		}
		return nil
	}
	res, err := s.SweepAfter(turn, TurnMeta{}, "gen")
	storefs.WriteFault = nil
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Changed, "a.txt") {
		t.Fatalf("sweep: changed %v, want a.txt (%+v)", res.Changed, res)
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0], "no space") {
		t.Fatalf("problems %q, want one saying no space", res.Problems)
	}
	files, err := s.Files(string(turn), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "a.txt" || files[0].Pre.Kind != ImageContent || files[0].Post != nil {
		t.Fatalf("turn holds %+v, want a.txt with its pre-image and no post", files)
	}
	rewind(t, s, string(turn))
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "old bytes\n" {
		t.Fatalf("after the rewind a.txt holds %q", b)
	}
}
