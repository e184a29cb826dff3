package store

import (
	"errors"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
)

func TestParseBlobID(t *testing.T) {
	good := hashHex([]byte("hello\n"))
	for _, tc := range []struct {
		name string
		in   string
		ok   bool
	}{
		{"sha256", good, true},
		{"zeros", strings.Repeat("0", 64), true},
		{"empty", "", false},
		{"short", good[:63], false},
		{"long", good + "0", false},
		{"upper", strings.ToUpper(good), false},
		{"not hex", "g" + good[1:], false},
		{"not hex at the end", good[:63] + "G", false},
		{"path", "../" + good[3:], false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := ParseBlobID(tc.in)
			if (err == nil) != tc.ok {
				t.Fatalf("ParseBlobID(%q) = %v, %v; want ok=%v", tc.in, id, err, tc.ok)
			}
			if !tc.ok {
				if !errors.Is(err, ErrCorrupt) || id != (BlobID{}) {
					t.Fatalf("ParseBlobID(%q) = %v, %v; want the zero id and ErrCorrupt", tc.in, id, err)
				}
				return
			}
			if id.String() != tc.in || id.Short() != tc.in[:12] {
				t.Fatalf("String() = %q, Short() = %q; want %q", id.String(), id.Short(), tc.in)
			}
		})
	}
	if blob.Of([]byte("hello\n")).String() != good {
		t.Fatal("blobIDOf and hashHex disagree")
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
