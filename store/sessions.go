package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// OpenTurn returns the open turn of an agent session key, opening one
// with meta (and recording it for the session) when the session has none.
// The look-up and the opening happen under hook.lock, so parallel tool
// calls of one prompt, which fire parallel hooks, open one turn. When the
// lock cannot be had it goes on, and says so in the error log: the worst
// outcome is a second turn for one prompt.
func (s *Store) OpenTurn(session string, meta TurnMeta) (TurnID, error) {
	turn, unlock, err := s.openTurn(session, meta)
	unlock()
	return turn, err
}

// openTurn is OpenTurn, returning with hook.lock still held when it took
// it (the session had no turn); unlock releases it, and is never nil.
func (s *Store) openTurn(session string, meta TurnMeta) (turn TurnID, unlock func(), err error) {
	unlock = func() {}
	if turn, ok := s.SessionTurn(session); ok {
		return TurnID(turn), unlock, nil
	}
	if u, err := s.LockSessions(); err == nil {
		unlock = u
	} else {
		s.LogError("open a turn for %s: %v", meta.agent(), err)
	}
	if turn, ok := s.SessionTurn(session); ok {
		return TurnID(turn), unlock, nil
	}
	turn, err = s.NewTurn(meta)
	if err != nil {
		return "", unlock, errf("open a turn: %w", err)
	}
	if err := s.SetSessionTurn(session, string(turn)); err != nil {
		return "", unlock, errf("record turn %s for the session: %w", turn, err)
	}
	return turn, unlock, nil
}

// StartTurn opens a new turn with meta for a prompt and records it as the
// open turn of meta.Session, in one call, under hook.lock: a parallel
// tool call of the session joins it, and opens none of its own. When the
// lock cannot be had it goes on, and says so in the error log, as
// OpenTurn does. meta.Session must be named.
func (s *Store) StartTurn(meta TurnMeta) (TurnID, error) {
	if meta.Session == "" {
		return "", errf("start a turn: no session named")
	}
	if unlock, err := s.LockSessions(); err == nil {
		defer unlock()
	} else {
		s.LogError("start a turn for %s: %v", meta.agent(), err)
	}
	turn, err := s.NewTurn(meta)
	if err != nil {
		return "", errf("start a turn: %w", err)
	}
	if err := s.SetSessionTurn(meta.Session, string(turn)); err != nil {
		return "", errf("record turn %s for the session: %w", turn, err)
	}
	return turn, nil
}

// BeginWrite is a file tool's step before it writes, in one call: it
// finds the open turn of meta.Session, opening one labelled label when the
// session has none (as OpenTurn does), and captures paths in it as
// Capture does, returning the turn used. When it opens the turn, hook.lock
// is held until the paths are captured, so a parallel call of the same
// session joins a turn that already holds the first call's captures.
// meta.Session must be named.
func (s *Store) BeginWrite(meta TurnMeta, label string, paths []string) (TurnID, error) {
	if meta.Session == "" {
		return "", errf("capture %s: no session named", strings.Join(paths, ", "))
	}
	// Capture takes blobs.lock and the turn's lock inside hook.lock:
	// nothing takes hook.lock while holding either.
	turn, unlock, err := s.openTurn(meta.Session, TurnMeta{Label: label, Source: meta.Source})
	defer unlock()
	if err != nil {
		return "", err
	}
	return s.Capture(turn, meta, paths)
}

// ErrNoOpenTurn means a session has no open turn to seal a write in: the
// step before the write (BeginWrite) never came.
var ErrNoOpenTurn = errors.New("no turn open")

// EndWrite is a file tool's step after it wrote, in one call: paths are
// sealed, as Seal does, in the open turn of session, which it returns. A
// session with none is ErrNoOpenTurn, and nothing is sealed.
func (s *Store) EndWrite(session string, paths []string) (TurnID, error) {
	open, ok := s.SessionTurn(session)
	if !ok {
		return "", ErrNoOpenTurn
	}
	turn := TurnID(open)
	return turn, s.Seal(turn, paths)
}

// agent names where a turn came from, for the error log.
func (m TurnMeta) agent() string {
	if m.Source != nil && m.Source.Agent != "" {
		return m.Source.Agent
	}
	return "the session"
}

// followed records used as the open turn of meta's session when a call
// for turn moved on to a continuation of it (T.2).
func (s *Store) followed(meta TurnMeta, turn, used TurnID) error {
	if meta.Session == "" || used == "" || used == turn {
		return nil
	}
	if err := s.SetSessionTurn(meta.Session, string(used)); err != nil {
		return errf("record turn %s for the session: %w", used, err)
	}
	return nil
}

// SessionTurn returns the open turn recorded for an agent session key.
// A file under the key's older name (a single turn id, rewritten whole)
// was written by an older ckpt after this one last wrote, since this one
// removes it: it holds the newest turn.
func (s *Store) SessionTurn(key string) (string, bool) {
	if b, err := s.dir.ReadFile(legacySessionFile(key)); err == nil {
		id := strings.TrimSpace(string(b))
		return id, id != ""
	}
	b, err := s.dir.ReadFile(sessionFile(key))
	if err != nil {
		return "", false
	}
	id := lastLine(b)
	return id, id != ""
}

// lastLine is the last whole line of a session file that is not empty,
// trimmed: a line still being appended (no newline yet) does not count.
func lastLine(b []byte) string {
	for {
		end := bytes.LastIndexByte(b, '\n')
		if end < 0 {
			return ""
		}
		b = b[:end]
		if line := strings.TrimSpace(string(b[bytes.LastIndexByte(b, '\n')+1:])); line != "" {
			return line
		}
	}
}

// sessionMax is the size past which a session file is rewritten with its
// newest line alone.
const sessionMax = 4 << 10

// SetSessionTurn records the open turn for an agent session key. It
// appends a line to the session's file, newest last: a write that cannot
// tear what a reader takes (a partial line does not count) and that costs
// a hook less than renaming a new file over the old, which makes the file
// system flush it. A write cut short is cut off again; past sessionMax,
// or when appending fails, the file is replaced by the newest line.
func (s *Store) SetSessionTurn(key, turn string) error {
	if err := s.dir.Mkdir("sessions", 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return errf("create %s: %w", s.path("sessions"), err)
	}
	name := sessionFile(key)
	if err := s.appendSession(name, turn); err != nil {
		if err := storefs.WriteAtomic(s.dir, name, []byte(turn+"\n"), 0o600, false); err != nil {
			return errf("record session turn in %s: %w", s.path(name), err)
		}
	}
	// An older ckpt reads only the older name: without it, it opens a
	// turn of its own rather than writing into a turn id it misreads.
	if err := s.dir.Remove(legacySessionFile(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errf("record session turn: remove %s: %w", s.path(legacySessionFile(key)), err)
	}
	return nil
}

// appendSession appends turn as a line of the session file name, starting
// a line of its own after a writer cut off mid-line.
func (s *Store) appendSession(name, turn string) error {
	f, err := s.dir.OpenFile(name, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() >= sessionMax {
		return errf("%s is full", name)
	}
	line := []byte(turn + "\n")
	if fi.Size() > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], fi.Size()-1); err != nil {
			return err
		}
		if last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	if _, err := f.Write(line); err != nil {
		_ = f.Truncate(fi.Size()) // no part of this line stays to be read
		return err
	}
	return nil
}

// sessionFile is where the turns of an agent session key are appended;
// legacySessionFile the older name, holding one turn id.
func sessionFile(key string) string { return legacySessionFile(key) + ".turns" }

func legacySessionFile(key string) string {
	h := sha256.Sum256([]byte(key))
	return "sessions/" + hex.EncodeToString(h[:12])
}
