package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A path behind a link leading out of the root fails with a reason that
// reads as a sentence, not a syscall's words.
func TestReasonReads(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "sub/f.txt", "F0")
	s := openStore(t, root)
	if _, err := s.Write("1", TurnMeta{}, filepath.Join(root, "sub/f.txt"), []byte("F1")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	p, err := s.PlanRewind("1")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 1 || p.Steps[0].Do != ActFail {
		t.Fatalf("steps %+v", p.Steps)
	}
	why := p.Steps[0].Reason
	if want := "not restored: a symbolic link stands where its folder sub was"; why != want {
		t.Fatalf("reason %q, want %q", why, want)
	}
	for _, bad := range []string{"statat", "sub/f.txt", "escapes from parent"} {
		if strings.Contains(why, bad) {
			t.Errorf("reason %q holds %q", why, bad)
		}
	}
}

// A turn id too long to name a file is refused with a sentence that says
// so, not the file system's "file name too long".
func TestLongTurnID(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	s := openStore(t, root)
	long := strings.Repeat("t", 200)
	_, err := s.Capture(TurnID(long), TurnMeta{}, []string{filepath.Join(root, "a.txt")})
	if !errors.Is(err, ErrBadTurnID) || !strings.Contains(err.Error(), "200 bytes long; at most 100") || strings.Contains(err.Error(), "too long") {
		t.Fatalf("capture: %v", err)
	}
	if err := s.Seal(TurnID(long), []string{filepath.Join(root, "a.txt")}); !errors.Is(err, ErrBadTurnID) {
		t.Fatalf("seal: %v", err)
	}
	// The longest id there is works, and so does its continuation.
	id := strings.Repeat("\xff", maxTurnID)
	if _, err := s.Write(TurnID(id), TurnMeta{}, filepath.Join(root, "a.txt"), []byte("A1")); err != nil {
		t.Fatal(err)
	}
	rewind(t, s, id)
	got, err := s.Capture(TurnID(id), TurnMeta{}, []string{filepath.Join(root, "a.txt")})
	if err != nil || got != TurnID(id+".2") {
		t.Fatalf("continuation: %q %v", got, err)
	}
}

// NUL, escape sequences and bytes that are not UTF-8 go into errors.log
// escaped: one line per error, nothing that paints a terminal.
func TestErrorLogEscapes(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	s.LogError("bad %s", "a\x00b\x1b[2Jc\rd\xffe\u009bf\nnext")
	lines, err := s.Errors()
	if err != nil || len(lines) != 1 {
		t.Fatalf("lines %q, %v", lines, err)
	}
	want := `bad a\x00b\x1b[2Jc\x0dd\xffe\u009bf next`
	if !strings.HasSuffix(lines[0], want) {
		t.Fatalf("logged %q, want it to end %q", lines[0], want)
	}
}

// The note of a finished interrupted operation counts its failed paths in
// words that agree with the count.
func TestFinishedNoteCounts(t *testing.T) {
	one := finishedNote(KindRewind, "op-1", []Failure{{Path: "a.txt", Reason: "left as it is"}})
	if !strings.Contains(one, "(1 path could not be restored: a.txt: left as it is)") {
		t.Errorf("one failed path: %s", one)
	}
	two := finishedNote(KindUndo, "op-2", []Failure{{Path: "a", Reason: "r"}, {Path: "b", Reason: "r"}})
	if !strings.Contains(two, "(2 paths could not be restored: a: r; b: r)") {
		t.Errorf("two failed paths: %s", two)
	}
	if none := finishedNote(KindRedo, "op-3", nil); strings.Contains(none, "could not") {
		t.Errorf("no failed path: %s", none)
	}
}

// Operations have their own namespace: a turn cannot be named like one, so
// "op-1" always means the operation.
func TestTurnIDLikeAnOperation(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	s := openStore(t, root)
	_, err := s.Capture("op-1", TurnMeta{}, []string{filepath.Join(root, "a.txt")})
	if !errors.Is(err, ErrBadTurnID) || !strings.Contains(err.Error(), "operation") {
		t.Fatalf("capture op-1: %v", err)
	}
	for _, id := range []string{"op", "op-", "op-01", "op-1.2", "op-x", "1"} {
		if _, err := s.Capture(TurnID(id), TurnMeta{}, []string{filepath.Join(root, "a.txt")}); err != nil {
			t.Errorf("capture %q: %v", id, err)
		}
	}
}

// A capture that cannot take some paths names each of them once, with
// the reason.
func TestCaptureErrorsNamePathOnce(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "proj")
	wr(t, root, "d/f", "x")
	s := openStore(t, root)
	out, in, dir := filepath.Join(parent, "x"), filepath.Join(root, ".osfoundry", "checkpoints", "x"), filepath.Join(root, "d")
	_, err := s.Capture("1", TurnMeta{}, []string{out, in, dir})
	if err == nil {
		t.Fatal("capture of a path outside the root, one in the store and a folder: no error")
	}
	msg := err.Error()
	for _, p := range []string{out, in, "d:"} {
		if n := strings.Count(msg, p); n != 1 {
			t.Errorf("%q named %d times in %q", p, n, msg)
		}
	}
	if !strings.Contains(msg, "inside the checkpoint store") || !strings.Contains(msg, "folder") || !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("reasons missing: %q", msg)
	}
}
