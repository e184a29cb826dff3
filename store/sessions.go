package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"strings"
)

// SessionTurn returns the open turn recorded for an agent session key.
func (s *Store) SessionTurn(key string) (string, bool) {
	b, err := s.dir.ReadFile(sessionFile(key))
	if err != nil {
		return "", false
	}
	id := strings.TrimSpace(string(b))
	return id, id != ""
}

// SetSessionTurn records the open turn for an agent session key.
func (s *Store) SetSessionTurn(key, turn string) error {
	if err := s.dir.Mkdir("sessions", 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return errf("create %s: %w", s.path("sessions"), err)
	}
	if err := writeFileAtomic(s.dir, sessionFile(key), []byte(turn+"\n"), 0o600, false); err != nil {
		return errf("record session turn in %s: %w", s.path(sessionFile(key)), err)
	}
	return nil
}

func sessionFile(key string) string {
	h := sha256.Sum256([]byte(key))
	return "sessions/" + hex.EncodeToString(h[:12])
}
