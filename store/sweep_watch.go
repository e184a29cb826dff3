package store

import "github.com/ckpt-dev/ckpt/store/internal/record"

// WatchAgent is the source agent of the turns ckpt watch records.
const WatchAgent = "watch"

// watchSweep marks a sweep made by ckpt watch from file-system events.
type watchSweep struct{}

// SweepWatch records what changed since the last sweep, as SweepAfter
// does, for ckpt watch: into turn, or, when turn is "" and something
// changed, into a new turn with the next short id (SweepResult.Turn says
// which). Where an agent also has hooks, the hooks' turns win (see
// recordWatched).
func (s *Store) SweepWatch(turn TurnID, meta TurnMeta) (*SweepResult, error) {
	return s.sweep(string(turn), meta, "", true, &watchSweep{})
}

// recordWatched records what ckpt watch's sweep found. Where an agent
// also has hooks, the hooks' turns win: a path a hook's turn captured or
// sealed since the last sweep is left to it, and while hooks' shell
// commands run, what changed is theirs (recorded in their turns, as
// their closing sweeps would). What a rewind, undo or redo since the
// last sweep wrote is the operation's (it held the locks while it
// wrote): those paths go to the baseline (claimed names them, and
// those hooks' turns captured or sealed). Of a path a hook's turn
// found other than the last sweep saw (found: deleted or changed by
// hand before the turn's capture), that change, the last sweep's image
// to the turn's pre-image, is the watcher's: no turn holds the first
// otherwise. The rest opens (or goes on in) the watcher's own turn.
// Caller holds the lock.
func (s *Store) recordWatched(res *SweepResult, old *baseline, recs []shellRec, claimed map[string]bool, found map[string]Image, turn string, meta TurnMeta, others []openCmd) error {
	if len(recs) == 0 || old == nil {
		return nil
	}
	kept := recs[:0]
	for _, r := range recs {
		if pre, ok := found[r.path]; ok && seenBoth(pre, r.pre) && !sameImage(pre, r.pre) {
			r.post, r.noPost, r.with = pre, false, nil
			kept = append(kept, r)
		} else if !claimed[r.path] {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	if len(others) > 0 {
		res.ToHook = true
		return s.recordSweep(res, kept, false, owner{}, others)
	}
	if turn != "" && !res.Operated { // an operation ends the open turn
		return s.recordSweep(res, kept, true, owner{turn, meta, ""}, nil)
	}
	// A new turn is written with its files in one append: no reader
	// lists it before they are in it, and a failed append leaves none.
	id, n, err := s.freeTurn()
	if err != nil {
		return err
	}
	if err := s.recordSweep(res, kept, true, owner{id, meta, ""}, nil); err != nil {
		return err
	}
	s.writeSeq(n)
	return nil
}

// claimedSince lists the paths hooks' turns captured or sealed since at,
// those a turn made and removed too when it captured them before at (its
// tool wrote a file the watcher's last sweep saw, and removed it: the
// watcher must not take the tool's bytes for a pre-image of its own),
// and (with operated) those operations since at wrote. One a turn
// captured since at and made and removed is not claimed: the turn found
// it absent, so what the last sweep saw there (a file since deleted by
// hand) is no turn's but the watcher's. found holds, of the claimed
// paths no operation wrote and no turn captured before at, what the
// first capture since at found there. The caller holds
// the store's lock, l: no hook's turn claims a path while the sweep
// that asks records what it found.
func (s *Store) claimedSince(at int64, operated bool, l *lockFile) (claimed map[string]bool, found map[string]Image, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cache.locked = l.w
	defer func() { s.cache.locked = nil }()
	v, err := s.load()
	if err != nil {
		return nil, nil, err
	}
	claimed = map[string]bool{}
	first := map[string]*tfile{}
	for _, t := range v.turns {
		// A seed turn's own entries carry no time (never since at); what
		// a hook's capture naming its id added does.
		if t.source != nil && t.source.Agent == WatchAgent {
			continue
		}
		for _, f := range t.recordedList() {
			if f.passedThrough() && f.preAt >= at {
				continue
			}
			if f.preAt >= at || f.postAt >= at {
				claimed[f.path] = true
				first[f.path] = earlierCapture(first[f.path], f, at)
			}
		}
	}
	if operated {
		for _, o := range v.ops {
			if o.at < at {
				continue
			}
			steps, err := s.steps(o.id)
			if err != nil {
				return nil, nil, err
			}
			for _, st := range steps {
				claimed[st.Path] = true
				first[st.Path] = nil
			}
		}
	}
	found = map[string]Image{}
	for path, f := range first {
		if f != nil && f.preAt >= at && f.refused == "" {
			found[path] = f.pre
		}
	}
	return claimed, found, nil
}

// seenBoth says neither a nor b is an image of a path that could not be
// read (a skipped one without a hash, or one not looked at): only then
// does their difference say the path changed.
func seenBoth(a, b Image) bool {
	seen := func(img Image) bool {
		return img.Kind != ImageOther && (img.Kind != ImageSkipped || !img.SHA256.IsZero())
	}
	return seen(a) && seen(b)
}

// earlierCapture is whichever of a and b, two turns' records of a path,
// was captured first; one captured before at (its write was under way
// at the last sweep) wins, so that what the last sweep saw is not
// taken for a change before the turn.
func earlierCapture(a, b *tfile, at int64) *tfile {
	switch {
	case a == nil:
		return b
	case a.preAt < at:
		return a
	case b.preAt < at || b.preAt < a.preAt || b.preAt == a.preAt && b.preSeq < a.preSeq:
		return b
	}
	return a
}

// Relabel gives turn a new label (a later header record in its file,
// which readers before it pass over: they keep the first label).
func (s *Store) Relabel(turn TurnID, label string) error {
	if err := turn.check(); err != nil {
		return err
	}
	l, err := s.lock()
	if err != nil {
		return err
	}
	defer l.unlock()
	id := string(turn)
	_, exists, err := s.readTurnFile(id, true)
	if err != nil {
		return err
	}
	if !exists {
		return errf("relabel %s: %w", turn, ErrUnknownTurn)
	}
	now := s.clock().UnixNano()
	buf := record.Append(nil, &record.Line{R: "turn", Turn: record.Turn{ID: id, Label: label}, At: now, N: s.nextSeq(now, turnFileName(id))})
	return s.appendTurn(id, buf, false)
}
