// Package blob names the store's blobs: an ID is the SHA-256 of a blob's
// bytes, written as 64 lowercase hex digits in records, pack indexes and
// the names of loose blobs.
package blob

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/ckpt-dev/ckpt/store/internal/format"
)

// ID names a blob: the SHA-256 of its bytes. Records, pack indexes and
// the names of loose blobs write it as 64 lowercase hex digits.
type ID [32]byte

// Parse parses 64 lowercase hex digits. It is the one place a blob's name
// is checked: a name from a record, a pack's index or the blobs folder
// becomes an ID here, or is refused with format.ErrCorrupt.
func Parse(s string) (ID, error) {
	id, ok := Decode(s)
	if !ok {
		return ID{}, fmt.Errorf("blob name %q is not 64 hex digits: %w", s, format.ErrCorrupt)
	}
	return id, nil
}

// Decode is Parse for a string or bytes (a pack's index),
// reporting only whether they are an id. It checks and decodes in one
// pass: a store's packs name tens of thousands of blobs, each parsed when
// a process first reads a blob.
func Decode[T string | []byte](s T) (ID, bool) {
	var id ID
	if len(s) != 2*len(id) {
		return ID{}, false
	}
	for i := range id {
		hi, lo := lowerHex[s[2*i]], lowerHex[s[2*i+1]]
		if hi > 0xf || lo > 0xf {
			return ID{}, false
		}
		id[i] = hi<<4 | lo
	}
	return id, true
}

// lowerHex is the value of each lowercase hex digit; 0xff for any other
// byte.
var lowerHex = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c - '0'
	}
	for c := byte('a'); c <= 'f'; c++ {
		t[c] = c - 'a' + 10
	}
	return t
}()

// Of returns the id of data.
func Of(data []byte) ID { return sha256.Sum256(data) }

// String returns the id as records and file names write it.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id is the zero ID, which names no blob: an
// image without kept bytes (a folder, a link, a file too large to hash)
// has it, and records leave it out.
func (id ID) IsZero() bool { return id == ID{} }

// MarshalText writes id as records do: 64 lowercase hex digits.
func (id ID) MarshalText() ([]byte, error) {
	out := make([]byte, 2*len(id))
	hex.Encode(out, id[:])
	return out, nil
}

// UnmarshalText parses 64 lowercase hex digits, as Parse does; anything
// else is refused with format.ErrCorrupt, so a record naming no blob
// there could be is damaged as a whole.
func (id *ID) UnmarshalText(b []byte) error {
	v, ok := Decode(b)
	if !ok {
		return fmt.Errorf("blob name %q is not 64 hex digits: %w", b, format.ErrCorrupt)
	}
	*id = v
	return nil
}

// Short returns the first 12 hex digits, enough to name a blob in a
// message.
func (id ID) Short() string { return hex.EncodeToString(id[:6]) }
