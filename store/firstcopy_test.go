package store

import (
	"errors"
	"testing"
	"time"
)

// TestFirstCopyStops: a first sweep under a CopyControl whose Stop is
// closed, or whose deadline has passed, keeps nothing half-written: it
// fails with ErrCopyStopped, leaves no baseline and records nothing; the
// next first sweep takes the whole copy, and counts it in Progress.
func TestFirstCopyStops(t *testing.T) {
	root := t.TempDir()
	bigTree(t, root, 600)
	s, err := Open(root, Options{Create: true, Feed: noFeedTest{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stop := make(chan struct{})
	close(stop)
	for _, ctl := range []*CopyControl{{Stop: stop}, {Deadline: time.Now().Add(-time.Second)}} {
		s.SetCopyControl(ctl)
		_, err := s.FirstCopy()
		var cs *CopyStopped
		if !errors.Is(err, ErrCopyStopped) || !errors.As(err, &cs) || cs.TotalFiles != 600 || cs.Interrupted != (ctl.Stop != nil) {
			t.Fatalf("stopped first copy: %v", err)
		}
		if s.HasBaseline() {
			t.Fatalf("a stopped first copy left a baseline")
		}
		res, err := s.SweepAfter("1", TurnMeta{}, "make")
		if !errors.Is(err, ErrCopyStopped) || res != nil {
			t.Fatalf("a first sweep after a command, stopped: %+v %v", res, err)
		}
		if v, err := s.load(); err != nil || len(v.turns) != 0 {
			t.Fatalf("a stopped first copy recorded turns: %v", err)
		}
	}
	// Stopped part way: what it read stays, and the next one finishes.
	stop2 := make(chan struct{})
	p := &CopyProgress{}
	go func() {
		for p.Files.Load() < 100 {
			time.Sleep(time.Millisecond)
		}
		close(stop2)
	}()
	s.SetCopyControl(&CopyControl{Stop: stop2, Progress: p})
	if _, err := s.FirstCopy(); err == nil {
		t.Skip("the machine read 600 files before the test could stop it")
	} else if !errors.Is(err, ErrCopyStopped) {
		t.Fatal(err)
	}
	p = &CopyProgress{}
	s.SetCopyControl(&CopyControl{Progress: p})
	res, err := s.FirstCopy()
	if err != nil || !res.Fresh {
		t.Fatalf("first copy: %+v %v", res, err)
	}
	if !p.Listed.Load() || p.TotalFiles.Load() != 600 || p.Files.Load() != 600 || p.Bytes.Load() != p.TotalBytes.Load() {
		t.Fatalf("progress: %d/%d files, %d/%d bytes", p.Files.Load(), p.TotalFiles.Load(), p.Bytes.Load(), p.TotalBytes.Load())
	}
	sameAsFull(t, s, "after the first copy")
}
