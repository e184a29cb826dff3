package store

import (
	"crypto/sha256"
	"encoding/hex"
)

// BlobID names a blob: the SHA-256 of its bytes. Records, pack indexes
// and the names of loose blobs write it as 64 lowercase hex digits.
type BlobID [32]byte

// ParseBlobID parses 64 lowercase hex digits. It is the one place a
// blob's name is checked: a name from a record, a pack's index or the
// blobs folder becomes a BlobID here, or is refused with ErrCorrupt.
func ParseBlobID(s string) (BlobID, error) {
	var id BlobID
	if len(s) != 2*len(id) {
		return BlobID{}, errf("blob name %q is not 64 hex digits: %w", s, ErrCorrupt)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return BlobID{}, errf("blob name %q is not 64 hex digits: %w", s, ErrCorrupt)
		}
	}
	hex.Decode(id[:], []byte(s))
	return id, nil
}

// blobIDOf returns the id of data.
func blobIDOf(data []byte) BlobID { return sha256.Sum256(data) }

// String returns the id as records and file names write it.
func (id BlobID) String() string { return hex.EncodeToString(id[:]) }

// Short returns the first 12 hex digits, enough to name a blob in a
// message.
func (id BlobID) Short() string { return hex.EncodeToString(id[:6]) }
