package store

import (
	"errors"
	"slices"
	"strings"
)

// A sweep's listing against the old baseline, and what it writes back.

// listSweep lists the tree for a sweep against *old: only the folders
// the watcher's answer names when it can serve (res.Feed says), else all
// of it. With attribute, it skips by the rules the baseline was taken
// under: a command that edits an ignore file neither hides its own
// changes nor passes off as new the files it stops ignoring. A baseline
// found damaged on the way is dropped (*old nil) and every file read.
func (s *Store) listSweep(res *SweepResult, old **baseline, fed Changes, attribute bool) (*fedListing, error) {
	prior := func() *baseline {
		if attribute {
			return *old
		}
		return nil
	}
	damaged := func(err error) {
		s.LogError("sweep: %s: %v; reading every file again", s.path(baselineFile), err)
		(*old).close()
		*old = nil
		res.Fresh = true
		if res.Feed == FeedFed || res.Feed == FeedFull {
			res.Feed = FeedNoUse
		}
	}
	if res.Feed == FeedFed && *old != nil {
		l, ok, err := walkFed(s.rootPath, prior(), *old, fed.Paths)
		switch {
		case errors.Is(err, errBadBaseline):
			damaged(err)
		case err != nil:
			return nil, err
		case ok:
			res.Seen = len(l.now)
			return l, nil
		default:
			res.Feed = FeedFull
		}
	}
	if *old != nil {
		l, seen, err := walkChanged(s.rootPath, prior(), *old)
		switch {
		case errors.Is(err, errBadBaseline):
			damaged(err)
		case err != nil:
			return nil, err
		default:
			res.Seen = seen
			return l, nil
		}
	}
	now, unread, rules, err := walkTree(s.rootPath)
	if err != nil {
		return nil, err
	}
	res.Seen = len(now)
	if !slices.IsSortedFunc(now, func(a, b *baseEntry) int { return strings.Compare(a.path, b.path) }) {
		// The walk lays paths out in order; the merge depends on it.
		slices.SortFunc(now, func(a, b *baseEntry) int { return strings.Compare(a.path, b.path) })
	}
	return &fedListing{now: now, unread: unread, rules: rules, whole: true}, nil
}

// saveNext writes what the sweep changed in the baseline, if anything:
// the entries it put and removed, its head, rules and recheck list.
func (s *Store) saveNext(old, nb *baseline, lst *fedListing, m *sweepMerge, next []*baseEntry, fp *failpoint) error {
	puts, dels := baselineDelta(lst.old, m.touched, next)
	own := s.ownCtimes(old)
	nb.recheck = recheckOf(next, nb.at, own)
	if old != nil && !lst.whole && len(old.recheck) > 0 {
		// What the fed walk did not cover stands, and so does its need
		// to be looked at again.
		in := make(map[string]bool, len(lst.old)+len(next))
		for i := range lst.old {
			in[lst.old[i].path] = true
		}
		for _, e := range next {
			in[e.path] = true
		}
		for _, p := range old.recheck {
			if e := old.find(p); !in[p] && e != nil && needsRecheck(e, nb.at, own) {
				nb.recheck = append(nb.recheck, p)
			}
		}
		slices.Sort(nb.recheck)
	}
	if lst.whole {
		nb.list = next
	}
	rulesMoved := old == nil || !sameRules(old.rules, nb.rules)
	if old != nil && len(puts) == 0 && len(dels) == 0 && !rulesMoved && old.turn == nb.turn && old.cmd == nb.cmd &&
		old.ops == nb.ops && slices.Equal(old.recheck, nb.recheck) {
		return nil
	}
	return s.saveSweep(old, nb, rulesMoved, puts, dels, fp)
}
