package store

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// The first sweep of a tree has no baseline: it reads and keeps every
// file, which in a tree of hundreds of thousands takes minutes. A hook
// cannot wait that long (its agent kills it past its timeout), so a
// caller bounds that reading with a CopyControl: past the deadline, or
// once Stop is closed, the sweep stops between files, keeps what it read
// (whole blobs, made durable), writes no baseline and fails with
// ErrCopyStopped. The next sweep starts again from the top: the files
// kept already are hashed, not compressed or written again.

// CopyControl bounds and reports the reading of a first sweep.
type CopyControl struct {
	// Deadline stops the reading past it (zero: never).
	Deadline time.Time
	// Stop, once closed, stops the reading (nil: never).
	Stop <-chan struct{}
	// Progress, when set, counts what was read and what is to be read.
	Progress *CopyProgress
}

// CopyProgress is how far a first sweep's reading has come. The sweep
// sets the totals once its listing is done, then counts each file read.
type CopyProgress struct {
	Files, Bytes           atomic.Int64
	TotalFiles, TotalBytes atomic.Int64
	// Listed is set once the listing is done and the totals are known.
	Listed atomic.Bool
}

// ErrCopyStopped means a first sweep stopped before it read every file
// (see CopyControl); nothing was recorded and no baseline written.
var ErrCopyStopped = errors.New("store: the first copy stopped")

// CopyStopped says how far a stopped first sweep came, and why it
// stopped.
type CopyStopped struct {
	Files, TotalFiles int64
	Bytes, TotalBytes int64
	Took              time.Duration
	Interrupted       bool // Stop was closed; else the deadline passed
}

func (e *CopyStopped) Error() string {
	why := fmt.Sprintf("did not fit in the time given (%s)", e.Took.Round(time.Second))
	if e.Interrupted {
		why = "was interrupted"
	}
	return fmt.Sprintf("the first copy of the folder (%d files, %s) %s after reading %d files (%s): nothing is recorded and no baseline written; what was read is kept, and the next sweep goes on from there",
		e.TotalFiles, humanBytes(e.TotalBytes), why, e.Files, humanBytes(e.Bytes))
}

func (e *CopyStopped) Unwrap() error { return ErrCopyStopped }

// SetCopyControl bounds the reading of this store's first sweeps from now
// on (nil: no bound).
func (s *Store) SetCopyControl(c *CopyControl) { s.copyCtl.Store(c) }

// HasBaseline reports whether a sweep left a baseline: the first copy
// of the tree is taken.
func (s *Store) HasBaseline() bool {
	b, _, err := s.loadBaselineHead()
	return err == nil && b != nil
}

// FirstCopy takes the first copy of the tree now, as a hook's first
// sweep would (no turn, nothing recorded), under the store's
// CopyControl. With a baseline there already it is a sweep that keeps
// what changed since.
func (s *Store) FirstCopy() (*SweepResult, error) {
	return s.sweep("", TurnMeta{}, "", false, nil)
}

// copyRun is one first sweep's reading under a CopyControl.
type copyRun struct {
	ctl     *CopyControl
	start   time.Time
	stopped atomic.Bool
	stopBy  atomic.Bool // Stop was closed
	files   atomic.Int64
	bytes   atomic.Int64
	total   int64
	totalB  int64
	rels    []string // the batch it bounds
}

// of is r when rels is the batch it bounds, else nil: a capture made
// meanwhile through the same store is never stopped by it.
func (r *copyRun) of(rels []string) *copyRun {
	if r == nil || len(rels) == 0 || len(r.rels) != len(rels) || &r.rels[0] != &rels[0] {
		return nil
	}
	return r
}

// beginCopy starts counting a first sweep's reading of rels (sizes from
// the listing), when a CopyControl is set.
func (s *Store) beginCopy(rels []string, sizes func(string) int64) *copyRun {
	c := s.copyCtl.Load()
	if c == nil {
		return nil
	}
	r := &copyRun{ctl: c, start: time.Now(), total: int64(len(rels)), rels: rels}
	for _, rel := range rels {
		r.totalB += sizes(rel)
	}
	if c.Progress != nil {
		c.Progress.TotalFiles.Store(r.total)
		c.Progress.TotalBytes.Store(r.totalB)
		c.Progress.Listed.Store(true)
	}
	return r
}

// goOn reports whether the reading may take another file.
func (r *copyRun) goOn() bool {
	if r == nil {
		return true
	}
	if r.stopped.Load() {
		return false
	}
	if r.ctl.Stop != nil {
		select {
		case <-r.ctl.Stop:
			r.stopBy.Store(true)
			r.stopped.Store(true)
			return false
		default:
		}
	}
	if !r.ctl.Deadline.IsZero() && time.Now().After(r.ctl.Deadline) {
		r.stopped.Store(true)
		return false
	}
	return true
}

// read counts one file read.
func (r *copyRun) read(size int64) {
	if r == nil {
		return
	}
	r.files.Add(1)
	r.bytes.Add(size)
	if p := r.ctl.Progress; p != nil {
		p.Files.Add(1)
		p.Bytes.Add(size)
	}
}

// err is the run's error once it stopped, nil when it read everything.
func (r *copyRun) err() error {
	if r == nil || !r.stopped.Load() {
		return nil
	}
	return &CopyStopped{Files: r.files.Load(), TotalFiles: r.total, Bytes: r.bytes.Load(), TotalBytes: r.totalB,
		Took: time.Since(r.start), Interrupted: r.stopBy.Load()}
}
