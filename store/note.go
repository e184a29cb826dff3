package store

import (
	"encoding/json"
	"errors"
	"io/fs"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// A note is a small JSON file in the store naming what an operation has
// under way (folders it opened, files it gave read permission), so that
// the ckpt after a crash can finish it.

// writeNote writes v as JSON to the store's file name, durably: through a
// temporary file renamed into place, then the store folder synced, so a
// crash leaves the old note or the new one, never a torn one.
func (s *Store) writeNote(name string, v any) error {
	b, err := json.Marshal(v)
	if err == nil {
		err = storefs.WriteAtomic(s.dir, name, b, 0o600, true)
	}
	if err == nil {
		err = storefs.SyncDir(s.dir, ".")
	}
	return err
}

// readNote reads the store's file name as JSON into v. It reports false,
// with no error, when there is no such note.
func (s *Store) readNote(name string, v any) (bool, error) {
	b, err := s.dir.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	return err == nil, err
}
