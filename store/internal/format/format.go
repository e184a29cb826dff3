// Package format holds what every codec of the store's files shares: the
// errors a damaged or newer file gives, and the one check of a file's
// version. The store re-exports the errors, so callers test them as
// store.ErrCorrupt and store.ErrNewerFormat.
package format

import (
	"errors"
	"fmt"
)

// ErrCorrupt means a record or blob failed its check.
var ErrCorrupt = errors.New("store: damaged")

// ErrNewerFormat means a store file was written by a newer ckpt, in a
// version this one does not read. Nothing was changed; the wrapped message
// names the file and its version.
var ErrNewerFormat = errors.New("store: written by a newer ckpt")

// NewerFormat is the error CheckVersion returns; it unwraps to
// ErrNewerFormat.
type NewerFormat struct {
	File   string // as shown to the user; "" when the caller names it
	Format string // "record format", "pack format", …
	V      int    // the file's version
	Reads  int    // the newest this ckpt reads
}

func (e *NewerFormat) Error() string {
	if e.File == "" {
		return e.Why()
	}
	return e.File + " was " + e.Why()
}

// Why is the error without the file's name, for a finding that names it.
func (e *NewerFormat) Why() string {
	return fmt.Sprintf("written by a newer ckpt (%s v%d; this one reads v%d): upgrade ckpt", e.Format, e.V, e.Reads)
}

func (e *NewerFormat) Unwrap() error { return ErrNewerFormat }

// CheckVersion is the one check of a store file's version: file (as shown
// to the user) holds format at version v, and this ckpt reads versions up
// to newest. It errs with ErrNewerFormat when v is newer.
func CheckVersion(file, format string, v, newest int) error {
	if v > newest {
		return &NewerFormat{File: file, Format: format, V: v, Reads: newest}
	}
	return nil
}
