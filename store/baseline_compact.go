package store

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// Writing a new table costs the writer the table (a few hundred KiB on
// a tree of thousands of files), freeing the old one and its log, and
// the next flush of the file system. A sweep runs in a hook, while the
// agent waits on its command, so it leaves that to the background pass
// (Maintain): the pass writes a new table once the log is past its share
// of the table (logLimit), and a sweep only once the log is past
// sweepLogLimit, where no background pass ran for a long while (an
// agent with no end-of-turn event, a store used by hand).

// sweepLogLimit is the size the log may reach before a sweep writes a
// new table itself: four times its share, at least 256 KiB, at most
// 4 MiB (a sweep reads the whole log).
func sweepLogLimit(size int64) int64 {
	return 4 * logLimit(size)
}

// baselineDue reports whether the log is past its share of the table,
// for the background pass: two stats, no read.
func (s *Store) baselineDue() bool {
	tab, err := s.dir.Lstat(baselineFile)
	if err != nil || !tab.Mode().IsRegular() {
		return false
	}
	lg, err := s.dir.Lstat(baselineLog)
	if err != nil || !lg.Mode().IsRegular() {
		return false
	}
	return lg.Size() > logLimit(tab.Size())
}

// compactBaseline writes the baseline as a new table holding the log's
// changes, and drops the log, when the log is past its share: what a
// sweep would read is the same before and after (the same head, rules,
// recheck list and entries). It holds sweep.lock, as a sweep does, and
// blobs.lock shared inside it, so no sweep, prune or purge is between
// reading the baseline and replacing it. Like any table it is written
// through a temporary name and renamed into place: a crash leaves the
// old table with its log, or the new one. It reports whether it wrote.
func (s *Store) compactBaseline() (bool, error) {
	sl, err := s.sweepLock()
	if err != nil {
		return false, err
	}
	defer sl.unlock()
	bl, err := s.flock("blobs.lock", unix.LOCK_SH)
	if err != nil {
		return false, err
	}
	defer bl.unlock()
	old, err := s.openBaseline(true)
	if err != nil || old == nil {
		// Damaged or newer: the next sweep deals with it, as it would.
		return false, nil
	}
	defer old.close()
	src := old.src
	if src == nil {
		return false, nil
	}
	if src.table == nil || src.logBytes <= logLimit(src.size) {
		// A legacy file (a sweep turns it into a table), or whole frames
		// within their share: what makes the log long is what no reader
		// reads, and it goes, or it would keep the pass due.
		return false, s.dropUnread(src)
	}
	nb := &baseline{at: old.at, turn: old.turn, cmd: old.cmd, ops: old.ops, rules: old.rules, recheck: old.recheck}
	if err := s.writeBaselineFrom(old, nb, nil, nil, newFailpoint("compact-baseline")); err != nil {
		return false, err
	}
	return true, nil
}

// dropUnread removes what of baseline.log no reader reads, as the next
// sweep that writes would: a log that extends no table of src's
// (another generation's, which a compaction killed before it removed it
// leaves; one beside a legacy file; one that does not open as a log) is
// removed, and a torn tail past the last whole frame is cut off. Neither
// changes the baseline a sweep reads, so a crash at any point leaves it
// as it was. Caller holds sweep.lock.
func (s *Store) dropUnread(src *blSource) error {
	fi, err := s.dir.Lstat(baselineLog)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	if src.table == nil || src.logEnd == 0 {
		if err := s.dir.Remove(baselineLog); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errf("remove %s, which extends no baseline: %w", s.path(baselineLog), err)
		}
		return nil
	}
	if fi.Size() <= src.logEnd {
		return nil
	}
	f, err := s.dir.OpenFile(baselineLog, os.O_WRONLY, 0o600)
	if err != nil {
		return errf("cut the torn tail of %s: %w", s.path(baselineLog), err)
	}
	defer f.Close()
	if err := f.Truncate(src.logEnd); err != nil {
		return errf("cut the torn tail of %s: %w", s.path(baselineLog), err)
	}
	return nil
}
