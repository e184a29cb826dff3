package store

import (
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// A full disk in the sweep before a command: a file's bytes cannot be
// kept, and the sweep says so (not "could not be read"). The command then
// rewrites the file: the turn holds it as not kept, so the rewind reports
// it as not restored rather than leaving it out and reporting success.
func TestSweepBeforeFullDisk(t *testing.T) {
	root := tempRoot(t)
	put(t, root, "a.txt", "old bytes\n", 0o644)
	put(t, root, "b.txt", "b\n", 0o644)
	s := openStore(t, root)
	turn, _ := s.NewTurn(TurnMeta{})
	storefs.WriteFault = func(name string) error {
		if strings.HasSuffix(name, ".zst") || strings.Contains(name, "pack") || strings.Contains(name, ".tmp-") {
			return syscall.ENOSPC
		}
		return nil
	}
	res, err := s.SweepBefore(turn, TurnMeta{}, "gen")
	storefs.WriteFault = nil
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Problems, func(p string) bool { return strings.HasPrefix(p, "a.txt: no space left") }) {
		t.Fatalf("sweep before: problems %q, want a.txt's saying no space", res.Problems)
	}
	put(t, root, "a.txt", "the agent's new bytes\n", 0o644)
	res, err = s.SweepAfter(turn, TurnMeta{}, "gen")
	if err != nil {
		t.Fatal(err)
	}
	files, err := s.Files(string(turn), true)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(files, func(f File) bool { return f.Path == "a.txt" })
	if i < 0 || files[i].Pre.Kind != ImageSkipped {
		t.Fatalf("turn holds %+v, want a.txt as not kept (problems %q)", files, res.Problems)
	}
	r := rewind(t, s, string(turn))
	if !slices.ContainsFunc(r.Failed, func(f Failure) bool { return f.Path == "a.txt" && strings.Contains(f.Reason, "not kept") }) {
		t.Fatalf("rewind: %+v, want a.txt failed as not kept", r)
	}
	if got := rd(t, root, "a.txt"); got != "the agent's new bytes\n" {
		t.Fatalf("a.txt holds %q after the rewind", got)
	}
}
