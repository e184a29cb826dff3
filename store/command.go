package store

// The shell steps: a sweep before and after each command an agent runs,
// recorded in its turn (sweep.go does the sweeping).

// SweepResult says what one sweep found and did.
type SweepResult struct {
	// Turn is the turn the changes went to: the one asked for, or a
	// continuation (T.2) when it was rewound. Empty when none was recorded.
	Turn TurnID
	// Changed lists the paths recorded in the turn, sorted.
	Changed []string
	// Seen counts the files, links and folders the sweep stat'ed; Read the
	// files it read (changed, new, racy, or all of them on a first sweep).
	Seen, Read int
	// Fresh is set when there was no usable baseline: every file was read
	// and kept, and nothing could be attributed to a command.
	Fresh bool
	// Skipped is set when a sweep before a command was not needed: the
	// turn swept already, so the sweep after the command covers what
	// changed since as well.
	Skipped bool
	// Others lists the turns of other sessions' commands running
	// meanwhile that got the changes too (after a command: as well as
	// Turn, each record naming the others as sharing it; before one:
	// instead of a hand edit).
	Others []string
	// Problems names paths the sweep could not look at, with the reason.
	Problems []string
	// Feed says whether a watcher told the sweep what changed.
	Feed FeedState
	// Operated is set when a rewind, undo or redo ran since the last
	// sweep (what it wrote is its own, in no turn).
	Operated bool
	// ToHook is set when ckpt watch's sweep went to a hook's turn, whose
	// command was still writing (see SweepWatch).
	ToHook bool
}

// SweepBefore sweeps the tree before a shell command of turn runs: every
// file that differs from the baseline, or that it lacks, has its current
// bytes kept, and the baseline moves on. What changed is a hand edit and
// goes to no turn. When the last sweep was for the same turn it does
// nothing (SweepResult.Skipped): what changed since is the agent's (a
// background command, a command running in parallel, its file tools), and
// the sweep after this command records it in the turn against the same
// baseline. cmd is the command about to run. A continuation (T.2) the
// changes went to is recorded as the open turn of meta.Session when one is
// named.
func (s *Store) SweepBefore(turn TurnID, meta TurnMeta, cmd string) (*SweepResult, error) {
	return s.sweepFollowed(string(turn), meta, cmd, false)
}

// sweepFollowed is sweep, recording a continuation it moved on to as the
// open turn of meta.Session.
func (s *Store) sweepFollowed(turn string, meta TurnMeta, cmd string, after bool) (*SweepResult, error) {
	res, err := s.sweep(turn, meta, cmd, after, nil)
	if err != nil {
		return res, err
	}
	return res, s.followed(meta, TurnID(turn), res.Turn)
}

// SweepAfter sweeps the tree after a shell command of turn: every path
// that changed, appeared or vanished since the baseline is recorded in turn
// with the baseline as its pre-image (the first capture of a path in a turn
// wins) and the disk as its post image, and the baseline moves on. Without
// a usable baseline nothing can be attributed: it keeps every file, starts
// a baseline, and says so in SweepResult.Fresh.
func (s *Store) SweepAfter(turn TurnID, meta TurnMeta, cmd string) (*SweepResult, error) {
	if turn == "" {
		return nil, errf("sweep: empty turn id")
	}
	return s.sweepFollowed(string(turn), meta, cmd, true)
}

// SweptTurn is the turn of the last sweep made for a turn, and its
// command: an agent's end-of-turn event sweeps again only when the turn
// ran a shell command, which may still be writing.
func (s *Store) SweptTurn() (turn TurnID, cmd string) {
	b, _, err := s.loadBaselineHead()
	if err != nil || b == nil {
		return "", ""
	}
	return TurnID(b.turn), b.cmd
}

// BeginCommand is an agent session's shell step before cmd runs, in one
// call: it finds the open turn of meta.Session, opening one labelled label
// when the session has none (as OpenTurn does), and sweeps for it as
// SweepBefore does. sweep.lock is held from the look-up to the end of the
// sweep, so no other sweep comes between a turn's opening and its first
// sweep. meta.Session must be named.
func (s *Store) BeginCommand(meta TurnMeta, label, cmd string) (*SweepResult, error) {
	return s.command(meta, label, cmd, false)
}

// EndCommand is the shell step after cmd ran, in one call: the session's
// open turn (opened as BeginCommand does, when the step before never
// came) is swept as SweepAfter does, under the same one sweep.lock.
func (s *Store) EndCommand(meta TurnMeta, label, cmd string) (*SweepResult, error) {
	return s.command(meta, label, cmd, true)
}

func (s *Store) command(meta TurnMeta, label, cmd string, after bool) (*SweepResult, error) {
	if meta.Session == "" {
		return nil, errf("shell step of %q: no session named", cmd)
	}
	sl, err := s.sweepLock()
	if err != nil {
		return nil, err
	}
	defer sl.unlock()
	// OpenTurn takes hook.lock and the store's lock inside sweep.lock:
	// nothing takes sweep.lock while holding either.
	turn, err := s.OpenTurn(meta.Session, TurnMeta{Label: label, Source: meta.Source})
	if err != nil {
		return nil, err
	}
	res, err := s.sweepLocked(string(turn), meta, cmd, after, nil)
	if err != nil {
		return res, err
	}
	return res, s.followed(meta, turn, res.Turn)
}
