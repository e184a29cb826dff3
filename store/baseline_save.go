package store

import (
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	bltab "github.com/ckpt-dev/ckpt/store/internal/baseline"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// A sweep writes only what it changed: the entries it put and removed,
// as one frame appended to the log. Once the log outgrows its share of
// the table (an eighth, between 64 KiB and 1 MiB) the background pass
// writes a new table, holding everything, and the log starts again (see
// baseline_compact.go); a sweep does so itself only past four times that
// share: each entry is rewritten a bounded number of times per its
// changes, and no sweep reads more than 4 MiB of log.

// logLimit is the size the log may reach beside a table of size bytes
// before the background pass writes a new table.
func logLimit(size int64) int64 {
	return min(max(size/8, 64<<10), 1<<20)
}

// baselineDelta compares a sweep's next entries with the old ones it
// covered (both in path order): what to put, and the paths to remove.
// An entry of next that is an old one (the same pointer) is unchanged
// unless touched names its index.
func baselineDelta(old []baseEntry, touched []int32, next []*baseEntry) (puts []*baseEntry, dels []string) {
	var moved map[int]bool
	if len(touched) > 0 {
		moved = map[int]bool{}
		for _, k := range touched {
			moved[int(k)] = true
		}
	}
	i, j := 0, 0
	for i < len(old) || j < len(next) {
		switch {
		case j == len(next) || i < len(old) && old[i].path < next[j].path:
			dels = append(dels, old[i].path)
			i++
		case i == len(old) || next[j].path < old[i].path:
			puts = append(puts, next[j])
			j++
		default:
			if next[j] != &old[i] && *next[j] != old[i] || moved[i] {
				puts = append(puts, next[j])
			}
			i, j = i+1, j+1
		}
	}
	return puts, dels
}

// needsRecheck reports whether e's stat, taken by a sweep that began at
// at, cannot vouch for it at the next sweep: a file or folder changed
// within racyWindow of it (but for a ctime own says ckpt's read left:
// see ownCtime), a folder whose listing left something out, a file that
// could not be read. own may be nil: no ctime is ckpt's.
func needsRecheck(e *baseEntry, at int64, own func(*baseEntry) bool) bool {
	return e.kind == baseDir && e.ino == 0 || e.kind == baseUnknown ||
		e.mtime >= at-racyWindow || e.ctime >= at-racyWindow && (own == nil || !own(e))
}

// recheckOf lists the entries of next that need looking at again.
func recheckOf(next []*baseEntry, at int64, own func(*baseEntry) bool) []string {
	var out []string
	for _, e := range next {
		if needsRecheck(e, at, own) {
			out = append(out, e.path)
		}
	}
	return out
}

// newGen is a fresh generation for a table: a log naming another is not
// its own.
func newGen() []byte {
	g := make([]byte, bltab.GenLen)
	_, _ = rand.Read(g) // never fails (crypto/rand)
	return g
}

// saveSweep writes a sweep's next baseline nb against old: a frame of
// what it put and removed appended to the log, or, when there is no
// table of version 5 to extend, the log would pass sweepLogLimit or the
// frame alone its share, a new table (from nb.list when it holds every
// entry, else old with the changes).
func (s *Store) saveSweep(old, nb *baseline, rulesMoved bool, puts []*baseEntry, dels []string, fp *failpoint) error {
	if old != nil && old.src != nil && old.src.table != nil {
		src := old.src
		frame := bltab.AppendFrame(nil, appendFrameBody(nb, rulesMoved, old.recheck, puts, dels))
		// One frame past the log's whole share costs what a table does:
		// it is written as one.
		if n := int64(len(frame)); n <= logLimit(src.size) && src.logBytes+n <= sweepLogLimit(src.size) {
			return s.appendLog(src, frame, fp)
		}
	}
	if nb.list != nil || old == nil {
		return s.writeBaseline(nb, fp)
	}
	return s.writeBaselineFrom(old, nb, puts, dels, fp)
}

// appendLog appends one frame to the log, first cutting a torn tail
// back to the last whole frame; without a log of this table's
// generation it writes a new one whole, in place of any other.
func (s *Store) appendLog(src *blSource, frame []byte, fp *failpoint) error {
	if src.logEnd == 0 {
		data := append(bltab.LogHeader(baselineLogMagic, src.gen), frame...)
		fp.tear(func() { _ = storefs.WriteAtomic(s.dir, baselineLog, data[:len(data)/2], 0o600, false) })
		if err := storefs.WriteAtomic(s.dir, baselineLog, data, 0o600, false); err != nil {
			return errf("write %s: %w", s.path(baselineLog), err)
		}
		fp.hit()
		return nil
	}
	f, err := s.dir.OpenFile(baselineLog, os.O_WRONLY, 0o600)
	if err != nil {
		return errf("write %s: %w", s.path(baselineLog), err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > src.logEnd {
		if err := f.Truncate(src.logEnd); err != nil {
			return errf("write %s: %w", s.path(baselineLog), err)
		}
		fp.hit()
	}
	fp.tear(func() { _, _ = f.WriteAt(frame[:len(frame)/2], src.logEnd) })
	if _, err := f.WriteAt(frame, src.logEnd); err != nil {
		// A part written is a torn frame, which readers pass over and
		// the next writer cuts.
		return errf("write %s: %w", s.path(baselineLog), err)
	}
	fp.hit()
	return nil
}

// writeBaseline replaces the baseline with a table of b's entries (b.list
// when set, else b.entries) and drops the log.
func (s *Store) writeBaseline(b *baseline, fp *failpoint) error {
	i := 0
	next := func() *baseEntry {
		if b.list != nil {
			if i < len(b.list) {
				i++
				return b.list[i-1]
			}
			return nil
		}
		if i < len(b.entries) {
			i++
			return &b.entries[i-1]
		}
		return nil
	}
	return s.replaceTable(b, next, fp)
}

// writeBaselineFrom replaces the baseline with a table of old's entries
// with puts and dels applied, read from old's file as they are written.
func (s *Store) writeBaselineFrom(old, nb *baseline, puts []*baseEntry, dels []string, fp *failpoint) error {
	if old.src == nil || old.loaded {
		// Every entry is in old.entries: lay them out with the changes.
		it := mergeIter(func() func() *baseEntry {
			i := 0
			return func() *baseEntry {
				if i < len(old.entries) {
					i++
					return &old.entries[i-1]
				}
				return nil
			}
		}(), puts, dels)
		return s.replaceTable(nb, it, fp)
	}
	src := old.src
	src.mu.Lock()
	defer src.mu.Unlock()
	bi := &blIter{s: src}
	bi.seek("")
	it := mergeIter(bi.next, puts, dels)
	err := s.replaceTable(nb, it, fp)
	if err == nil && bi.err != nil {
		err = bi.err
	}
	return err
}

// mergeIter hands out base's entries with puts (sorted by path) put in
// and the paths dels left out.
func mergeIter(base func() *baseEntry, puts []*baseEntry, dels []string) func() *baseEntry {
	gone := make(map[string]bool, len(dels))
	for _, d := range dels {
		gone[d] = true
	}
	cur := base()
	j := 0
	return func() *baseEntry {
		for cur != nil && gone[cur.path] {
			cur = base()
		}
		switch {
		case cur == nil && j == len(puts):
			return nil
		case cur == nil || j < len(puts) && puts[j].path < cur.path:
			j++
			return puts[j-1]
		case j < len(puts) && puts[j].path == cur.path:
			cur = base()
			j++
			return puts[j-1]
		}
		e := cur
		cur = base()
		return e
	}
}

// replaceTable writes a new table (a fresh generation) through a
// temporary name and renames it over the baseline, then removes the log,
// which no longer extends it. It is not fsynced: after a power loss an
// older baseline, or a torn one (refused by its checks), costs only
// reading again, since the records it would have spared are durable
// already. Callers make the blobs it names durable first.
func (s *Store) replaceTable(b *baseline, next func() *baseEntry, fp *failpoint) error {
	tmp := ".tmp-" + storefs.RandHex(8)
	f, err := s.dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		err = writeTable(func(p []byte) error { return storefs.Write(f, baselineFile, p) }, b, newGen(), next)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		fp.hit()
		if err == nil {
			err = s.dir.Rename(tmp, baselineFile)
		}
		if err != nil {
			_ = s.dir.Remove(tmp)
		}
	}
	if err != nil {
		return errf("write %s: %w", s.path(baselineFile), err)
	}
	fp.hit()
	if err := s.dir.Remove(baselineLog); err != nil && !errors.Is(err, fs.ErrNotExist) {
		// A log left over names the old generation: readers pass it over.
		s.LogError("remove %s: %v", s.path(baselineLog), err)
	}
	fp.hit()
	return nil
}

// saveBaseline replaces the baseline with b whole (a purge, a test).
func (s *Store) saveBaseline(b *baseline) error {
	if b.recheck == nil {
		next := b.list
		if next == nil {
			next = make([]*baseEntry, len(b.entries))
			for i := range b.entries {
				next[i] = &b.entries[i]
			}
		}
		b.recheck = recheckOf(next, b.at, nil)
	}
	return s.writeBaseline(b, &failpoint{})
}

// loadBaselineHead reads the baseline's head (when, the turn and
// command, ops.log's size): all a sweep needs to see that it has
// nothing to do, read without its entries (a few hundred bytes of the
// table and the log's last frame). rest opens it for lookups (see
// openBaseline) into b. b is nil when there is none or it is damaged.
func (s *Store) loadBaselineHead() (b *baseline, rest func() error, err error) {
	b, err = s.openBaseline(false)
	if b == nil || err != nil {
		return nil, nil, err
	}
	b.close()
	b.src = nil
	return b, func() error {
		// The sweep lock is held: the file is the one whose head was read.
		all, err := s.openBaseline(true)
		if err != nil {
			return err
		}
		if all == nil {
			return errf("%s: %w", s.path(baselineFile), errBadBaseline)
		}
		*b = *all
		return nil
	}, nil
}

// loadBaseline reads the baseline whole; nil when there is none or it
// is damaged (the sweep then reads every file, and says so). One of a
// newer version is ErrNewerFormat.
func (s *Store) loadBaseline() (*baseline, error) {
	b, err := s.openBaseline(true)
	if b == nil || err != nil {
		return nil, err
	}
	defer b.close()
	if err := b.full(); err != nil {
		return nil, errf("%s: %w", s.path(baselineFile), err)
	}
	b.src, b.loaded = nil, false
	return b, nil
}

// tear counts one file operation, as hit does; when it is the one to
// kill at, write runs first (part of what was to be written: a torn
// write, as a crash in the middle of it leaves).
func (f *failpoint) tear(write func()) {
	if f.at == 0 {
		return
	}
	if f.n.Add(1) == f.at {
		write()
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}

// sortedPuts orders a sweep's puts by path, as a frame and mergeIter
// want them.
func sortedPuts(puts []*baseEntry) {
	if !slices.IsSortedFunc(puts, func(a, b *baseEntry) int { return strings.Compare(a.path, b.path) }) {
		slices.SortFunc(puts, func(a, b *baseEntry) int { return strings.Compare(a.path, b.path) })
	}
}

// sweptHead is the head of the baseline a sweep leaves: when it was
// taken, and the turn and command whose sweep it was.
func sweptHead(res *SweepResult, old *baseline, ws *watchSweep, self owner, start, ops int64, rules map[string][]byte) *baseline {
	nb := &baseline{at: start, turn: self.turn, cmd: self.cmd, ops: ops, rules: rules}
	if res.Turn != "" {
		nb.turn = string(res.Turn) // a continuation (T.2): the agent goes on in it
	}
	if ws != nil && res.Turn == "" && old != nil {
		// ckpt watch recorded nothing: the hooks' last sweep still
		// says which turn's command may be running.
		nb.turn, nb.cmd = old.turn, old.cmd
	}
	return nb
}
