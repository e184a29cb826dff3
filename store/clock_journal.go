package store

import (
	"fmt"
	"hash/crc32"
	"os"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// The clock journal lets a load whose generation is older than the clock
// read only the turn files written since, not list and stat them all
// (see Summary in the package doc). Each holder of the store lock that
// took an order number appends, as it lets the lock go, one line: the
// clock it found, the last number it took, the turns folder's stat as it
// took the lock and as it leaves it, and the turn files it changed. The
// lines chain: each one's clock is the one before's number, and its
// folder as found the one before's as left. A writer that did not
// journal (a ckpt older than the journal, one killed holding the lock)
// or a change of the folder under nobody's number breaks the chain, and
// a load across the break lists the folder.

// journalFile is the clock journal; journalMagic its first line.
const (
	journalFile  = "clock.log"
	journalMagic = "ckpt-clock-log/1\n"
)

// journalMax bounds the journal: a writer that finds it longer keeps the
// newer half. A load from a generation older than what is kept lists the
// folder once. Tests lower it.
var journalMax = 256 << 10

// anyTurn is the name journaled by a writer that may have changed any
// turn file (prune, purge): a load from before it lists them all.
const anyTurn = "*"

// writerNote is what the holder of the store lock journals as it lets
// the lock go.
type writerNote struct {
	s        *Store
	before   storefs.Stat // the turns folder as the lock was taken
	prev, n  int64        // the clock before the first number taken, the last taken
	numbered bool
	names    []string // the turn files changed, as named in turns/
}

// hold starts the note of l, the store lock just taken exclusively.
func (s *Store) hold(l *lockFile) {
	w := &writerNote{s: s}
	w.before, _ = s.dir.StatAt("turns") // one missing is the zero stat, as at unlock
	l.w = w
	s.jmu.Lock()
	s.held = w
	s.jmu.Unlock()
}

// noteSeq notes that the lock's holder took number n, the clock having
// read prev, for a change of the turn file name ("" for none). Without a
// note (a caller not holding the lock) the number is journaled by nobody,
// which breaks the chain: loads list the folder.
func (s *Store) noteSeq(prev, n int64, name string) {
	s.jmu.Lock()
	w := s.held
	s.jmu.Unlock()
	if w == nil {
		return
	}
	if !w.numbered {
		w.prev, w.numbered = prev, true
	}
	w.n = n
	if name != "" {
		w.names = append(w.names, strings.TrimPrefix(name, "turns/"))
	}
}

// changeTurn takes an order number for a change of turn file name (or of
// anyTurn) made without a record: a torn tail cut, a purge's rewrite, a
// prune's removal. It is taken before the change, so a writer killed
// after it leaves the clock ahead of the journal. Caller holds the lock.
func (s *Store) changeTurn(name string) {
	s.nextSeq(s.clock().UnixNano(), name)
}

// flush appends the note's line; a holder that took no number but whose
// turns folder changed appends a line that breaks the chain.
func (w *writerNote) flush() {
	s := w.s
	s.jmu.Lock()
	if s.held == w {
		s.held = nil
	}
	s.jmu.Unlock()
	after, _ := s.dir.StatAt("turns")
	var line []byte
	switch {
	case w.numbered:
		line = appendJournalLine(nil, w, after)
	case after != w.before:
		line = []byte("changed\n") // by whom and how is not known
	default:
		return
	}
	s.appendJournal(line)
}

// appendJournal appends line, unsynced as the clock is: the boot in a
// generation covers a system crash, and a lost or torn line breaks the
// chain. Caller holds the lock.
func (s *Store) appendJournal(line []byte) {
	f, err := s.dir.OpenFile(journalFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	st, err := storefs.StatOf(f)
	if err != nil {
		f.Close()
		return
	}
	if st.Size == 0 {
		line = append([]byte(journalMagic), line...)
	}
	_, err = f.Write(line)
	f.Close()
	if err == nil && st.Size+int64(len(line)) > int64(journalMax) {
		s.trimJournal()
	}
}

// trimJournal keeps the newer half of the journal, renamed over it.
func (s *Store) trimJournal() {
	data, err := s.dir.ReadFile(journalFile)
	if err != nil {
		return
	}
	keep := data[len(data)/2:]
	if i := strings.IndexByte(string(keep), '\n'); i >= 0 {
		keep = keep[i+1:]
	} else {
		keep = nil
	}
	_ = storefs.WriteAtomic(s.dir, journalFile, append([]byte(journalMagic), keep...), 0o600, false) // left long, it is only read longer
}

// appendJournalLine appends w's line: prev, n, the folder's size, mtime,
// ctime and inode before and after, the names, and the crc32c of all
// that in hex.
func appendJournalLine(b []byte, w *writerNote, after storefs.Stat) []byte {
	start := len(b)
	b = fmt.Appendf(b, "%d %d %d %d %d %d %d %d %d %d", w.prev, w.n,
		w.before.Size, w.before.Mtime, w.before.Ctime, w.before.Ino,
		after.Size, after.Mtime, after.Ctime, after.Ino)
	for _, n := range w.names {
		b = append(b, ' ')
		b = append(b, n...)
	}
	return fmt.Appendf(b, " %08x\n", crc32.Checksum(b[start:], castagnoli))
}

// journalLine is one line of the journal, parsed.
type journalLine struct {
	prev, n       int64
	before, after storefs.Stat
	names         []string
}

// parseJournalLine parses a line without its newline; ok is false for a
// line that is not whole (torn, two run together, "changed").
func parseJournalLine(line string) (e journalLine, ok bool) {
	sp := strings.LastIndexByte(line, ' ')
	if sp < 0 {
		return e, false
	}
	sum, err := strconv.ParseUint(line[sp+1:], 16, 32)
	if err != nil || len(line)-sp-1 != 8 || uint32(sum) != crc32.Checksum([]byte(line[:sp]), castagnoli) {
		return e, false
	}
	f := strings.Split(line[:sp], " ")
	if len(f) < 10 {
		return e, false
	}
	var v [10]int64
	for i := range v {
		if v[i], err = strconv.ParseInt(f[i], 10, 64); err != nil {
			return e, false
		}
	}
	e.prev, e.n = v[0], v[1]
	e.before = storefs.Stat{Size: v[2], Mtime: v[3], Ctime: v[4], Ino: uint64(v[5])}
	e.after = storefs.Stat{Size: v[6], Mtime: v[7], Ctime: v[8], Ino: uint64(v[9])}
	e.names = f[10:]
	return e, true
}

// journalLines is the journal's whole lines, the magic checked and a
// torn last line left out: none when it is not one this version reads.
func journalLines(data []byte) string {
	text, ok := strings.CutPrefix(string(data), journalMagic)
	if !ok {
		return ""
	}
	return text[:strings.LastIndexByte(text, '\n')+1]
}

// journalSince is the turn files the journal says changed between
// generation base and g (both of this boot): walking back from g's clock
// and folder, each line must be the one that left them so, until base's
// are reached. ok is false when the chain breaks before that, or a line
// on the way names anyTurn.
func journalSince(data []byte, base, g turnsGen) (names []string, ok bool) {
	n, dir := g.clock, g.dir
	text := ""
	read := false
	for n != base.clock || dir != base.dir {
		if !read {
			text, read = journalLines(data), true
		}
		if text == "" {
			return nil, false
		}
		text = text[:len(text)-1]
		i := strings.LastIndexByte(text, '\n')
		e, ok := parseJournalLine(text[i+1:])
		text = text[:i+1]
		if !ok || e.n != n || e.after != dir || e.n <= base.clock {
			return nil, false
		}
		for _, name := range e.names {
			if name == anyTurn {
				return nil, false
			}
		}
		names = append(names, e.names...)
		n, dir = e.prev, e.before
	}
	return names, true
}

// journalVouches: the journal's last line left the clock and the folder
// as g found them, so nothing changed the folder since under nobody's
// number.
func journalVouches(data []byte, g turnsGen) bool {
	text := journalLines(data)
	if text == "" {
		return false
	}
	text = text[:len(text)-1]
	e, ok := parseJournalLine(text[strings.LastIndexByte(text, '\n')+1:])
	return ok && e.n == g.clock && e.after == g.dir
}
