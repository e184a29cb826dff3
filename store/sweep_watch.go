package store

import (
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// WatchAgent is the source agent of the turns ckpt watch records.
const WatchAgent = "watch"

// watchSweep marks a sweep made by ckpt watch from file-system events.
type watchSweep struct{}

// SweepWatch records what changed since the last sweep, as SweepAfter
// does, for ckpt watch: into turn, or, when turn is "" and something
// changed, into a new turn with the next short id (SweepResult.Turn says
// which). Where an agent also has hooks, the hooks' turns win: a path a
// hook's turn captured or sealed since the last sweep is left to it, and
// when the last sweep was a hook's shell sweep, what changed since goes
// to that hook's turn, as its next sweep would record it.
func (s *Store) SweepWatch(turn string, meta TurnMeta) (*SweepResult, error) {
	return s.sweep(turn, meta, "", true, &watchSweep{})
}

// watchClaims drops the paths a hook's turn claims, and sends the rest
// to the hook's turn when the last sweep was a hook's.
//
// What a rewind, undo or redo since the last sweep wrote is the
// operation's (it held the locks while it wrote), not a turn's: those
// paths go to the baseline.
func (s *Store) watchClaims(old *baseline, recs []shellRec, turn string, meta TurnMeta, operated bool) ([]shellRec, string, TurnMeta, bool, error) {
	s.mu.Lock()
	v, err := s.load()
	claimed := map[string]bool{}
	hookTurn := ""
	ended, _ := s.dir.ReadFile(endedFile)
	if err == nil {
		for _, t := range v.turns {
			if t.source != nil && t.source.Agent == WatchAgent || t.seed {
				continue
			}
			if t.id == old.turn && old.cmd != "" && strings.TrimSpace(string(ended)) != t.id {
				hookTurn = t.id
			}
			for _, f := range t.files {
				if f.preAt >= old.at || f.postAt >= old.at {
					claimed[f.path] = true
				}
			}
		}
	}
	if err == nil && operated {
		for _, o := range v.ops {
			if o.at < old.at {
				continue
			}
			steps, serr := s.steps(o.id)
			if serr != nil {
				err = serr
				break
			}
			for _, st := range steps {
				claimed[st.Path] = true
			}
		}
	}
	s.mu.Unlock()
	if err != nil {
		return nil, "", meta, false, err
	}
	kept := recs[:0]
	for _, r := range recs {
		if !claimed[r.path] {
			kept = append(kept, r)
		}
	}
	if hookTurn != "" {
		return kept, hookTurn, TurnMeta{}, true, nil
	}
	return kept, turn, meta, false, nil
}

// endedFile names the hook turn whose end-of-turn sweep ran last.
const endedFile = "turn-ended"

// MarkTurnEnded records that an agent's turn ended (its end-of-turn
// sweep ran): from then on ckpt watch records what changes as its own,
// not as that turn's background command.
func (s *Store) MarkTurnEnded(turn string) error {
	return storefs.WriteAtomic(s.dir, endedFile, []byte(turn+"\n"), 0o600, false)
}

// Relabel gives turn a new label (a later header record in its file,
// which readers before it pass over: they keep the first label).
func (s *Store) Relabel(turn, label string) error {
	if err := checkTurnID(turn); err != nil {
		return err
	}
	l, err := s.lock()
	if err != nil {
		return err
	}
	defer l.unlock()
	_, exists, err := s.readTurnFile(turn, true)
	if err != nil {
		return err
	}
	if !exists {
		return errf("relabel %s: %w", turn, ErrUnknownTurn)
	}
	id := turn
	now := s.clock().UnixNano()
	buf := appendRecord(nil, &record{R: "turn", ID: id, Label: label, At: now, N: s.nextSeq(now)})
	return s.appendTurn(id, buf, false)
}
