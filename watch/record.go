package watch

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// DefaultQuiet is how long the tree must stay quiet before the next
// change opens a new turn. An agent's pauses inside one prompt (the
// model thinking between tool calls) mostly last a few seconds; a person
// reads the reply and types the next prompt in more. A turn split in two
// costs little (rewinding the first undoes both), while two prompts
// merged into one cannot be rewound apart, so it leans short.
const DefaultQuiet = 5 * time.Second

// DefaultSettle is how long changes settle before they are recorded: a
// burst of writes is swept once, and a change is in the store well
// within a second.
const DefaultSettle = 200 * time.Millisecond

// maxSettle bounds the wait for a burst to settle.
const maxSettle = 800 * time.Millisecond

// DefaultFailFor is how long sweeps may keep failing before Run gives
// up. A sweep that fails (a full disk, too many open files, a store file
// in the way for a moment) records nothing and leaves the baseline as it
// was, so the next one records what it missed: a watcher that stopped at
// the first failure would record nothing more, which under ckpt ui
// --watch no one sees until the UI quits.
const DefaultFailFor = time.Minute

// Recorder records a tree's changes into turns: ckpt watch.
type Recorder struct {
	Store *store.Store
	// Tree signals changes; nil sweeps every Every instead (no events
	// here, or none to trust).
	Tree   *Tree
	Every  time.Duration
	Quiet  time.Duration // 0: DefaultQuiet
	Settle time.Duration // 0: DefaultSettle
	// FailFor is how long sweeps may keep failing before Run returns
	// the error (0: DefaultFailFor); one that can never succeed (a store
	// written by a newer ckpt) ends it at once.
	FailFor time.Duration
	// Say is told sentences worth a line on stderr (each once).
	Say func(string)

	cuts  chan cut
	cut   *cut         // a cut that came while a burst settled
	turn  store.TurnID // the open turn ("" none)
	base  string       // its label as opened
	named bool         // its label was given (ckpt turn) or is a commit's
	files int          // paths recorded in it
	last  time.Time    // its last change
	label string       // the label the next turn opens with
	head  string       // git HEAD as last seen

	failing time.Time   // when sweeps began failing (zero: the last one did not)
	said    string      // the failure last said
	retry   *time.Timer // a sweep after a failed one

	once    sync.Once
	stopped chan struct{} // closed when Run returns
}

// cut is a request to close the open turn.
type cut struct {
	label string
	done  chan error // told nil once cut, or why not
}

// Cut closes the open turn now, with what changed before the call in
// it; the next change opens a turn labelled label (or by its time when
// ""). It returns once that is done, and is safe to call from any
// goroutine; once the recorder has stopped it returns ErrStopped. When
// the sweep before the cut fails, the turn stays open and Cut returns
// the sweep's error: cut then, what changed before the call would be in
// the next turn.
func (r *Recorder) Cut(label string) error {
	r.init()
	c := cut{label: label, done: make(chan error, 1)}
	select {
	case r.cuts <- c:
	case <-r.stopped:
		return ErrStopped
	}
	select {
	case err := <-c.done:
		return err
	case <-r.stopped:
		select {
		case err := <-c.done: // answered just before it stopped
			return err
		default:
			return ErrStopped
		}
	}
}

// ErrStopped is Cut's answer once the recorder has stopped: no turn of
// its follows to take the label.
var ErrStopped = errors.New("ckpt watch stopped; it records no more turns")

// answer closes the open turn for c, or tells c why not (the sweep
// just before failed).
func (r *Recorder) answer(c cut) {
	if !r.failing.IsZero() {
		c.done <- fmt.Errorf("%s; the turn stays open", r.said)
		return
	}
	r.close()
	r.label = c.label
	c.done <- nil
}

func (r *Recorder) init() {
	r.once.Do(func() {
		r.cuts = make(chan cut, 16)
		r.stopped = make(chan struct{})
	})
}

// Run records until ctx ends; then it records what is pending and
// returns nil. It returns an error when the tree stops (the store or
// the project folder went away) or sweeps fail for good (see try). The first sweep, before anything is recorded, takes in
// what changed while nothing watched (into the baseline, in no turn).
func (r *Recorder) Run(ctx context.Context, ready func()) error {
	r.init()
	defer close(r.stopped)
	if r.Quiet <= 0 {
		r.Quiet = DefaultQuiet
	}
	if r.Settle <= 0 {
		r.Settle = DefaultSettle
	}
	if r.Every <= 0 {
		r.Every = 2 * time.Second
	}
	if r.FailFor <= 0 {
		r.FailFor = DefaultFailFor
	}
	if r.Say == nil {
		r.Say = func(string) {}
	}
	if _, err := r.Store.SweepBefore("", store.TurnMeta{}, ""); err != nil {
		return err
	}
	r.head = r.Store.GitHead()
	r.Store.NoteGitIdle() // where git stood before the first turn
	if ready != nil {
		ready()
	}
	var changed, headMoved, gone <-chan struct{}
	var notes <-chan string
	var tick <-chan time.Time
	if r.Tree != nil {
		changed, headMoved, notes = r.Tree.Changed(), r.Tree.HeadMoved(), r.Tree.Notes()
		gone = r.Tree.Done()
	} else {
		t := time.NewTicker(r.Every)
		defer t.Stop()
		tick = t.C
	}
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	r.retry = time.NewTimer(time.Hour)
	r.retry.Stop()
	// sweep records as try does; with a tree the quiet timer is all
	// that closes a turn, and only what was recorded keeps one open.
	sweep := func() error {
		before := r.last
		if err := r.try(); err != nil {
			return err
		}
		if r.turn != "" && r.last != before {
			quiet.Reset(r.Quiet)
		}
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			err := r.record()
			r.close()
			return err
		case <-gone:
			// No event comes any more (the store or the project folder
			// went away): what can still be recorded is, and Run ends.
			err := r.record()
			r.close()
			return errors.Join(fmt.Errorf("watch: stopped: %s", r.Tree.Why()), err)
		case <-changed:
			r.settle(ctx, changed)
			if err := sweep(); err != nil {
				return err
			}
			if c := r.cut; c != nil {
				r.cut = nil
				r.answer(*c)
			}
		case <-tick:
			if err := r.try(); err != nil {
				return err
			}
			if r.turn != "" && time.Since(r.last) >= r.Quiet {
				r.close()
			} else if r.turn == "" {
				r.Store.NoteGitIdle()
			}
		case <-headMoved:
			if err := sweep(); err != nil {
				return err
			}
			idle := r.turn == ""
			r.checkHead()
			if idle {
				// git moved with no turn open (by hand, between turns):
				// the next turn begins from here.
				r.Store.NoteGitIdle()
			}
		case c := <-r.cuts:
			if err := r.try(); err != nil {
				return err
			}
			r.answer(c)
		case <-quiet.C:
			r.close()
		case <-r.retry.C:
			// What a sweep after a failed one records opens or keeps a
			// turn like any change: the quiet after it closes the turn.
			if err := sweep(); err != nil {
				return err
			}
		case n := <-notes:
			r.Say(n)
		}
	}
}

// settle waits until no change came for Settle (at most maxSettle).
func (r *Recorder) settle(ctx context.Context, changed <-chan struct{}) {
	limit := time.After(maxSettle)
	for {
		select {
		case <-changed:
		case c := <-r.cuts:
			r.cut = &c // recorded up to now, then cut
			return
		case <-time.After(r.Settle):
			return
		case <-limit:
			return
		case <-ctx.Done():
			return
		}
	}
}

// try records, as record does; a sweep that fails is said (once until
// one succeeds) and tried again after Every, and only one that fails
// for good, or sweeps failing for FailFor, is returned.
func (r *Recorder) try() error {
	err := r.record()
	if err == nil {
		if !r.failing.IsZero() {
			r.Say("watch: recording again")
		}
		r.failing, r.said = time.Time{}, ""
		return nil
	}
	if errors.Is(err, store.ErrNewerFormat) || errors.Is(err, store.ErrLinkInStore) {
		return err
	}
	if r.failing.IsZero() {
		r.failing = time.Now()
	} else if time.Since(r.failing) >= r.FailFor {
		return fmt.Errorf("%w (sweeps failed for %s)", err, time.Since(r.failing).Round(time.Second))
	}
	if msg := err.Error(); msg != r.said {
		r.said = msg
		r.Say(msg + "; trying again")
	}
	r.retry.Reset(r.Every)
	return nil
}

// record sweeps what changed into the open turn, opening one if needed.
func (r *Recorder) record() error {
	// The label is used only if the sweep opens a turn (none is open, or
	// an operation ended the open one).
	meta := store.TurnMeta{Source: &store.Source{Agent: store.WatchAgent}, Label: r.label}
	if meta.Label == "" {
		meta.Label = "watched " + time.Now().Format("15:04:05")
	}
	res, err := r.Store.SweepWatch(r.turn, meta)
	if err != nil {
		return fmt.Errorf("watch: record: %w", err)
	}
	for _, p := range res.Problems {
		r.Say(p)
	}
	if res.Operated {
		r.close() // a rewind, undo or redo ends the turn it found open
	}
	if res.Turn == "" || len(res.Changed) == 0 || res.ToHook {
		return nil // nothing, or a hook's turn's: no turn of the watcher's
	}
	if r.turn == "" || res.Turn != r.turn {
		r.turn, r.base, r.named, r.files = res.Turn, meta.Label, r.label != "", 0
		r.label = ""
	}
	r.files += len(res.Changed)
	r.last = time.Now()
	return nil
}

// close ends the open turn, its label saying how many files it changed
// when no one named it, with where git stands now as its end.
func (r *Recorder) close() {
	if r.turn == "" {
		return
	}
	if !r.named && r.base != "" {
		word := "files"
		if r.files == 1 {
			word = "file"
		}
		_ = r.Store.Relabel(r.turn, fmt.Sprintf("%s, %d %s", r.base, r.files, word))
	}
	// What git does from now on is not this turn's; the next begins here.
	if err := r.Store.CloseTurn(r.turn); err != nil {
		r.Say(fmt.Sprintf("turn %s: %v", r.turn, err))
	}
	r.turn = ""
	r.Store.NoteGitIdle()
}

// checkHead closes the open turn when HEAD moved to a new commit,
// labelled with the commit's subject (Aider commits each change).
func (r *Recorder) checkHead() {
	h := r.Store.GitHead()
	if h == "" || h == r.head {
		return
	}
	r.head = h
	if r.turn == "" {
		return
	}
	subject := commitSubject(r.Store.Root(), h)
	if err := r.Store.Relabel(r.turn, subject); err == nil {
		r.named = true
	}
	r.close()
}

// commitSubject is the first line of commit h's message.
func commitSubject(root, h string) string {
	out, err := exec.Command("git", "-C", root, "log", "-1", "--format=%s", h).Output()
	if s := strings.TrimSpace(string(out)); err == nil && s != "" {
		return s
	}
	if len(h) > 12 {
		h = h[:12]
	}
	return "commit " + h
}
