package store

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzDecodeRecords: the decoder never panics, never claims more good
// bytes than it was given, and what it decodes encodes and decodes again
// to the same records.
func FuzzDecodeRecords(f *testing.F) {
	img := &Image{Kind: ImageContent, SHA256: strings.Repeat("ab", 32), Size: 12, Mode: 0o644, Kept: true}
	good := appendRecord(nil, &record{R: "turn", V: 1, ID: "3", Label: "fix \x1b[2J login", At: 1})
	good = appendRecord(good, &record{R: "pre", Path: "src/a.go", Img: img, Dirs: []string{"src"}, At: 2})
	f.Add(good)
	f.Add(good[:len(good)-7])
	f.Add([]byte("00000000 {}\n"))
	f.Add([]byte("\n\n\n"))
	f.Add([]byte("zzzzzzzz {\"r\":\"pre\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res := decodeRecords(data)
		if res.good < 0 || res.good > int64(len(data)) {
			t.Fatalf("good = %d of %d bytes", res.good, len(data))
		}
		if !res.torn && res.good != int64(len(data)) {
			t.Fatalf("not torn but good = %d of %d", res.good, len(data))
		}
		var again []byte
		for i := range res.recs {
			again = appendRecord(again, &res.recs[i])
		}
		res2 := decodeRecords(again)
		if res2.torn || len(res2.bad) > 0 || len(res2.recs) != len(res.recs) {
			t.Fatalf("re-encoded records do not decode cleanly: %+v", res2)
		}
		for i := range res.recs {
			if !reflect.DeepEqual(res.recs[i], res2.recs[i]) {
				t.Fatalf("record %d changed: %+v → %+v", i, res.recs[i], res2.recs[i])
			}
		}
	})
}

// TestDecodeTorn: a torn last record is reported and excluded from the
// good prefix; a damaged middle record is skipped, not cut.
func TestDecodeTorn(t *testing.T) {
	a := appendRecord(nil, &record{R: "turn", V: 1, ID: "1", At: 1})
	b := appendRecord(nil, &record{R: "pre", Path: "x", Img: &Image{Kind: ImageAbsent}, At: 2})
	c := appendRecord(nil, &record{R: "post", Path: "x", Img: &Image{Kind: ImageAbsent}, At: 3})
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
			res := decodeRecords(tc.data)
			if len(res.recs) != tc.recs || res.good != int64(tc.good) || res.torn != tc.torn || (len(res.bad) > 0) != tc.bad {
				t.Fatalf("got %d records, good %d, torn %v, bad %v; want %d, %d, %v, %v",
					len(res.recs), res.good, res.torn, res.bad, tc.recs, tc.good, tc.torn, tc.bad)
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

// FuzzRel: whatever the path, Rel either refuses it or returns a clean
// relative path that stays inside the root and outside the store.
func FuzzRel(f *testing.F) {
	root := f.TempDir()
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	os.Symlink("/etc", filepath.Join(root, "out"))
	os.Symlink("a", filepath.Join(root, "in"))
	s, err := Open(root, Options{Create: true})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	for _, seed := range []string{"a/b/c.txt", "../x", "/etc/passwd", "a/../../x", root + "/a/b", root + "/../x",
		".osfoundry/checkpoints/lock", "out/passwd", "in/b/c", "./a//b/", "", ".", "a/./..", "\x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, p string) {
		rel, err := s.Rel(p)
		if err != nil {
			return
		}
		if rel == "" || rel == "." || strings.HasPrefix(rel, "/") || rel == ".." || strings.HasPrefix(rel, "../") ||
			strings.Contains(rel, "/../") || strings.HasSuffix(rel, "/..") {
			t.Fatalf("Rel(%q) = %q escapes the root", p, rel)
		}
		if rel == ".osfoundry" || strings.HasPrefix(rel, ".osfoundry/") {
			t.Fatalf("Rel(%q) = %q is inside the store", p, rel)
		}
		// Writing through the store's root must never land outside it.
		full := filepath.Join(root, filepath.FromSlash(rel))
		if !strings.HasPrefix(full, root+string(filepath.Separator)) {
			t.Fatalf("Rel(%q) = %q joins to %q outside %q", p, rel, full, root)
		}
	})
}

// TestRelRefuses names the paths that must be refused.
func TestRelRefuses(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, p := range []string{"../x", "/etc/passwd", "a/../../x", "", ".", ".osfoundry/checkpoints/lock", filepath.Dir(root) + "/x"} {
		if rel, err := s.Rel(p); err == nil {
			t.Errorf("Rel(%q) = %q, want refusal", p, rel)
		}
	}
	for p, want := range map[string]string{"a/b.txt": "a/b.txt", root + "/a/./b.txt": "a/b.txt", "a/../c": "c"} {
		if rel, err := s.Rel(p); err != nil || rel != want {
			t.Errorf("Rel(%q) = %q, %v; want %q", p, rel, err, want)
		}
	}
}

// FuzzFastDecode: wherever the fast decoder accepts a record, it agrees
// with encoding/json.
func FuzzFastDecode(f *testing.F) {
	img := &Image{Kind: ImageContent, SHA256: strings.Repeat("cd", 32), Size: 1 << 40, Mode: 0o755, Kept: true}
	for _, r := range []*record{
		{R: "turn", V: 1, ID: "fix.2", Label: "say \"hi\" \x1b[31m<tag> & é", Source: &Source{Agent: "claude", Session: "s", Prompt: "p"}, Head: "abc", At: -5},
		{R: "pre", Path: "a/b c.txt", Img: img, Dirs: []string{"a", "a/b"}, At: 2},
		{R: "step", Path: "x", Img: &Image{Kind: ImageLink, Link: "../y"}, Want: &Image{Kind: ImageAbsent}, Do: ActDelete, Why: "w", Hand: true},
		{R: "op", ID: "op-1", Kind: KindRewind, Target: "3", Turns: []string{"3", "4"}, Steps: 2, Rmdirs: []string{"d"}, Had: []string{}, Mkdirs: []string{"m"}},
		{R: "done", ID: "op-1", Recovered: true},
	} {
		line := appendRecord(nil, r)
		f.Add(line[9 : len(line)-1])
	}
	f.Add([]byte(`{"r":"pre","at":01}`))
	f.Add([]byte(`{"r":"a","i":{"kind":"x"},"i":{"bytes":1},"source":{"agent":"a"},"source":{}}`))
	f.Add([]byte(`{"r":"pre","i":{"mode":-1}}`))
	f.Add([]byte(`{"r":"x\u0041","p":"\ud800"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast record
		if !fastDecode(data, &fast) {
			return
		}
		var slow record
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("fast decoder accepted what encoding/json refuses (%v): %q", err, data)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("decoders disagree on %q:\nfast %+v\nslow %+v", data, fast, slow)
		}
	})
}
