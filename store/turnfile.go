package store

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/format"
	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// readTurnFile parses one turn file for a writer holding the lock, cutting
// a torn last record so the next append starts on a clean line.
func (s *Store) readTurnFile(id string, cut bool) (*turn, bool, error) {
	name := turnFileName(id)
	data, err := s.dir.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, errf("read %s: %w", s.path(name), err)
	}
	res := record.Decode(data)
	t := newTurn(id)
	for i := range res.Recs {
		t.apply(&res.Recs[i])
	}
	// A newer ckpt's file is refused as it is: its last line may be a
	// record this version cannot read, not a torn one.
	if err := format.CheckVersion(s.path(name), "record format", t.v, formatVersion); err != nil {
		return nil, false, err
	}
	if res.Torn && cut {
		s.changeTurn(name)
		if err := storefs.TruncateDurably(s.dir, name, res.Good); err != nil {
			return nil, false, errf("cut the torn record at the end of %s: %w", s.path(name), err)
		}
	}
	return t, t.at != 0, nil
}

// incarnation finds the turn a capture naming id goes to: id itself, or,
// when id was rewound, the first of id.2, id.3, … that is not. Caller
// holds the lock.
func (s *Store) incarnation(id string) (string, error) {
	if _, err := ParseTurnID(id); err != nil {
		return "", err
	}
	s.mu.Lock()
	ops, err := s.readOps()
	v := newView()
	if err == nil {
		v.replay(ops)
	}
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	for k := 1; ; k++ {
		cand := id
		if k > 1 {
			cand = id + "." + strconv.Itoa(k)
		}
		if !v.rewound[cand] {
			return cand, nil
		}
	}
}

// lockTurn takes the store's lock for a writer appending records to the
// turn asked for: it finds the incarnation they go to (see incarnation)
// and reads its file, cutting a torn last record. The caller unlocks; on
// an error nothing is held.
func (s *Store) lockTurn(asked string) (*lockFile, string, *turn, bool, error) {
	l, err := s.lock()
	if err != nil {
		return nil, "", nil, false, err
	}
	id, err := s.incarnation(asked)
	if err != nil {
		l.unlock()
		return nil, "", nil, false, err
	}
	t, exists, err := s.readTurnFile(id, true)
	if err != nil {
		l.unlock()
		return nil, "", nil, false, err
	}
	return l, id, t, exists, nil
}

func (s *Store) appendTurn(id string, buf []byte, created bool) error {
	name := turnFileName(id)
	if err := storefs.AppendDurable(s.dir, name, buf); err != nil {
		if created {
			_ = s.dir.Remove(name) // held nothing before: no turn is left half made
		}
		return errf("append to %s: %w", s.path(name), err)
	}
	if created {
		if err := storefs.SyncDir(s.dir, "turns"); err != nil {
			return errf("sync %s: %w", s.path("turns"), err)
		}
	}
	return nil
}

// NewTurn starts a turn with the next short numeric id ("1", "2", …).
func (s *Store) NewTurn(meta TurnMeta) (TurnID, error) {
	if err := s.ensureDirs(); err != nil {
		return "", err
	}
	l, err := s.lock()
	if err != nil {
		return "", err
	}
	defer l.unlock()
	return s.newTurn(meta)
}

// newTurn is NewTurn with the lock held.
func (s *Store) newTurn(meta TurnMeta) (TurnID, error) {
	id, n, err := s.freeTurn()
	if err != nil {
		return "", err
	}
	now := s.clock().UnixNano()
	buf := s.appendTurnRecord(nil, id, meta.Label, meta.Source, now, s.nextSeq(now, turnFileName(id)))
	s.writeSeq(n)
	if err := s.appendTurnSynced(id, buf, &failpoint{}); err != nil {
		return "", err
	}
	return TurnID(id), nil
}

// freeTurn finds the next short numeric id no turn file holds; the
// caller writes the turn's first records and then the seq file (n).
// Caller holds the lock.
func (s *Store) freeTurn() (id string, n int, err error) {
	n = s.lastNumber()
	for bad := 0; ; {
		n++
		id := strconv.Itoa(n)
		_, exists, err := s.readTurnFile(id, true)
		if err != nil {
			// A turn file that cannot be read is skipped, not reused; but
			// a store where every one fails (a folder that cannot be
			// read) must fail the call, not spin under the lock.
			if bad++; bad >= newTurnTries {
				return "", 0, errf("new turn: %d turn files in a row could not be read, the last: %w", bad, err)
			}
			continue
		}
		if !exists {
			return id, n, nil
		}
	}
}

// newTurnTries bounds the unreadable turn files NewTurn steps over.
const newTurnTries = 32

// clockFile holds the last order number handed out (record.N).
const clockFile = "clock"

// turnHeader appends the record that opens turn id's file, asked for as
// turn: a continuation (T.2) keeps the label and source of T unless new
// ones were given.
func (s *Store) turnHeader(buf []byte, turn, id string, meta TurnMeta, now, n int64) []byte {
	if id != turn && meta.Label == "" && meta.Source == nil {
		if orig, ok, _ := s.readTurnFile(turn, false); ok {
			meta = TurnMeta{Label: orig.label, Source: orig.source}
		}
	}
	return s.appendTurnRecord(buf, id, meta.Label, meta.Source, now, n)
}

// nextSeq hands out the order number of records committed now: greater
// than every one before it, so turns and operations keep the order in
// which they were committed even when the wall clock steps back (a VM
// resumed, WSL). It is the wall clock while that moves forward, so a lost
// update of the clock file costs nothing unless the clock steps back at
// the same time; hence it is written in place, without a sync (replacing
// it through a rename cost more than the rest of a capture). Caller holds
// the lock, and names the turn file it changes ("" for none), which the
// lock's note journals (see clock_journal.go).
func (s *Store) nextSeq(now int64, name string) int64 {
	f, err := s.dir.OpenFile(clockFile, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		s.noteSeq(-1, now, name) // no clock to chain from: the chain breaks
		return now
	}
	defer f.Close()
	var buf [24]byte
	k, _ := f.ReadAt(buf[:], 0)
	line, _, _ := strings.Cut(string(buf[:k]), "\n")
	last, _ := strconv.ParseInt(line, 10, 64)
	n := now
	if last < math.MaxInt64 && last+1 > n {
		n = last + 1
	}
	// Fixed width: the number is always the whole file.
	_, _ = f.WriteAt(fmt.Appendf(nil, "%020d\n", n), 0) // n still orders this call; a failed write only leaves the older number
	s.noteSeq(last, n, name)
	return n
}

// writeSeq records n as the last short turn id handed out. Like the clock
// it is written in place, fixed width, without a sync: it is a hint, and
// renaming a new file over it costs a hook more than the rest of opening
// a turn (the file system flushes a file replaced by a rename). A lost or
// torn update costs nothing: NewTurn skips ids whose file exists, and a
// number that does not parse sends lastNumber to the turn files. Caller
// holds the lock.
func (s *Store) writeSeq(n int) {
	f, err := s.dir.OpenFile("seq", os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	_, _ = f.WriteAt(fmt.Appendf(nil, "%020d\n", n), 0) // n still orders this call; a failed write only leaves the older number
	f.Close()
}

// lastNumber is the highest numeric turn id handed out: from the seq file,
// or, when it is missing, from the turn files and the seed index.
func (s *Store) lastNumber() int {
	if b, err := s.dir.ReadFile("seq"); err == nil {
		line, _, _ := strings.Cut(string(b), "\n")
		if n, err := strconv.Atoi(strings.TrimSpace(line)); err == nil {
			return n
		}
	}
	n := 0
	list, _ := storefs.Names(s.dir, "turns")
	for _, name := range list {
		if k, err := strconv.Atoi(strings.TrimSuffix(name, ".log")); err == nil && k > n {
			n = k
		}
	}
	if seed, err := s.parseSeed(); err == nil {
		for _, t := range seed {
			if k, err := strconv.Atoi(t.id); err == nil && k > n {
				n = k
			}
		}
	}
	return n
}
