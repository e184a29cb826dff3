package store

import (
	"encoding/json"
	"errors"
	"io/fs"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// openFile lists the shell commands running now: each sweep before a
// command adds one, the sweep after it takes it out. With it a sweep
// tells a hand edit from the writes of another session's command still
// running (two agents in one folder), and a change no single command
// owns from one that is a command's alone.
const openFile = "open.json"

// openMax is how long a command counts as open without its closing
// sweep: an agent killed mid-command never sends one.
const openMax = 2 * time.Hour

// openCmd is one running command: its turn, as the sweep before it was
// asked (a continuation is found again by recordShell), and its words.
type openCmd struct {
	Turn   string  `json:"turn"`
	Cmd    string  `json:"cmd"`
	Label  string  `json:"label,omitempty"`
	Source *Source `json:"source,omitempty"`
	At     int64   `json:"at"`
}

// loadOpen reads the running commands, dropping those older than openMax.
// A damaged or missing file is an empty list: it only refines who gets a
// change. Caller holds sweep.lock.
// dropped says some entry was dropped, so the file wants rewriting.
func (s *Store) loadOpen(now int64) (list []openCmd, dropped bool) {
	b, err := s.dir.ReadFile(openFile)
	if err != nil {
		return nil, false
	}
	if json.Unmarshal(b, &list) != nil {
		return nil, true
	}
	n := len(list)
	list = slices.DeleteFunc(list, func(c openCmd) bool { return c.Turn == "" || now-c.At > int64(openMax) })
	return list, len(list) != n
}

// saveOpen replaces the list of running commands. Caller holds sweep.lock.
func (s *Store) saveOpen(list []openCmd) error {
	if len(list) == 0 {
		if err := s.dir.Remove(openFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errf("remove %s: %w", s.path(openFile), err)
		}
		return nil
	}
	b, err := json.Marshal(list)
	if err != nil {
		return err
	}
	if err := storefs.WriteAtomic(s.dir, openFile, b, 0o600, false); err != nil {
		return errf("write %s: %w", s.path(openFile), err)
	}
	return nil
}

// EndTurn says turn is over: none of its commands counts as running any
// more (one whose closing sweep never came, a call the user refused), so
// what changes from now on is no longer given to it, and where git stands
// now is recorded as the turn's end (CloseTurn). When nothing of another
// turn runs, the notes of its file tools' writes go (see edits.go): no
// sweep is to settle them. An agent's end-of-turn event calls it, after
// its last sweep.
func (s *Store) EndTurn(turn TurnID) error {
	if err := s.ensureDirs(); err != nil {
		return err
	}
	sl, err := s.flock("sweep.lock", unix.LOCK_EX)
	if err != nil {
		return err
	}
	defer sl.unlock()
	list, dropped := s.loadOpen(time.Now().UnixNano())
	n := len(list)
	list = slices.DeleteFunc(list, func(c openCmd) bool { return c.Turn == string(turn) })
	if dropped || len(list) != n {
		if err := s.saveOpen(list); err != nil {
			return err
		}
	}
	if now := time.Now().UnixNano(); !s.othersRunning(string(turn), now) {
		s.forgetEdits(string(turn), now)
	}
	return s.CloseTurn(turn)
}

// movedOn drops from list the commands of other turns of src's
// session: the session has moved on to a new turn, so they are over.
func movedOn(list []openCmd, turn string, src *Source) []openCmd {
	if src == nil || src.Session == "" {
		return list
	}
	return slices.DeleteFunc(list, func(c openCmd) bool {
		return c.Turn != turn && c.Source != nil && c.Source.Agent == src.Agent && c.Source.Session == src.Session
	})
}

// othersOpen is the running commands of turns other than turn, one per
// turn (the oldest), in the order they began.
func othersOpen(list []openCmd, turn string) []openCmd {
	var out []openCmd
	seen := map[string]bool{turn: true}
	for _, c := range list {
		if !seen[c.Turn] {
			seen[c.Turn] = true
			out = append(out, c)
		}
	}
	return out
}

// ownOpen is the index in list of turn's command cmd (or, if none has
// those words, of the turn's oldest), or -1: the command a sweep after
// it closes.
func ownOpen(list []openCmd, turn, cmd string) int {
	at := -1
	for i, c := range list {
		if c.Turn == turn && (at < 0 || c.Cmd == cmd && list[at].Cmd != cmd) {
			at = i
		}
	}
	return at
}

// closeOpen takes turn's command cmd out of list (see ownOpen): the
// sweep after it ran.
func closeOpen(list []openCmd, turn, cmd string) []openCmd {
	at := ownOpen(list, turn, cmd)
	if at < 0 {
		return list
	}
	return slices.Delete(list, at, at+1)
}

// selfOpen is the command a sweep after cmd closes, as open lists it;
// one it lacks (a second edit event of an agent that sweeps after each
// edit, an entry dropped) counts as running since since: the last sweep,
// when it was the turn's own, else since before anything it finds.
func selfOpen(open []openCmd, turn string, meta TurnMeta, cmd string, since int64) *openCmd {
	if at := ownOpen(open, turn, cmd); at >= 0 {
		c := open[at]
		return &c
	}
	return &openCmd{Turn: turn, Cmd: cmd, Label: meta.Label, Source: meta.Source, At: since}
}

// owner is a turn that gets a sweep's changes, with the command it
// names in them.
type owner struct {
	turn string
	meta TurnMeta
	cmd  string
}

// recordOwners appends recs to every owner's turn. With more than one
// owner no single command owns the changes: each record names the other
// owners' turns as shared, so a revert of one of them treats the path as
// a conflict. It returns the turn id each owner's records went to.
// Caller holds the lock.
func (s *Store) recordOwners(owners []owner, recs []shellRec) ([]string, error) {
	ids := make([]string, len(owners))
	for i, o := range owners {
		var shared []string
		if len(owners) > 1 {
			for j, p := range owners {
				if j != i {
					shared = append(shared, p.turn)
				}
			}
		}
		id, err := s.recordShell(o.turn, o.meta, o.cmd, recs, shared)
		if err != nil {
			return ids, err
		}
		ids[i] = id
	}
	return ids, nil
}

// trackOpen, deferred by a sweep, lists its command as running (the sweep
// before it) or takes it out (the sweep after it), and writes the list
// when that or the dropping of stale entries changed it.
func (s *Store) trackOpen(open []openCmd, dropped bool, turn string, meta TurnMeta, cmd string, at int64, after bool) {
	next := open
	switch {
	case after:
		next = closeOpen(slices.Clone(open), turn, cmd)
	case turn != "":
		next = append(slices.Clone(open), openCmd{Turn: turn, Cmd: cmd, Label: meta.Label, Source: meta.Source, At: at})
	}
	if dropped || len(next) != len(open) {
		if err := s.saveOpen(next); err != nil {
			s.LogError("sweep: %v", err)
		}
	}
}

// recordSweep records a sweep's changes in the turns that own them: after
// a command its own turn (self), and the turns of other sessions' running
// commands; before one, only those. Caller holds the lock.
func (s *Store) recordSweep(res *SweepResult, recs []shellRec, after bool, self owner, others []openCmd) error {
	var owners []owner
	if after {
		owners = append(owners, self)
	}
	for _, o := range others {
		owners = append(owners, owner{o.Turn, TurnMeta{Label: o.Label, Source: o.Source}, o.Cmd})
	}
	if len(recs) == 0 || len(owners) == 0 {
		return nil
	}
	ids, err := s.recordOwners(owners, recs)
	if err != nil {
		return err
	}
	if after {
		res.Turn, ids = TurnID(ids[0]), ids[1:]
	}
	res.Others = ids
	for _, r := range recs {
		res.Changed = append(res.Changed, r.path)
	}
	return nil
}

// sharedWith lists the other turns the store still holds that were given
// f's change as their own: a sweep found it while commands of several
// sessions ran, so no single command owned it (the records name them).
// It is the one test of a shared change: File.Shared shows it, and a
// revert treats such a path as a conflict unless it takes out every one
// of those turns too.
func (v *view) sharedWith(f *tfile) []string {
	var out []string
	for _, id := range f.shared {
		if v.byID[id] != nil {
			out = append(out, id)
		}
	}
	return out
}
