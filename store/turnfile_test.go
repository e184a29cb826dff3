package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// NewTurn steps over turn files it cannot read, but a store where every
// one fails makes it fail, naming the file, rather than spin under the
// lock until the hook's timeout.
func TestNewTurnGivesUpOnUnreadableTurnFiles(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	turns := filepath.Join(root, storeDir, "turns")
	for i := 1; i <= newTurnTries+8; i++ {
		if err := os.MkdirAll(filepath.Join(turns, fmt.Sprintf("%d.log", i)), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// seq says no turn was handed out, so NewTurn tries 1, 2, … in turn.
	seq := filepath.Join(root, storeDir, "seq")
	if err := os.WriteFile(seq, []byte("0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	id, err := s.NewTurn(TurnMeta{Label: "x"})
	if err == nil || !strings.Contains(err.Error(), "could not be read") || !strings.Contains(err.Error(), ".log") {
		t.Fatalf("NewTurn: %q, %v; want an error naming an unreadable turn file", id, err)
	}
	// A few unreadable ones are stepped over.
	for i := 5; i <= newTurnTries+8; i++ {
		os.Remove(filepath.Join(turns, fmt.Sprintf("%d.log", i)))
	}
	os.WriteFile(seq, []byte("0\n"), 0o600)
	if id, err := s.NewTurn(TurnMeta{Label: "y"}); err != nil || id != "5" {
		t.Fatalf("NewTurn past 4 unreadable files: %q, %v; want 5", id, err)
	}
}

// The clock stepping back between turns (a VM resumed, WSL) must not make
// a rewind undo an earlier turn too: turns are ordered by the order their
// records were committed, and At is for display.
func TestClockStepsBackBetweenTurns(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	wr(t, root, "b.txt", "B0")
	s := openStore(t, root)
	base := time.Now()
	SetClock(s, func() time.Time { return base })
	if _, err := s.Write("first", TurnMeta{}, filepath.Join(root, "a.txt"), []byte("A1")); err != nil {
		t.Fatal(err)
	}
	// An hour back, then the second turn.
	SetClock(s, func() time.Time { return base.Add(-time.Hour) })
	if _, err := s.Write("second", TurnMeta{}, filepath.Join(root, "b.txt"), []byte("B1")); err != nil {
		t.Fatal(err)
	}
	log, err := s.Log(false)
	if err != nil || len(log) != 2 || log[0].ID != "second" || log[1].ID != "first" {
		t.Fatalf("log %+v, %v: want second, then first (newest first)", log, err)
	}
	if !log[0].At.Before(log[1].At) {
		t.Fatalf("At is not the wall clock: %v, %v", log[0].At, log[1].At)
	}
	p, err := s.PlanRewind("second")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Turns) != 1 || p.Turns[0] != "second" {
		t.Fatalf("rewinding second rewinds %v", p.Turns)
	}
	if _, err := s.Apply(p, nil); err != nil {
		t.Fatal(err)
	}
	if rd(t, root, "a.txt") != "A1" || rd(t, root, "b.txt") != "B0" {
		t.Fatalf("a=%q b=%q, want A1 B0", rd(t, root, "a.txt"), rd(t, root, "b.txt"))
	}
	// Undo, then a newer turn writes b.txt with the clock further back: a
	// plain undo of the rewind must see it as newer and refuse.
	SetClock(s, func() time.Time { return base.Add(-2 * time.Hour) })
	if p, err = s.PlanRewind("first"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(p, nil); err != nil {
		t.Fatal(err)
	}
	SetClock(s, func() time.Time { return base.Add(-3 * time.Hour) })
	if _, err := s.Write("third", TurnMeta{}, filepath.Join(root, "a.txt"), []byte("A3")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PlanUndo(false); !errors.Is(err, ErrNewerTurn) {
		t.Fatalf("undo past a newer turn: %v, want ErrNewerTurn", err)
	}
	// What the newest turn left is what is expected: no hand edit.
	files, err := s.Files("third", true)
	if err != nil || len(files) != 1 || files[0].HandEdited {
		t.Fatalf("third: %+v, %v", files, err)
	}
}
