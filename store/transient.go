package store

import (
	"cmp"
	"encoding/json"
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// A path the baseline lacks, found by a sweep while another session's
// shell command runs, may be that command's temporary file (sed -i's,
// an editor's swap file): made and removed within the command. Recorded
// at once, it would be a change of a turn that never was: a path that
// existed neither before the command nor after it. So such a path is
// left out of the turn and out of the baseline, to the closing sweep of
// the command it appeared during. One gone by then is in no turn; one
// still there goes to the turns of every command that ran when it
// appeared (shared, when more than one), as a change no single command
// owns. A path that existed before is not left: its change goes to
// every running command's turn at once, as opencmds.go says.

// leftFile lists the paths sweeps left to running commands' closing
// sweeps, with the commands they may belong to (see leftPath).
const leftFile = "left.json"

// leftPath is a path left to a running command's closing sweep: when a
// sweep first left it (seen), when the baseline that sweep compared
// with was taken (base: the path was not there then), and the commands
// that ran then (owners), which its record goes to once no running one
// is left among them. A command that began after seen is none of them:
// the path was there before it.
type leftPath struct {
	Path   string
	Seen   int64
	Base   int64 // 0 in a list an older ckpt wrote
	Owners []openCmd
}

// leftDoc is left.json: each owner command once (a command may be a long
// heredoc, and may own thousands of paths), each path naming its owners
// by their index in cmds; and the base of the paths first left at each
// seen once, as [seen, base] (a sweep leaves many paths at a time).
type leftDoc struct {
	Cmds  []openCmd   `json:"cmds"`
	Paths []leftEntry `json:"paths"`
	Bases [][2]int64  `json:"bases,omitempty"`
}

// leftEntry is a leftPath in left.json.
type leftEntry struct {
	Path   string `json:"path"`
	Seen   int64  `json:"seen"`
	Owners []int  `json:"owners"`
}

// loadLeft reads the paths left to running commands, dropping those
// left longer ago than openMax (every command they waited for has
// stopped counting as running). A damaged or missing file is an empty
// list. Caller holds sweep.lock.
func (s *Store) loadLeft(now int64) []leftPath {
	b, err := s.dir.ReadFile(leftFile)
	if err != nil {
		return nil
	}
	var doc leftDoc
	if json.Unmarshal(b, &doc) != nil {
		s.LogError("sweep: %s is damaged; what it left to running commands comes as new", s.path(leftFile))
		return nil
	}
	bases := make(map[int64]int64, len(doc.Bases))
	for _, sb := range doc.Bases {
		bases[sb[0]] = sb[1]
	}
	var list []leftPath
	for _, p := range doc.Paths {
		if p.Path == "" || now-p.Seen > int64(openMax) {
			continue
		}
		l := leftPath{Path: p.Path, Seen: p.Seen, Base: bases[p.Seen]}
		for _, k := range p.Owners {
			if k >= 0 && k < len(doc.Cmds) {
				l.Owners = append(l.Owners, doc.Cmds[k])
			}
		}
		list = append(list, l)
	}
	return list
}

// saveLeft replaces the list of left paths. Caller holds sweep.lock.
func (s *Store) saveLeft(list []leftPath) error {
	if len(list) == 0 {
		if err := s.dir.Remove(leftFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errf("remove %s: %w", s.path(leftFile), err)
		}
		return nil
	}
	var doc leftDoc
	doc.Paths = make([]leftEntry, len(list))
	for i, l := range list {
		p := &doc.Paths[i]
		p.Path, p.Seen = l.Path, l.Seen
		if k := [2]int64{l.Seen, l.Base}; l.Base != 0 && !slices.Contains(doc.Bases, k) {
			doc.Bases = append(doc.Bases, k)
		}
		for _, c := range l.Owners {
			k := slices.IndexFunc(doc.Cmds, func(o openCmd) bool { return sameCmd(o, c) })
			if k < 0 {
				k = len(doc.Cmds)
				doc.Cmds = append(doc.Cmds, c)
			}
			p.Owners = append(p.Owners, k)
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	if err := storefs.WriteAtomic(s.dir, leftFile, b, 0o600, false); err != nil {
		return errf("write %s: %w", s.path(leftFile), err)
	}
	return nil
}

// sameCmd reports whether a and b are one running command.
func sameCmd(a, b openCmd) bool {
	return a.Turn == b.Turn && a.At == b.At && a.Cmd == b.Cmd
}

// leaving is what a sweep decided of the paths the baseline lacks.
type leaving struct {
	// next is the list of left paths to write, sorted by path.
	next []leftPath
	// owned names the new paths recorded now in their owners' turns
	// rather than as the sweep records the rest: commands that ran when
	// the path appeared and no longer run.
	owned map[string][]openCmd
	// changed says next differs from the list read.
	changed bool
	// base is when the baseline swept against was taken, and absent
	// when the left paths recorded now were last seen not there (their
	// base): their records' pre-image is older than the baseline.
	base   int64
	absent map[string]int64
}

// sweepRunning is what a sweep knows of the commands running: every one
// of other turns (others), and, for a sweep after a command, that
// command (self; nil for a sweep before one or ckpt watch's).
type sweepRunning struct {
	others []openCmd
	self   *openCmd
}

// runningFor is what a sweep of turn knows of the running commands in
// open; closing says it is the sweep after turn's command cmd, and old
// is the baseline it sweeps against.
func runningFor(open []openCmd, old *baseline, turn string, meta TurnMeta, cmd string, closing bool) sweepRunning {
	run := sweepRunning{others: slices.DeleteFunc(slices.Clone(open), func(c openCmd) bool { return c.Turn == turn })}
	if closing {
		var since int64
		if old != nil && old.turn == turn {
			since = old.at
		}
		run.self = selfOpen(open, turn, meta, cmd, since)
	}
	return run
}

// running reports whether c is one of the commands of other turns still
// running.
func (r sweepRunning) running(c openCmd) bool {
	return slices.ContainsFunc(r.others, func(o openCmd) bool { return sameCmd(o, c) })
}

// ownersOf is the commands path may belong to: those prior names, and
// those running that began before it was first seen (seen), one per
// turn.
func (r sweepRunning) ownersOf(prior []openCmd, seen int64) []openCmd {
	out := slices.Clone(prior)
	add := func(c openCmd) {
		if c.At < seen && !slices.ContainsFunc(out, func(o openCmd) bool { return o.Turn == c.Turn }) {
			out = append(out, c)
		}
	}
	for _, c := range r.others {
		add(c)
	}
	if r.self != nil {
		add(*r.self)
	}
	return out
}

// decideNew decides, for each path of m the old baseline lacks, whether
// it is left to a running command's closing sweep (out of the changes
// and the next baseline) or recorded now, and in whose turns. prior is
// the list read; a path of it this listing did not meet stays listed
// while it is there and the baseline still lacks it. start is the
// sweep's time. Without a baseline (old nil) nothing is left.
func (s *Store) decideNew(m *sweepMerge, now []*baseEntry, old *baseline, prior []leftPath, run sweepRunning, start int64) *leaving {
	lv := &leaving{}
	if old != nil {
		lv.base = old.at
	}
	if old == nil || len(run.others) == 0 && len(prior) == 0 {
		// No baseline: every path goes into the next one, nothing is
		// attributed, and nothing stays left. No other command running
		// and nothing left before: the sweep gives what it finds as it
		// always does.
		lv.changed = len(prior) > 0
		return lv
	}
	byPath := make(map[string]leftPath, len(prior))
	for _, l := range prior {
		byPath[l.Path] = l
	}
	met := map[string]bool{}
	left := map[string]bool{}
	kept := map[string]bool{} // folders holding a new path recorded now
	for _, j := range m.added {
		n := now[j]
		if n.kind == baseDir {
			continue
		}
		met[n.path] = true
		l, known := byPath[n.path]
		if notKeptBefore(sweepChange{now: n}, old) != "" {
			// New in a folder this baseline could not list: it may have
			// been there all along, and only this sweep knows it. Left,
			// it would come to a sweep whose baseline lists the folder,
			// and be recorded as made by a command (a rewind would
			// delete it): it is recorded now, as not kept.
			lv.changed = lv.changed || known
			for _, d := range parents(n.path) {
				kept[d] = true
			}
			continue
		}
		owners, held := lv.hold(l, known, n.path, start, run)
		if held {
			left[n.path] = true
			continue
		}
		for _, d := range parents(n.path) {
			kept[d] = true
		}
		// Where the owners are not whom the sweep gives its changes to
		// (its own command alone, with no other running), the path goes
		// to them.
		if len(owners) > 0 && !(len(run.others) == 0 && len(owners) == 1 && run.self != nil && sameCmd(owners[0], *run.self)) {
			if lv.owned == nil {
				lv.owned = map[string][]openCmd{}
			}
			lv.owned[n.path] = owners
		}
	}
	// A folder made while another command runs goes with what it holds:
	// left while a command that ran when it appeared still runs (listed
	// as a path is, so it is not taken later for one a command that
	// began after it made), unless something in it is recorded now.
	for _, j := range m.added {
		n := now[j]
		if n.kind != baseDir {
			continue
		}
		met[n.path] = true
		l, known := byPath[n.path]
		if kept[n.path] {
			lv.changed = lv.changed || known
		} else if owners, held := lv.hold(l, known, n.path, start, run); held {
			left[n.path] = true
		} else if len(owners) > 0 && !(len(run.others) == 0 && len(owners) == 1 && run.self != nil && sameCmd(owners[0], *run.self)) {
			// An empty one is recorded itself: it goes to its owners.
			if lv.owned == nil {
				lv.owned = map[string][]openCmd{}
			}
			lv.owned[n.path] = owners
		}
	}
	for _, l := range prior {
		if met[l.Path] {
			continue
		}
		if old.find(l.Path) == nil && s.existsNoFollow(l.Path) {
			lv.next = append(lv.next, l)
		} else {
			lv.changed = true
		}
	}
	slices.SortFunc(lv.next, func(a, b leftPath) int { return strings.Compare(a.Path, b.Path) })
	m.leave(now, left)
	return lv
}

// hold lists path as left (l, as the list read had it when known) while
// a command among its owners still runs, and says so (held); owners are
// the commands it may belong to (see ownersOf). start is the sweep's
// time, when a path it did not know was first seen.
func (lv *leaving) hold(l leftPath, known bool, path string, start int64, run sweepRunning) (owners []openCmd, held bool) {
	if !known {
		l = leftPath{Path: path, Seen: start, Base: lv.base}
	}
	was := len(l.Owners)
	owners = run.ownersOf(l.Owners, l.Seen)
	if !slices.ContainsFunc(owners, run.running) {
		lv.changed = lv.changed || known
		if known {
			if lv.absent == nil {
				lv.absent = map[string]int64{}
			}
			lv.absent[path] = cmp.Or(l.Base, l.Seen)
		}
		return owners, false
	}
	l.Owners = owners
	lv.next = append(lv.next, l)
	lv.changed = lv.changed || !known || len(owners) != was
	return owners, true
}

// leave takes the paths left out of m and out of the next baseline. The
// folders holding them lose their times, so no sweep reuses their
// listings until the paths are swept again.
func (m *sweepMerge) leave(now []*baseEntry, left map[string]bool) {
	if len(left) == 0 {
		return
	}
	for _, j := range m.added {
		n := now[j]
		if !left[n.path] {
			continue
		}
		n.kind = 0 // nextBaseline leaves it out
		if d := findIn(now, parentDir(n.path)); d != nil && d.kind == baseDir {
			d.mtime, d.ctime, d.ino = 0, 0, 0
		}
	}
	m.changes = slices.DeleteFunc(m.changes, func(c sweepChange) bool { return c.old == nil && left[c.now.path] })
	m.toRead = slices.DeleteFunc(m.toRead, func(p string) bool { return left[p] })
}

// stamp says in recs of paths left before when they were last seen not
// there, not when the baseline, which left them out, was taken.
func (lv *leaving) stamp(recs []shellRec) {
	for i := range recs {
		if at, ok := lv.absent[recs[i].path]; ok {
			recs[i].seen = at
		}
	}
}

// split parts recs into those of the paths decided to go to their
// owners' turns (lv.owned) and the rest.
func (lv *leaving) split(recs []shellRec) (rest, owned []shellRec) {
	if len(lv.owned) == 0 {
		return recs, nil
	}
	for _, r := range recs {
		if lv.owned[r.path] != nil {
			owned = append(owned, r)
		} else {
			rest = append(rest, r)
		}
	}
	return rest, owned
}

// recordOwned records owned, the records of new paths decided to go to
// their owners' turns, each group of paths with the same owners at
// once. It notes in res what it recorded: the paths in Changed, the
// sweep's own turn (self's) in Turn, the others in Others. Caller holds
// the lock.
func (s *Store) recordOwned(res *SweepResult, lv *leaving, owned []shellRec, self *openCmd) error {
	groups := map[string][]shellRec{}
	var keys []string
	for _, r := range owned {
		var k []string
		for _, o := range lv.owned[r.path] {
			k = append(k, o.Turn)
		}
		key := strings.Join(k, "\x00")
		if _, seen := groups[key]; !seen {
			keys = append(keys, key)
		}
		groups[key] = append(groups[key], r)
	}
	for _, key := range keys {
		g := groups[key]
		owners := lv.owned[g[0].path]
		list := make([]owner, len(owners))
		for i, o := range owners {
			list[i] = owner{o.Turn, TurnMeta{Label: o.Label, Source: o.Source}, o.Cmd}
		}
		ids, err := s.recordOwners(list, g)
		if err != nil {
			return err
		}
		for i, o := range owners {
			switch {
			case self != nil && sameCmd(o, *self):
				res.Turn = TurnID(ids[i])
			case !slices.Contains(res.Others, ids[i]):
				res.Others = append(res.Others, ids[i])
			}
		}
		for _, r := range g {
			res.Changed = append(res.Changed, r.path)
		}
	}
	return nil
}
