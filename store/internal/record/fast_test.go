package record

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestFileRecordEncoding checks appendFileRecord against encoding/json:
// the records of a capture or seal take the fast way, and any field set
// on them, including fields added to Line after this test was written,
// is either written as encoding/json writes it or sends the record to
// encoding/json.
func TestFileRecordEncoding(t *testing.T) {
	img := func() *Image {
		return &Image{Kind: ImageContent, SHA256: testID(strings.Repeat("ab", 32)), Size: 12345, Mode: 0o644, Kept: true}
	}
	base := []struct {
		name string
		r    Line
	}{
		{"pre", Line{R: "pre", File: File{Path: "dir/a b.go", Img: img(), Dirs: []string{"dir"}}, At: 1700000000000000000, N: 1700000000000000001}},
		{"post", Line{R: "post", File: File{Path: "x", Img: img()}, At: 5, N: 6}},
		{"absent", Line{R: "pre", File: File{Path: "new/file", Img: &Image{Kind: ImageAbsent}, Dirs: []string{"new"}}, At: -1}},
		{"link", Line{R: "pre", File: File{Path: "l", Img: &Image{Kind: ImageLink, Link: "../t<&>\"\\"}}}},
		{"skipped", Line{R: "pre", File: File{Path: "big", Img: &Image{Kind: ImageSkipped, SHA256: testID(strings.Repeat("01", 32)), Size: 9 << 30, Reason: "9.0 GiB over the 8.0 MiB limit"}}}},
		{"shell", Line{R: "post", File: File{Path: "p", Img: img(), Cmd: "sed -i 's/a/b/' p\n\t\x01"}}},
		{"names", Line{R: "pre", File: File{Path: "é/\u2028/\x7f/日本", Img: img(), Dirs: []string{"é", "\x00b64:gA=="}}}},
		{"bare", Line{R: "pre"}},
	}
	check := func(t *testing.T, r *Line, wantFast bool) {
		t.Helper()
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendFileRecord([]byte("prefix"), r)
		if !ok {
			if wantFast {
				t.Fatalf("not encoded the fast way: %s", want)
			}
			return
		}
		if string(got) != "prefix"+string(want) {
			t.Fatalf("fast encoding differs:\n got %s\nwant prefix%s", got, want)
		}
	}
	for _, tc := range base {
		t.Run(tc.name, func(t *testing.T) {
			check(t, &tc.r, true)
			// Every other field, set on its own, is written right or refused.
			for _, field := range reflect.VisibleFields(reflect.TypeFor[Line]()) {
				if field.Anonymous {
					continue // a kind's group: its fields come one by one
				}
				r := tc.r
				if tc.r.Img != nil {
					r.Img = img()
					*r.Img = *tc.r.Img
				}
				f := reflect.ValueOf(&r).Elem().FieldByIndex(field.Index)
				setSample(f)
				check(t, &r, false)
				if r.Img != nil {
					iv := reflect.ValueOf(r.Img).Elem()
					for j := 0; j < iv.NumField(); j++ {
						r2 := r
						im := *r.Img
						r2.Img = &im
						setSample(reflect.ValueOf(&im).Elem().Field(j))
						check(t, &r2, false)
					}
				}
			}
		})
	}
	// A whole line: framed with the checksum of the JSON.
	line := Append(nil, &base[0].r)
	res := Decode(line)
	if len(res.Recs) != 1 || res.Torn || !reflect.DeepEqual(res.Recs[0], base[0].r) {
		t.Fatalf("Append wrote %q, read back as %+v (torn %v)", line, res.Recs, res.Torn)
	}
}

// setSample gives f a value other than its zero value.
func setSample(f reflect.Value) {
	switch f.Kind() {
	case reflect.String:
		f.SetString(f.String() + "s\"<")
	case reflect.Bool:
		f.SetBool(!f.Bool())
	case reflect.Int, reflect.Int64, reflect.Int32:
		f.SetInt(f.Int() + 7)
	case reflect.Uint32, reflect.Uint64:
		f.SetUint(f.Uint() + 7)
	case reflect.Slice:
		s := reflect.MakeSlice(f.Type(), 1, 1)
		setSample(s.Index(0))
		f.Set(s)
	case reflect.Pointer:
		p := reflect.New(f.Type().Elem())
		if p.Elem().Kind() == reflect.Struct && p.Elem().NumField() > 0 {
			setSample(p.Elem().Field(0))
		}
		f.Set(p)
	case reflect.Struct:
		if f.NumField() > 0 {
			setSample(f.Field(0))
		}
	}
}

// FuzzFastDecode: wherever the fast decoder accepts a record, it agrees
// with encoding/json.
func FuzzFastDecode(f *testing.F) {
	img := &Image{Kind: ImageContent, SHA256: testID(strings.Repeat("cd", 32)), Size: 1 << 40, Mode: 0o755, Kept: true}
	for _, r := range []*Line{
		{R: "turn", Turn: Turn{V: 1, ID: "fix.2", Label: "say \"hi\" \x1b[31m<tag> & é", Source: &Source{Agent: "claude", Session: "s", Prompt: "p"}, Head: "abc"}, At: -5},
		{R: "pre", File: File{Path: "a/b c.txt", Img: img, Dirs: []string{"a", "a/b"}}, At: 2},
		{R: "step", File: File{Path: "x", Img: &Image{Kind: ImageLink, Link: "../y"}, Want: &Image{Kind: ImageAbsent}, Do: ActDelete, Why: "w", Hand: true}},
		{R: "op", Turn: Turn{ID: "op-1"}, Op: Op{Kind: KindRewind, Target: "3", Turns: []string{"3", "4"}, Steps: 2, Rmdirs: []string{"d"}, Had: []string{}, Mkdirs: []string{"m"}}},
		{R: "done", Turn: Turn{ID: "op-1"}, Done: Done{Recovered: true}},
	} {
		line := Append(nil, r)
		f.Add(line[9 : len(line)-1])
	}
	f.Add([]byte(`{"r":"pre","at":01}`))
	f.Add([]byte(`{"r":"a","i":{"kind":"x"},"i":{"bytes":1},"source":{"agent":"a"},"source":{}}`))
	f.Add([]byte(`{"r":"pre","i":{"mode":-1}}`))
	f.Add([]byte(`{"r":"x\u0041","p":"\ud800"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast Line
		if !fastDecode(data, &fast) {
			return
		}
		var slow Line
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("fast decoder accepted what encoding/json refuses (%v): %q", err, data)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("decoders disagree on %q:\nfast %+v\nslow %+v", data, fast, slow)
		}
	})
}
