package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/format"
)

// TestPackIndexLines: an index line is read only in the form the writer
// writes; anything else makes the pack unreadable rather than misread.
func TestPackIndexLines(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{sum + " 12 3 7", true},
		{sum + " 12 0 0", true},
		{sum + "  12 3 7", false},
		{sum + " 12 3 7 ", false},
		{sum + " 12 3", false},
		{sum + " 12 3 7 1", false},
		{sum + " +12 3 7", false},
		{sum + " 12 -3 7", false},
		{sum + " 12 3 1234567890123456789", false},
		{sum + "\t12 3 7", false},
		{strings.ToUpper(sum) + " 12 3 7", false},
		{sum[:62] + " 12 3 7", false},
		{sum + " 11 3 7", false}, // before the frames
		{sum + " 12 4 7", false}, // past them
	} {
		t.Run(tc.line[60:], func(t *testing.T) {
			var b bytes.Buffer
			b.WriteString(Header)
			b.WriteString("fra")
			ioff := b.Len()
			idx := tc.line + "\n"
			b.WriteString(idx)
			b.WriteString(Magic)
			var n [8]byte
			binary.BigEndian.PutUint64(n[:], uint64(ioff))
			b.Write(n[:])
			binary.BigEndian.PutUint64(n[:], uint64(len(idx)))
			b.Write(n[:])
			binary.BigEndian.PutUint32(n[:4], crc32.Checksum([]byte(idx), castagnoli))
			b.Write(n[:4])
			b.WriteString(End)
			p := filepath.Join(t.TempDir(), "x.pack")
			if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			ents, err := ReadIndex(f, int64(b.Len()))
			if (err == nil) != tc.ok {
				t.Fatalf("ReadIndex: %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, format.ErrCorrupt) {
				t.Fatalf("ReadIndex: %v, want format.ErrCorrupt", err)
			}
			if tc.ok && (len(ents) != 1 || ents[0].Sum.String() != sum || ents[0].Off != 12) {
				t.Fatalf("read %+v", ents)
			}
		})
	}
}
