package store

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestFileRecordEncoding checks appendFileRecord against encoding/json:
// the records of a capture or seal take the fast way, and any field set
// on them, including fields added to record after this test was written,
// is either written as encoding/json writes it or sends the record to
// encoding/json.
func TestFileRecordEncoding(t *testing.T) {
	img := func() *Image {
		return &Image{Kind: ImageContent, SHA256: strings.Repeat("ab", 32), Size: 12345, Mode: 0o644, Kept: true}
	}
	base := []struct {
		name string
		r    record
	}{
		{"pre", record{R: "pre", Path: "dir/a b.go", Img: img(), Dirs: []string{"dir"}, At: 1700000000000000000, N: 1700000000000000001}},
		{"post", record{R: "post", Path: "x", Img: img(), At: 5, N: 6}},
		{"absent", record{R: "pre", Path: "new/file", Img: &Image{Kind: ImageAbsent}, Dirs: []string{"new"}, At: -1}},
		{"link", record{R: "pre", Path: "l", Img: &Image{Kind: ImageLink, Link: "../t<&>\"\\"}}},
		{"skipped", record{R: "pre", Path: "big", Img: &Image{Kind: ImageSkipped, SHA256: strings.Repeat("0", 64), Size: 9 << 30, Reason: "9.0 GiB over the 8.0 MiB limit"}}},
		{"shell", record{R: "post", Path: "p", Img: img(), Cmd: "sed -i 's/a/b/' p\n\t\x01"}},
		{"names", record{R: "pre", Path: "é/\u2028/\x7f/日本", Img: img(), Dirs: []string{"é", "\x00b64:gA=="}}},
		{"bare", record{R: "pre"}},
	}
	check := func(t *testing.T, r *record, wantFast bool) {
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
			v := reflect.ValueOf(&tc.r).Elem()
			for i := 0; i < v.NumField(); i++ {
				r := tc.r
				if tc.r.Img != nil {
					r.Img = img()
					*r.Img = *tc.r.Img
				}
				f := reflect.ValueOf(&r).Elem().Field(i)
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
	line := appendRecord(nil, &base[0].r)
	res := decodeRecords(line)
	if len(res.recs) != 1 || res.torn || !reflect.DeepEqual(res.recs[0], base[0].r) {
		t.Fatalf("appendRecord wrote %q, read back as %+v (torn %v)", line, res.recs, res.torn)
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
