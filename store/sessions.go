package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"strings"
)

// SessionTurn returns the open turn recorded for an agent session key.
func (s *Store) SessionTurn(key string) (string, bool) {
	b, err := s.dir.ReadFile(sessionFile(key))
	if err != nil {
		return "", false
	}
	id := lastLine(b)
	return id, id != ""
}

// lastLine is the last whole line of a session file, trimmed: a line
// still being appended (no newline yet) does not count.
func lastLine(b []byte) string {
	end := bytes.LastIndexByte(b, '\n')
	if end < 0 {
		return ""
	}
	return strings.TrimSpace(string(b[bytes.LastIndexByte(b[:end], '\n')+1 : end]))
}

// sessionMax is the size past which a session file is rewritten with its
// newest line alone.
const sessionMax = 4 << 10

// SetSessionTurn records the open turn for an agent session key. It
// appends a line to the session's file, newest last: a write that cannot
// tear what a reader takes (a partial line does not count) and that costs
// a hook less than renaming a new file over the old, which makes the file
// system flush it. Past sessionMax the file is replaced by its newest line.
func (s *Store) SetSessionTurn(key, turn string) error {
	if err := s.dir.Mkdir("sessions", 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return errf("create %s: %w", s.path("sessions"), err)
	}
	name := sessionFile(key)
	line := []byte(turn + "\n")
	f, err := s.dir.OpenFile(name, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err == nil {
		var fi os.FileInfo
		if fi, err = f.Stat(); err == nil && fi.Size() < sessionMax {
			// After a writer cut off mid-line, start a line of our own.
			var last [1]byte
			if fi.Size() > 0 {
				if _, rerr := f.ReadAt(last[:], fi.Size()-1); rerr == nil && last[0] != '\n' {
					line = append([]byte{'\n'}, line...)
				}
			}
			_, err = f.Write(line)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				return nil
			}
		} else {
			f.Close()
		}
	}
	if err := writeFileAtomic(s.dir, name, line, 0o600, false); err != nil {
		return errf("record session turn in %s: %w", s.path(name), err)
	}
	return nil
}

func sessionFile(key string) string {
	h := sha256.Sum256([]byte(key))
	return "sessions/" + hex.EncodeToString(h[:12])
}
