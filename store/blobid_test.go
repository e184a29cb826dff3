package store

import (
	"errors"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
)

// TestParseBlobID: the store's ParseBlobID is the blob package's, and
// what it refuses is ErrCorrupt as callers of the store test it (the
// cases are in store/internal/blob).
func TestParseBlobID(t *testing.T) {
	good := hashHex([]byte("hello\n"))
	if id, err := ParseBlobID(good); err != nil || id.String() != good {
		t.Fatalf("ParseBlobID(%q) = %v, %v", good, id, err)
	}
	if blob.Of([]byte("hello\n")).String() != good {
		t.Fatal("blob.Of and hashHex disagree")
	}
	if _, err := ParseBlobID("../" + good[3:]); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("ParseBlobID of a path: %v, want ErrCorrupt", err)
	}
}

// mustBlobID parses a blob id a test made.
func mustBlobID(t testing.TB, s string) BlobID {
	t.Helper()
	id, err := ParseBlobID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
