package record

import (
	"bytes"
	"hash/crc32"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
)

// FuzzDecodeRecords: the decoder never panics, never claims more good
// bytes than it was given, and what it decodes encodes and decodes again
// to the same records.
func FuzzDecodeRecords(f *testing.F) {
	img := &Image{Kind: ImageContent, SHA256: testID(strings.Repeat("ab", 32)), Size: 12, Mode: 0o644, Kept: true}
	good := Append(nil, &Line{R: "turn", Turn: Turn{V: 1, ID: "3", Label: "fix \x1b[2J login"}, At: 1})
	good = Append(good, &Line{R: "pre", File: File{Path: "src/a.go", Img: img, Dirs: []string{"src"}}, At: 2})
	f.Add(good)
	f.Add(good[:len(good)-7])
	f.Add([]byte("00000000 {}\n"))
	f.Add([]byte("\n\n\n"))
	f.Add([]byte("zzzzzzzz {\"r\":\"pre\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res := Decode(data)
		if res.Good < 0 || res.Good > int64(len(data)) {
			t.Fatalf("good = %d of %d bytes", res.Good, len(data))
		}
		if !res.Torn && res.Good != int64(len(data)) {
			t.Fatalf("not torn but good = %d of %d", res.Good, len(data))
		}
		var again []byte
		for i := range res.Recs {
			again = Append(again, &res.Recs[i])
		}
		res2 := Decode(again)
		if res2.Torn || len(res2.Bad) > 0 || len(res2.Recs) != len(res.Recs) {
			t.Fatalf("re-encoded records do not decode cleanly: %+v", res2)
		}
		for i := range res.Recs {
			if !reflect.DeepEqual(res.Recs[i], res2.Recs[i]) {
				t.Fatalf("record %d changed: %+v → %+v", i, res.Recs[i], res2.Recs[i])
			}
		}
	})
}

// TestDecodeTorn: a torn last record is reported and excluded from the
// good prefix; a damaged middle record is skipped, not cut.
func TestDecodeTorn(t *testing.T) {
	a := Append(nil, &Line{R: "turn", Turn: Turn{V: 1, ID: "1"}, At: 1})
	b := Append(nil, &Line{R: "pre", File: File{Path: "x", Img: &Image{Kind: ImageAbsent}}, At: 2})
	c := Append(nil, &Line{R: "post", File: File{Path: "x", Img: &Image{Kind: ImageAbsent}}, At: 3})
	cases := []struct {
		name      string
		data      []byte
		recs      int
		good      int
		torn, bad bool
	}{
		{"whole", cat(a, b, c), 3, len(a) + len(b) + len(c), false, false},
		{"unterminated tail", cat(a, b, c[:len(c)-1]), 2, len(a) + len(b), true, false},
		{"half a record", cat(a, b[:5]), 1, len(a), true, false},
		{"bad checksum at the end", cat(a, flip(b)), 1, len(a), true, false},
		{"bad checksum in the middle", cat(a, flip(b), c), 2, len(a) + len(b) + len(c), false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Decode(tc.data)
			if len(res.Recs) != tc.recs || res.Good != int64(tc.good) || res.Torn != tc.torn || (len(res.Bad) > 0) != tc.bad {
				t.Fatalf("got %d records, good %d, torn %v, bad %v; want %d, %d, %v, %v",
					len(res.Recs), res.Good, res.Torn, res.Bad, tc.recs, tc.good, tc.torn, tc.bad)
			}
		})
	}
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func flip(rec []byte) []byte {
	out := append([]byte(nil), rec...)
	out[12] ^= 0x01
	return out
}

// TestBlobNameChecked: a record whose image names no blob there could be
// (not 64 lowercase hex digits) is damaged as a whole, by either decoder;
// an image without a blob leaves "sha256" out.
func TestBlobNameChecked(t *testing.T) {
	good := Append(nil, &Line{R: "pre", File: File{Path: "a", Img: &Image{Kind: ImageContent, SHA256: testID(strings.Repeat("ab", 32))}}})
	if res := Decode(good); len(res.Recs) != 1 || res.Recs[0].Img.SHA256.String() != strings.Repeat("ab", 32) {
		t.Fatalf("a good name read back as %+v", res.Recs)
	}
	for _, name := range []string{"", "ab", strings.Repeat("AB", 32), strings.Repeat("ab", 31) + "zz"} {
		js := `{"r":"pre","p":"a","i":{"kind":"content","sha256":"` + name + `"}}`
		line := append(crcHex(js), js+"\n"...)
		if res := Decode(append(line, good...)); len(res.Recs) != 1 || len(res.Bad) != 1 {
			t.Errorf("sha256 %q: %d records, bad lines %v; want it damaged", name, len(res.Recs), res.Bad)
		}
	}
	if none := Append(nil, &Line{R: "pre", File: File{Path: "a", Img: &Image{Kind: ImageAbsent}}}); bytes.Contains(none, []byte("sha256")) {
		t.Errorf("an image without a blob is written %q", none)
	}
}

// crcHex is the frame's checksum of js and its space.
func crcHex(js string) []byte {
	var b [9]byte
	hexCRC(b[:8], crc32.Checksum([]byte(js), castagnoli))
	b[8] = ' '
	return b[:]
}

// The escape round-trips every name, and leaves valid UTF-8 alone.
func TestNameEscape(t *testing.T) {
	for _, n := range []string{"", "a.txt", "caf\u00e9/x", "bad\xff", "\xff\xfe", "a\ufffdb"} {
		e := EscName(n)
		if utf8ok := !strings.HasPrefix(e, nameEscape); utf8ok != (e == n) {
			t.Errorf("EscName(%q) = %q", n, e)
		}
		if back := UnescName(e); back != n {
			t.Errorf("UnescName(EscName(%q)) = %q", n, back)
		}
		l := []string{n}
		rec := Line{R: "pre", Turn: Turn{ID: n}, File: File{Path: n, Img: &Image{Kind: ImageLink, Link: n}, Want: &Image{Link: n}, Dirs: l}, Op: Op{Target: n, Rmdirs: l, Had: l, Mkdirs: l, Turns: l}, Done: Done{Failed: l, Fails: []Failure{{Path: n}}}}
		res := Decode(Append(nil, &rec))
		if len(res.Recs) != 1 || !reflect.DeepEqual(res.Recs[0], rec) {
			t.Errorf("record round trip of %q: %+v", n, res.Recs)
		}
		// Every string field of a record that can hold a name is escaped:
		// a new one must be added to mapNames.
		if js := Append(nil, &rec); !utf8.Valid(js) || (!utf8.ValidString(n) && bytes.Contains(js, []byte("\\ufffd"))) {
			t.Errorf("record of %q is written as %q", n, js)
		}
	}
	// A string that merely starts like an escape is never a name.
	if got := UnescName(nameEscape + "!!"); !strings.HasPrefix(got, "\x00") {
		t.Errorf("a broken escape became %q", got)
	}
}

// testID is the blob id of 64 hex digits.
func testID(hex string) blob.ID {
	id, ok := blob.Decode(hex)
	if !ok {
		panic("not a blob id: " + hex)
	}
	return id
}
