package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// An agent's file tool writes a path between a capture and a seal in its
// own turn, which then holds the change whole: what the path held before
// and what the tool left. Made while another session's shell command
// runs, that write is also one of the changes the command's closing
// sweep finds, and given to the command's turn it would be taken out by
// a revert of that turn: another session's edit, silently gone. So
// every capture and seal is noted in edits.log, and a sweep that finds such a path changed leaves it to
// the edit's turn when the edits noted account for the whole change
// (from what the baseline holds to what is there now, each seal taking
// up where the one before left it, none of them still being written);
// otherwise the command may have written it too, and the path goes to
// the command's turn shared with the edits' turns, as a change no single
// command owns, which a revert treats as a conflict. Notes are appended
// under the store's lock, and a sweep reads them under it, held until
// its records are written: a seal that lands while the sweep reads the
// tree is seen, never recorded as the command's alone.
//
// A capture is noted whatever runs when it is made, and its seal too:
// a command may begin between the two, and what the tool writes then
// is the tool's, though nothing ran when it captured. A capture not
// sealed since is a writer of its path for every sweep, however old,
// until openMax has passed: a tool call whose seal never comes (its
// agent killed mid-call) stops counting then, as a command without its
// closing sweep does. Notes made while nothing of another turn runs are
// not synced: a crash that loses one ends the call it was for.

// editsFile notes the captures and seals of file tools: one JSON
// object a line, appended under the store's lock; a sweep drops the
// notes it settled.
const editsFile = "edits.log"

// editNote is one path of a capture or a seal noted in edits.log. A
// capture has neither image; a seal has both: Was, what the turn held of
// the path before the write (its last seal, else its capture), and
// Left, what the tool left.
type editNote struct {
	Turn string `json:"turn"`
	Path string `json:"path"`
	At   int64  `json:"at"`
	Was  *Image `json:"was,omitempty"`
	Left *Image `json:"left,omitempty"`
	line string // the line as read, to drop it by
}

// otherRunning reports whether open lists a command of a turn other
// than id (a continuation counts as its turn).
func otherRunning(open []openCmd, id string) bool {
	return slices.ContainsFunc(open, func(c openCmd) bool {
		return c.Turn != id && !strings.HasPrefix(id, c.Turn+".")
	})
}

// othersRunning reports whether a sweep may give a write of turn id's
// file tool to another turn: a command of another turn runs now, as
// open.json lists it (read without sweep.lock: it is replaced whole,
// never written in place), or the last sweep was made for another turn,
// whose next sweep after a command (or at its end) covers what changed
// since, with no sweep before to take this write for a hand edit.
func (s *Store) othersRunning(id string, now int64) bool {
	open, _ := s.loadOpen(now)
	if otherRunning(open, id) {
		return true
	}
	swept, _ := s.SweptTurn()
	return swept != "" && otherRunning([]openCmd{{Turn: string(swept)}}, id)
}

// captureNotes is the edits a capture notes: every path asked for that
// the turn holds, about to be written.
func captureNotes(asked []string, tp *turnPaths) []editNote {
	var out []editNote
	for _, rel := range asked {
		if tp.has(rel) {
			out = append(out, editNote{Path: rel})
		}
	}
	return out
}

// noteEdits appends notes, the paths a capture or a seal of turn id
// just recorded, to edits.log; synced when a command of another turn
// runs (othersRunning). Caller holds the store's lock. A note that
// cannot be written only costs the edit its place as its turn's alone:
// it is logged.
func (s *Store) noteEdits(id string, notes []editNote, now int64, synced bool) {
	var buf []byte
	for _, n := range notes {
		n.Turn, n.At = id, now
		b, err := json.Marshal(n)
		if err != nil {
			continue
		}
		buf = append(append(buf, b...), '\n')
	}
	if len(buf) == 0 {
		return
	}
	if tornTail(s.dir, editsFile) {
		// A note a crash or a full disk cut short ends its own line, to
		// be dropped alone, not with this one.
		buf = append([]byte{'\n'}, buf...)
	}
	write := storefs.Append
	if synced {
		write = storefs.AppendDurable // as the turn's own record is
	}
	if err := write(s.dir, editsFile, buf); err != nil {
		s.LogError("note the edits of turn %s in %s: %v", id, s.path(editsFile), err)
	}
}

// tornTail reports whether the file name in dir ends inside a line.
func tornTail(dir *storefs.Dir, name string) bool {
	f, err := dir.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false
	}
	var last [1]byte
	_, err = f.ReadAt(last[:], fi.Size()-1)
	return err == nil && last[0] != '\n'
}

// edits is what a sweep read of edits.log: the notes, in the order
// they were written, and whether some line is to go whatever the sweep
// settles (damaged, or older than openMax: every command it could
// matter to has stopped counting as running).
type edits struct {
	notes []editNote
	stale bool
}

// loadEdits reads edits.log. Caller holds sweep.lock, and the store's
// lock when the sweep settles by what it reads (see settle).
func (s *Store) loadEdits(now int64) edits {
	var e edits
	b, err := s.dir.ReadFile(editsFile)
	if err != nil {
		return e
	}
	for len(b) > 0 {
		k := bytes.IndexByte(b, '\n')
		if k < 0 {
			break // being appended
		}
		n, ok := parseNote(b[:k], now)
		b = b[k+1:]
		if !ok {
			e.stale = true
			continue
		}
		e.notes = append(e.notes, n)
	}
	return e
}

// parseNote reads one line of edits.log; false when it does not parse or
// is older than openMax.
func parseNote(line []byte, now int64) (editNote, bool) {
	var n editNote
	if json.Unmarshal(line, &n) != nil || n.Path == "" || n.Turn == "" || now-n.At > int64(openMax) {
		return n, false
	}
	n.line = string(line)
	return n, true
}

// sameState reports whether two images are one state of a path: the
// same bytes (or link, or absence) and, for a file or folder, mode.
func sameState(a, b Image) bool {
	if !sameBytes(a, b) {
		return false
	}
	switch a.Kind {
	case ImageContent, ImageSkipped, ImageDir:
		return a.Mode == b.Mode
	}
	return true
}

// settleEdits goes through a sweep's records against the edits noted
// (see above): a path whose change the edits account for whole is left
// out (the edits' turns hold it) and held, and one they account for in
// part names their turns as sharing it.
func settleEdits(recs []shellRec, notes []editNote) (rest []shellRec, held map[string]bool) {
	if len(notes) == 0 || len(recs) == 0 {
		return recs, nil
	}
	byPath := map[string][]editNote{}
	for _, n := range notes {
		byPath[n.Path] = append(byPath[n.Path], n)
	}
	out := recs[:0]
	for _, r := range recs {
		ns := byPath[r.path]
		if len(ns) == 0 {
			out = append(out, r)
			continue
		}
		if editsAccount(r, ns) {
			if held == nil {
				held = map[string]bool{}
			}
			held[r.path] = true
			continue
		}
		for _, n := range ns {
			if !slices.Contains(r.with, n.Turn) {
				r.with = append(r.with, n.Turn)
			}
		}
		out = append(out, r)
	}
	return out, held
}

// holdBack keeps in the next baseline what the old one held of the
// paths held (their change is an edit's, in its turn), while a command
// of another turn runs on: a later change of one by it is then recorded
// from what the path held before the edit, shared with the edit's turn,
// so the command's turn has the path as it was before both, for a
// rewind. Its stat is dropped, so each sweep reads it again; a path the
// old baseline lacked stays out of it. The notes of a held path stay
// until a sweep with no such command running lets the baseline take it.
func (m *sweepMerge) holdBack(now []*baseEntry, held map[string]bool) {
	if len(held) == 0 {
		return
	}
	for _, c := range m.changes {
		if c.now == nil || !held[c.now.path] {
			continue
		}
		if c.old == nil {
			c.now.kind = 0 // nextBaseline leaves it out
			if d := findIn(now, parentDir(c.now.path)); d != nil && d.kind == baseDir {
				d.mtime, d.ctime, d.ino = 0, 0, 0
			}
			continue
		}
		n := c.now
		n.kind, n.sum, n.size, n.mode, n.link = c.old.kind, c.old.sum, c.old.size, c.old.mode, c.old.link
		n.mtime, n.ctime, n.ino = 0, 0, 0
	}
}

// sharedFor is the turns a record of turn (written to incarnation id)
// names as sharing its change: the other owners (shared), and the turns
// whose edits it holds a part of (with).
func sharedFor(shared, with []string, turn, id string) []string {
	if len(with) == 0 {
		return shared
	}
	out := slices.Clone(shared)
	for _, w := range with {
		if w != turn && w != id && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// editsAccount reports whether the edits ns, in order, take r's path
// from its pre-image to its post: each seal starts from what the one
// before left (the first from the pre-image), none is still being
// written (captured and not sealed since), and the last left the post.
func editsAccount(r shellRec, ns []editNote) bool {
	if r.noPost {
		return false
	}
	cur := r.pre
	open := map[string]bool{}
	for _, n := range ns {
		if n.Left == nil || n.Was == nil {
			open[n.Turn] = true
			continue
		}
		if !sameState(*n.Was, cur) {
			return false
		}
		cur = *n.Left
		delete(open, n.Turn)
	}
	return len(open) == 0 && sameState(cur, r.post)
}

// pruneEdits drops from edits.log the notes a sweep that began at start
// settled: those made before it, of paths it did not leave to a running
// command (left) nor hold back (held), and not still being written. A note made since it
// began may be of a write its listing missed, and stays for the next
// sweep. Caller holds sweep.lock; it takes the store's lock, so no note
// is appended between its reading the file again and replacing it.
func (s *Store) pruneEdits(e edits, start int64, left []leftPath, held map[string]bool) {
	notes := e.notes
	if len(notes) == 0 && !e.stale {
		return
	}
	writing := map[[2]string]bool{}
	for _, n := range notes {
		writing[[2]string{n.Turn, n.Path}] = n.Left == nil
	}
	drop := map[string]bool{}
	for _, n := range notes {
		kept := held[n.Path] || slices.ContainsFunc(left, func(l leftPath) bool { return l.Path == n.Path })
		if n.At < start && !kept && !writing[[2]string{n.Turn, n.Path}] {
			drop[n.line] = true
		}
	}
	if len(drop) == 0 && !e.stale {
		return
	}
	s.filterEdits("sweep", start, func(n editNote) bool { return !drop[n.line] })
}

// forgetEdits drops from edits.log the notes of turn (and of its
// continuations), which has ended: no capture of it is still being
// written. Caller holds sweep.lock, and knows no command of another
// turn runs and the last sweep was not another turn's (othersRunning):
// no sweep is to settle them.
func (s *Store) forgetEdits(turn string, now int64) {
	if _, err := s.dir.Lstat(editsFile); err != nil {
		return
	}
	s.filterEdits("end turn "+turn, now, func(n editNote) bool {
		return n.Turn != turn && !strings.HasPrefix(n.Turn, turn+".")
	})
}

// filterEdits rewrites edits.log with the notes keep keeps, dropping
// too those that do not parse or are older than openMax at now. It
// takes the store's lock, so no note is appended between its reading
// the file and replacing it. what names the caller in the error log.
func (s *Store) filterEdits(what string, now int64, keep func(editNote) bool) {
	l, err := s.lock()
	if err != nil {
		s.LogError("%s: %v", what, err)
		return
	}
	defer l.unlock()
	b, err := s.dir.ReadFile(editsFile)
	if err != nil {
		return
	}
	total := len(b)
	var kept []byte
	for len(b) > 0 {
		k := bytes.IndexByte(b, '\n')
		if k < 0 {
			break // torn: never to be read
		}
		if n, ok := parseNote(b[:k], now); ok && keep(n) {
			kept = append(kept, b[:k+1]...)
		}
		b = b[k+1:]
	}
	if len(kept) == total {
		return // nothing to drop
	}
	if len(kept) == 0 {
		if err := s.dir.Remove(editsFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.LogError("%s: remove %s: %v", what, s.path(editsFile), err)
		}
		return
	}
	if err := storefs.WriteAtomic(s.dir, editsFile, kept, 0o600, false); err != nil {
		s.LogError("%s: write %s: %v", what, s.path(editsFile), err)
	}
}
