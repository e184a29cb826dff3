package store

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// sweepChange is one path that differs from the baseline.
type sweepChange struct {
	old *baseEntry // nil: new
	now *baseEntry // nil: vanished
	// shut: old is in a folder the listing could no longer open (see
	// sweep_shut.go): what it holds now is unknown.
	shut bool
}

func (c sweepChange) path() string {
	if c.now != nil {
		return c.now.path
	}
	return c.old.path
}

// racyHashMax bounds the racy files a sweep hashes one by one before
// reading them as changes; past it they go to the batch read, which uses
// every core.
const racyHashMax = 16

// sameBytes reports whether the file now holds old's bytes, as now's
// stat saw it: read through the root, not following a link, with the
// same stat before and after the read.
func (s *Store) sameBytes(now, old *baseEntry) bool {
	f, err := s.root.OpenFile(now.path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	statOK := func() bool {
		fi, err := f.Stat()
		if err != nil {
			return false
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		return ok && fi.Mode().IsRegular() && fi.Size() == now.size &&
			fi.ModTime().UnixNano() == now.mtime && ctimeOf(st) == now.ctime && uint64(st.Ino) == now.ino
	}
	if !statOK() {
		return false
	}
	h := sha256.New()
	if n, err := io.Copy(h, f); err != nil || n != old.size {
		return false
	}
	return BlobID(h.Sum(nil)) == old.sum && statOK()
}

func (s *Store) sweep(turn string, meta TurnMeta, cmd string, after bool, ws *watchSweep) (*SweepResult, error) {
	sl, err := s.sweepLock()
	if err != nil {
		return nil, err
	}
	defer sl.unlock()
	return s.sweepLocked(turn, meta, cmd, after, ws)
}

// sweepLock takes sweep.lock: one sweep at a time.
func (s *Store) sweepLock() (*lockFile, error) {
	if err := s.ensureDirs(); err != nil {
		return nil, err
	}
	return s.flock("sweep.lock", unix.LOCK_EX)
}

// sweepLocked is sweep with sweep.lock held.
func (s *Store) sweepLocked(turn string, meta TurnMeta, cmd string, after bool, ws *watchSweep) (*SweepResult, error) {
	bl, err := s.flock("blobs.lock", unix.LOCK_SH)
	if err != nil {
		return nil, err
	}
	defer bl.unlock()
	s.grants.begin()
	defer s.grants.end()
	fp := newFailpoint(map[bool]string{false: "sweep-before", true: "sweep-after"}[after])
	res := &SweepResult{}
	start := time.Now().UnixNano()
	old, rest, lerr := s.loadBaselineHead()
	if errors.Is(lerr, ErrNewerFormat) {
		return nil, errf("sweep: %w", lerr)
	}
	ops := s.opsLogSize()
	if !after && turn != "" && (old == nil || old.turn != turn) {
		// The turn's first sweep: where git stood before its first
		// command, for the turn's first record.
		s.noteGitBefore(turn)
	}
	// Other sessions' commands running now: what changed since the
	// baseline may be theirs (see opencmds.go).
	open, dropped := s.loadOpen(start)
	if n := len(open); n > 0 {
		open = movedOn(open, turn, meta.Source)
		dropped = dropped || len(open) != n
	}
	others := othersOpen(open, turn)
	defer s.trackOpen(open, dropped, turn, meta, cmd, start, after)
	if !after && old != nil && turn != "" && old.turn == turn && old.ops == ops {
		// The turn swept already: whatever changed since is the agent's
		// and the sweep after this command records it against the same
		// baseline, so this one would only read the tree twice. (Its
		// entries are not even parsed.)
		res.Skipped = true
		return res, nil
	}
	if old != nil {
		lerr = rest()
		if lerr != nil {
			old = nil
		}
	}
	defer func() { old.close() }()
	if lerr != nil {
		// A damaged baseline is no worse than none: every file is read.
		s.LogError("sweep: %v; reading every file again", lerr)
	}
	if old == nil {
		res.Fresh = true
	}
	fed := s.askFeed(res, old.size())
	lst, err := s.listSweep(res, &old, fed, after || len(others) > 0)
	if err != nil {
		return nil, err
	}
	res.Operated = old != nil && old.ops != ops
	// Before a command, what changed is a hand edit, unless another
	// session's command is running: then it is that command's.
	attribute := old != nil && (after || len(others) > 0)
	m := mergeListing(old, lst.old, lst.now, lst.unread)
	// What another session's running command created is left to its
	// closing sweep (see transient.go), and the watcher's answer stands
	// until then: the token is not moved on.
	run := runningFor(open, old, turn, meta, cmd, after && ws == nil)
	lv := s.decideNew(m, lst.now, old, s.loadLeft(start), run, start)
	hashed := s.settleRacy(m)
	res.Read = len(m.toRead) + hashed
	if old == nil {
		// A first sweep reads every file: a CopyControl bounds it.
		run := s.beginCopy(m.toRead, lst.size)
		s.copying.Store(run)
		defer s.copying.Store(nil)
	}
	imgs, full, err := s.lookTolerant(m.toRead, fp, res)
	if err != nil {
		return nil, errf("sweep: %w", err)
	}
	recs := s.shellRecords(m.changes, imgs, full, func(rel string) bool { return attribute || lv.owned[rel] != nil }, old, res)
	if s.sweepRead != nil {
		s.sweepRead()
	}
	// What the records say is decided and written under one hold of the
	// store's lock: a seal that lands before them is in edits.log, and
	// a hook's turn's capture in its turn file.
	l, err := s.lock()
	if err != nil {
		return nil, err
	}
	recs, edited, held := s.settle(recs, m, lst.now, res, old, ws, start, len(others) > 0)
	next := nextBaseline(m.order, lst.old, lst.now)
	fp.hit()
	err = s.recordSwept(res, recs, lv, ws, l, old, owner{turn, meta, cmd}, run.self, others)
	l.unlock()
	if err != nil {
		return nil, err
	}
	if after && !res.ToHook {
		s.noteGitAfter(cmp.Or(string(res.Turn), turn), meta)
	}
	fp.hit()
	nb := sweptHead(res, old, ws, owner{turn, meta, cmd}, start, ops, lst.rules)
	if err := s.saveNext(old, nb, lst, m, next, fp); err != nil {
		return nil, err
	}
	if lv.changed {
		if err := s.saveLeft(lv.next); err != nil {
			s.LogError("sweep: %v", err)
		}
	}
	s.pruneEdits(edited, start, lv.next, held)
	if fed.Next != "" && len(lv.next) == 0 && len(held) == 0 {
		s.saveWatchToken(fed.Next)
	}
	fp.hit()
	return res, nil
}

// noteGitAfter records where git stands after a command in turn id: the
// turn's own change to git is its start to this.
func (s *Store) noteGitAfter(id string, meta TurnMeta) {
	if id == "" {
		return
	}
	if err := s.noteGitEnd(id, meta, false); err != nil {
		s.LogError("sweep: note git's state in turn %s: %v", id, err)
	}
}

// askFeed asks the watcher, if any, what changed since the baseline's
// token, and notes in res how it answered. Without a baseline there is
// nothing to feed, but the token it gives dates the baseline about to be
// written.
func (s *Store) askFeed(res *SweepResult, entries int) Changes {
	feed := s.feedFor(entries)
	if feed == nil {
		return Changes{}
	}
	c, err := feed.Since(s.watchToken())
	switch {
	case errors.Is(err, ErrNoWatcher):
		return Changes{}
	case err != nil:
		res.Feed = FeedSlow
		return Changes{}
	case res.Fresh:
		res.Feed = FeedNoUse
		c.Known = false
	case c.Known:
		res.Feed = FeedFed
	default:
		res.Feed = FeedFull
	}
	return c
}

// shellRecords turns the changes into the records of a command's turn,
// filling each new entry from what was read (imgs; full names the paths
// whose bytes found no room). Without attribute (no baseline to compare
// with, or a sweep before a command) it records nothing, but still fills
// the entries the next baseline holds.
func (s *Store) shellRecords(changes []sweepChange, imgs map[string]Image, full map[string]bool, attribute func(rel string) bool, old *baseline, res *SweepResult) []shellRec {
	var recs []shellRec
	for _, c := range changes {
		if c.shut {
			if attribute(c.old.path) {
				recs = append(recs, s.shutRec(c))
			}
			continue
		}
		var rel string
		if c.now != nil {
			rel = c.now.path
			img, ok := imgs[rel]
			switch {
			case c.now.statOnly():
			case !ok:
				// Unreadable: what it holds is unknown, so a later change
				// of it is never recorded against a guessed pre-image.
				c.now.kind = baseUnknown
			case !c.now.fill(img, s.maxBlob):
				c.now.kind = 0 // no longer a file or link: not in the baseline
			default:
				s.grants.settle(c.now)
			}
		} else {
			rel = c.old.path
			// Vanished from the listing: gone, or now under an ignored or
			// unreadable folder, which is no change of the command's. A
			// folder on its way that became a link does not count: the
			// name the link leads to is another path.
			if s.existsNoFollow(rel) {
				continue
			}
		}
		if olderSpecial(c, old) {
			continue
		}
		if !attribute(rel) {
			if c.now != nil && full[rel] {
				res.Problems = append(res.Problems, rel+": no space left to keep its bytes: a change made to it now cannot be undone")
			}
			continue
		}
		if why := notKeptBefore(c, old); why != "" {
			if r, ok := unkeptRec(c, rel, why, imgs); ok {
				if r.pre.Kind == ImageSkipped {
					res.Problems = append(res.Problems, rel+": "+why+", so a rewind cannot give back what it held")
				}
				recs = append(recs, r)
			}
			continue
		}
		// Its new bytes could not be kept (a full disk) or read: it is
		// the command's all the same, with its pre-image and no post.
		noSpace := c.now != nil && full[rel]
		unread := !noSpace && c.now != nil && c.now.kind == baseUnknown
		if !noSpace && !unread && c.old != nil && c.now != nil && c.now.kind != 0 && c.old.sameContent(c.now) {
			continue // only the stat moved (a touch, a rewrite of the same bytes)
		}
		r := shellRec{path: rel, post: Image{Kind: ImageAbsent}}
		switch {
		case noSpace:
			r.noPost = true
			res.Problems = append(res.Problems, rel+": no space left to keep its new bytes: the turn keeps what it held before, which a rewind puts back, and what the command left is unknown")
		case unread && c.now.mode&unlistedDir != 0:
			r.post, r.noPost = shutDirPost(c, rel, res)
		case unread:
			r.noPost = true
			res.Problems = append(res.Problems, rel+": could not be read after the command: the turn keeps what it held before, which a rewind puts back, and what the command left is unknown")
		case c.now != nil && c.now.statOnly():
			r.post = c.now.image(s.maxBlob)
		case c.now != nil && c.now.kind != 0:
			r.post = imgs[rel]
		case c.now != nil:
			continue
		}
		if c.old != nil {
			r.pre = c.old.image(s.maxBlob)
		} else {
			r.pre = Image{Kind: ImageAbsent}
			for _, d := range parents(rel) {
				if !old.hasDir(d) {
					r.dirs = append(r.dirs, d)
				}
			}
			if c.now != nil && c.now.kind == baseDir {
				r.dirs = append(r.dirs, rel) // a new empty folder goes as its parents do
			}
		}
		recs = append(recs, r)
	}
	return seenAt(recs, old)
}

// seenAt says in recs that their pre-images, old's, were seen when old
// was taken.
func seenAt(recs []shellRec, old *baseline) []shellRec {
	for i := 0; old != nil && i < len(recs); i++ {
		recs[i].seen = old.at
	}
	return recs
}

// statOnly reports whether e is a folder or a special file, of which a
// sweep reads nothing but the stat.
func (e *baseEntry) statOnly() bool { return e.kind == baseDir || e.kind == baseSpecial }

// olderSpecial reports whether c is a special file new to the baseline
// old that was there before it: one a ckpt that did not list special
// files left out. It goes into the next baseline, to no turn.
func olderSpecial(c sweepChange, old *baseline) bool {
	return c.old == nil && c.now.kind == baseSpecial && old != nil && c.now.ctime < old.at-racyWindow
}

// existsNoFollow reports whether rel is there, reached through folders
// only: a link on the way (os.Root follows one that stays inside) means
// the name rel once had is gone.
func (s *Store) existsNoFollow(rel string) bool {
	for i := 0; i < len(rel); i++ {
		if rel[i] != '/' {
			continue
		}
		fi, err := s.root.Lstat(rel[:i])
		if err != nil || !fi.IsDir() {
			return false
		}
	}
	_, err := s.root.Lstat(rel)
	return err == nil
}

// opsLogSize is the size of ops.log, which grows with every rewind, undo
// and redo (and only then).
func (s *Store) opsLogSize() int64 {
	fi, err := s.dir.Lstat("ops.log")
	if err != nil {
		return 0
	}
	return fi.Size()
}

// lookTolerant reads and keeps rels in one batch through look; when the
// batch fails (a file unreadable, or replaced by a pipe), it reads them one
// by one so a single bad path costs only itself.
//
// full names the paths read whose bytes could not be kept for want of
// room (ENOSPC, EDQUOT): the caller words those.
func (s *Store) lookTolerant(rels []string, fp *failpoint, res *SweepResult) (map[string]Image, map[string]bool, error) {
	out := make(map[string]Image, len(rels))
	var full map[string]bool
	if len(rels) == 0 {
		return out, full, nil
	}
	got, err := s.look(rels, false, fp)
	if errors.Is(err, ErrCopyStopped) {
		return nil, nil, err
	}
	if err == nil {
		for _, c := range got {
			out[c.rel] = c.img
		}
		return out, full, nil
	}
	for _, rel := range rels {
		got, err := s.look([]string{rel}, false, fp)
		if errors.Is(err, ErrCopyStopped) {
			return nil, nil, err
		}
		if err != nil {
			if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
				if full == nil {
					full = map[string]bool{}
				}
				full[rel] = true
				continue
			}
			res.Problems = append(res.Problems, err.Error())
			continue
		}
		out[rel] = got[0].img
	}
	return out, full, nil
}

// fill sets e's kind, hash and link from what a read found; false when
// the path is no longer a file or link.
func (e *baseEntry) fill(img Image, maxBlob int64) bool {
	switch img.Kind {
	case ImageContent, ImageSkipped:
		sum, err := blobOf(img)
		if err != nil {
			return false
		}
		e.sum = sum
		e.kind = baseFile
		if img.Kind == ImageSkipped {
			e.kind = baseSkipped
		}
		// The size and mode read are the truth; the stat before the read
		// may be older, and then differs next time and is read again.
		// The size goes with the hash into the records: a file that grew
		// between the stat and the read must not be recorded as the
		// read's hash at the stat's size, which no blob matches.
		e.size, e.mode = img.Size, uint32(permOnly(img.Mode))
		return true
	case ImageLink:
		e.kind, e.link = baseLink, img.Link
		return true
	}
	return false
}

// sameContent reports whether two entries hold the same bytes (or link)
// and mode.
func (e *baseEntry) sameContent(o *baseEntry) bool {
	if e.mode != o.mode || (e.kind == baseDir) != (o.kind == baseDir) {
		return false
	}
	switch {
	case e.kind == baseLink || o.kind == baseLink:
		return e.kind == o.kind && e.link == o.link
	case e.kind == baseSpecial || o.kind == baseSpecial:
		return e.kind == o.kind // a pipe written to: only its stat moved
	}
	return e.sum == o.sum
}

// image is e as a record's image.
func (e *baseEntry) image(maxBlob int64) Image {
	if nestedGit(e) {
		return Image{Kind: ImageSkipped, Reason: nestedGitReason}
	}
	switch e.kind {
	case baseDir:
		return Image{Kind: ImageDir, Mode: record.PermMode(e.mode)}
	case baseLink:
		return Image{Kind: ImageLink, Link: e.link}
	case baseSpecial:
		return Image{Kind: specialImage(e.mode), Mode: record.PermMode(e.mode & 0o7777)}
	case baseSkipped:
		return Image{Kind: ImageSkipped, SHA256: e.sum, Size: e.size, Mode: record.PermMode(e.mode),
			Reason: fmt.Sprintf("%s over the %s limit", humanBytes(e.size), humanBytes(maxBlob))}
	}
	return Image{Kind: ImageContent, SHA256: e.sum, Size: e.size, Mode: record.PermMode(e.mode), Kept: true}
}

// nestedGit reports whether e is the .git folder of a repository nested
// in the project (a clone inside it). Its history is not kept: reading
// every object of every nested clone on each first sweep, and recording
// each `git` command's writes there, would cost more than it is worth,
// and a repository can be cloned again. But its loss is never silent: a
// command that removes it records it as skipped, so a rewind's plan and
// preview list it as not restorable, and the rewind exits 3.
func nestedGit(e *baseEntry) bool {
	return e.kind == baseDir && (e.path == ".git" || strings.HasSuffix(e.path, "/.git"))
}

const nestedGitReason = "a nested git repository's history is not kept; clone it again"
