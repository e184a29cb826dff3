package store

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
)

// BlobID names a blob: the SHA-256 of its bytes. Records, pack indexes
// and the names of loose blobs write it as 64 lowercase hex digits.
type BlobID = blob.ID

// ParseBlobID parses 64 lowercase hex digits. It is the one place a
// blob's name is checked: a name from a record, a pack's index or the
// blobs folder becomes a BlobID here, or is refused with ErrCorrupt.
func ParseBlobID(s string) (BlobID, error) { return blob.Parse(s) }

// blobOf is the blob img names. A content image read from a record
// always names one (a record naming none there could be is damaged); an
// image without one is refused with ErrCorrupt, as its name was before
// ids were typed.
func blobOf(img Image) (BlobID, error) {
	if img.SHA256.IsZero() {
		return BlobID{}, fmt.Errorf(`blob name "" is not 64 hex digits: %w`, ErrCorrupt)
	}
	return img.SHA256, nil
}

// blobText is an image's blob name as it read before ids were typed: ""
// for none. Plan ids and a plan's reasons are made of it.
func blobText(id BlobID) string {
	if id.IsZero() {
		return ""
	}
	return id.String()
}
