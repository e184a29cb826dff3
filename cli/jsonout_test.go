package cli

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// With every name UTF-8, the JSON is byte for byte what store.Result
// encodes to; a name that is not adds its bytes beside it.
func TestResultJSONNames(t *testing.T) {
	r := &store.Result{Op: "op-3", Restored: []string{"a.txt", "b.txt"}, Deleted: []string{}, Kept: []string{"k"},
		Failed: []store.Failure{{Path: "f", Reason: "busy"}}, HandEdited: []string{}, Plan: "p1", Applied: true}
	want, _ := json.Marshal(r)
	got, _ := json.Marshal(newResultJSON(r))
	if string(got) != string(want) {
		t.Fatalf("UTF-8 names:\n got %s\nwant %s", got, want)
	}

	r.Restored = []string{"a.txt", "b\xff"}
	r.Failed = []store.Failure{{Path: "\xfe", Reason: "busy"}}
	got, _ = json.Marshal(newResultJSON(r))
	const wantBad = `{"op":"op-3","restored":["a.txt","b\ufffd"],"restored_b64":{"1":"Yv8="},"deleted":[],"kept":["k"],` +
		`"failed":[{"path":"\ufffd","path_b64":"/g==","reason":"busy"}],"hand_edited":[],"plan":"p1","applied":true}`
	if string(got) != wantBad {
		t.Fatalf("non-UTF-8 names:\n got %s\nwant %s", got, wantBad)
	}
	if failuresJSON(nil) != nil {
		t.Fatal("failuresJSON(nil) is not nil: log --json would print \"failed\": []")
	}
}

// jsonStrings are strings encoding/json escapes in every way it has.
var jsonStrings = []string{"", "plain", "turn 3: fix the <login> & a > b", `quote" back\slash`, "\x00\x01\x1f\x7f",
	"\b\f\n\r\t", "\xff\xfe", "é 日本 \U0001F600", "\u2028 and \u2029", "cut \xc3", "\xed\xa0\x80", "\xef\xbf\xbd",
	"/abs/path/transcript.jsonl", "2026-01-02T03:04:05.000000000Z"}

// fillJSON sets v, and what it holds, to values drawn from r, leaving
// some fields, pointers, lists and maps zero: a field added to logJSON
// gets values without this test knowing of it.
func fillJSON(t *testing.T, v reflect.Value, r *rand.Rand) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(jsonStrings[r.IntN(len(jsonStrings))])
	case reflect.Int:
		v.SetInt(int64(r.IntN(30) - 10))
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Pointer:
		if r.IntN(3) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			fillJSON(t, v.Elem(), r)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if r.IntN(4) > 0 {
				fillJSON(t, v.Field(i), r)
			}
		}
	case reflect.Slice:
		if n := r.IntN(5) - 1; n >= 0 {
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				fillJSON(t, v.Index(i), r)
			}
		}
	case reflect.Map:
		if n := r.IntN(5) - 1; n >= 0 {
			v.Set(reflect.MakeMap(v.Type()))
			for range n {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				fillJSON(t, k, r)
				fillJSON(t, e, r)
				v.SetMapIndex(k, e)
			}
		}
	default:
		t.Fatalf("a field of kind %s: fillJSON does not fill it", v.Kind())
	}
}

// log --json streams its elements through its own encoder: the bytes are
// the ones encoding/json gives the whole list, indented as printJSON
// indents it, for every field set or left out.
func TestLogJSONAsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 700} {
		list := make([]logJSON, n)
		for i := range list {
			fillJSON(t, reflect.ValueOf(&list[i]).Elem(), r)
		}
		var want, got bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			t.Fatal(err)
		}
		if err := writeJSONArray(&got, n, func(b []byte, i int) []byte { return list[i].appendJSON(b) }); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
			for i := range min(len(g), len(w)) {
				if g[i] != w[i] {
					t.Fatalf("%d elements: line %d is\n%q\nwhere encoding/json writes\n%q", n, i+1, g[i], w[i])
				}
			}
			t.Fatalf("%d elements: %d lines where encoding/json writes %d", n, len(g), len(w))
		}
	}
}

// appendJSONString writes each string as encoding/json does.
func FuzzJSONString(f *testing.F) {
	for _, s := range jsonStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s, encoding/json writes %s", s, got, want)
		}
	})
}

// formatAt writes every time as Format(atLayout) does.
func TestFormatAt(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	times := []time.Time{{}, time.Unix(0, 0), time.Unix(0, 1), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 4, 5, 6, 7, 8, time.FixedZone("x", 3600))}
	for range 1000 {
		times = append(times, time.Unix(0, r.Int64()), time.Unix(r.Int64N(1<<40)-1<<39, r.Int64N(1e9)))
	}
	for _, at := range times {
		if got, want := formatAt(at), at.UTC().Format(atLayout); got != want {
			t.Fatalf("%v: %s, where Format writes %s", at, got, want)
		}
	}
}
