package store

import (
	"slices"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// settle takes out of a sweep's recs what other sessions' file tools
// wrote meanwhile (see edits.go), holding back in the next baseline
// (m's entries now) the paths it leaves to them while a command of
// another turn runs on (othersRun), and what operations since the
// baseline wrote (see sweep_operated.go). It returns the notes of
// edits.log it read and the paths held back, for pruneEdits. Caller
// holds sweep.lock and the store's lock, and keeps the lock until the
// records are written: every capture and seal noted before them is
// read, and none is noted between the reading and the records.
func (s *Store) settle(recs []shellRec, m *sweepMerge, now []*baseEntry, res *SweepResult, old *baseline, ws *watchSweep, start int64, othersRun bool) ([]shellRec, edits, map[string]bool) {
	edited := s.loadEdits(start)
	recs, held := settleEdits(recs, edited.notes)
	if !othersRun {
		held = nil // no command of another turn runs on to record them
	}
	m.holdBack(now, held)
	recs = s.operatedOut(recs, res, old, ws)
	return recs, edited, held
}

// recordSwept records a sweep's changes: the new paths whose owners
// are not whom the sweep gives the rest to in those owners' turns (see
// transient.go), the rest as ckpt watch (ws, leaving it the paths not
// claimed) or a hook's sweep does. Caller holds the store's lock, l,
// under which the claims are read too: one made after the sweep read
// the tree is seen.
func (s *Store) recordSwept(res *SweepResult, recs []shellRec, lv *leaving, ws *watchSweep, l *lockFile, old *baseline, self owner, selfCmd *openCmd, others []openCmd) error {
	lv.stamp(recs)
	rest, owned := lv.split(recs)
	var err error
	if ws != nil && old != nil && len(rest) > 0 {
		claimed, found, cerr := s.claimedSince(old.at, res.Operated, l)
		if err = cerr; err == nil {
			err = s.recordWatched(res, old, rest, claimed, found, self.turn, self.meta, others)
		}
	} else if ws == nil {
		err = s.recordSweep(res, rest, selfCmd != nil, self, others)
	}
	if err != nil {
		return err
	}
	if err := s.recordOwned(res, lv, owned, selfCmd); err != nil {
		return err
	}
	res.ToHook = res.ToHook || ws != nil && len(owned) > 0
	slices.Sort(res.Changed)
	return nil
}

// shellRec is one path a shell command changed.
type shellRec struct {
	path      string
	pre, post Image
	dirs      []string
	// noPost: what the command left could not be kept (a full disk), so
	// the path gets its pre record only, as if the write never sealed.
	noPost bool
	// with names the turns whose file tools wrote the path meanwhile
	// (see edits.go): they share the change.
	with []string
	seen int64 // when pre was observed: when the baseline was taken
}

// cmdInline is the longest command a sweep's records hold whole, in
// each path's records; a longer one (a heredoc of a whole file) is kept
// once per sweep in a cmd record, and the paths' records hold its first
// cmdStartLen bytes, so a store grows by the command once, not once per
// path it changed, and a ckpt that predates cmd records still shows
// where the command began.
const (
	cmdInline   = 1024
	cmdStartLen = 200
)

// cmdStart is the start of a long command, cut on a character's
// boundary, marked as cut.
func cmdStart(cmd string) string {
	end := cmdStartLen
	for end > 0 && !utf8.RuneStart(cmd[end]) {
		end--
	}
	return cmd[:end] + "…"
}

// recordShell appends what a command changed to turn: a pre record where
// the turn lacks the path (the first capture wins), and a post record,
// both naming the command. It returns the turn id used.
//
// What the turn holds of each path is read through its path index
// (turnPaths), so a command late in a long turn costs what one early in
// it does. Caller holds the lock.
func (s *Store) recordShell(turn string, meta TurnMeta, cmd string, recs []shellRec, shared []string) (string, error) {
	id, tp, err := s.turnPathsFor(turn)
	if err != nil {
		return "", err
	}
	defer tp.close()
	exists := tp.exists
	now := s.clock().UnixNano()
	n := s.nextSeq(now, turnFileName(id))
	var buf []byte
	if !exists {
		buf = s.turnHeader(buf, turn, id, meta, now, n)
	}
	head := len(buf)
	// A long command is kept once, in a cmd record of its own, and each
	// path's records name it by its "n" and hold only its start.
	long := len(cmd) > cmdInline
	var cmdN int64
	if long {
		buf = record.Append(buf, &record.Line{R: "cmd", File: record.File{Cmd: cmd}, At: now, N: n})
		cmd, cmdN = cmdStart(cmd), n
	}
	body := len(buf)
	for _, r := range recs {
		shared := sharedFor(shared, r.with, turn, id)
		ok := exists && tp.has(r.path)
		if ok {
			if post, sealed := tp.lastPost(r.path); sealed && sameBytes(post, r.post) && post.Mode == r.post.Mode {
				continue // the agent's file tool wrote it, and sealed it
			}
		}
		if !ok {
			pre := r.pre
			buf = tp.appendPre(buf, r.path, &record.Line{R: "pre", File: record.File{Path: r.path, Img: &pre, Dirs: r.dirs, Cmd: cmd, CmdN: cmdN, Shared: shared, Seen: r.seen}, At: now, N: n})
		}
		if r.noPost {
			continue
		}
		post := r.post
		buf = record.Append(buf, &record.Line{R: "post", File: record.File{Path: r.path, Img: &post, Cmd: cmd, CmdN: cmdN, Shared: shared}, At: now, N: n})
	}
	if len(buf) == body {
		buf = buf[:head] // no path: no command to keep
	}
	if len(buf) == 0 {
		return id, nil
	}
	if err := s.appendTurn(id, buf, !exists); err != nil {
		return "", err
	}
	tp.appended(buf, false)
	return id, nil
}
