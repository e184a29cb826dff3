package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/pack"
	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// docSource is the package doc's files, doc.go and every doc*.go after
// it, one after another in the order go/doc reads them (by name).
func docSource(t *testing.T) string {
	t.Helper()
	names, err := filepath.Glob("doc*.go")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(src)
	}
	if b.Len() == 0 {
		t.Fatal("no doc*.go file")
	}
	return b.String()
}

// docText is the package doc as prose: the doc files' comment lines
// without their "//".
func docText(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.Split(docSource(t), "\n") {
		if rest, ok := strings.CutPrefix(line, "//"); ok {
			b.WriteString(strings.TrimPrefix(rest, " "))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// docObject is one JSON object the doc spells out, such as
// {"r":"pre","p":path,"i":image,…}: its keys (quoted strings that follow
// "{" or ","), in order, and the value of "r" when it gives one.
type docObject struct {
	keys []string
	r    string
}

// docObjects finds every object the doc spells out, nested ones included
// (their keys are not their parent's).
func docObjects(doc string) []docObject {
	var out []docObject
	for i := 0; i < len(doc); i++ {
		if doc[i] != '{' || !strings.HasPrefix(strings.TrimLeft(doc[i+1:], " \n"), `"`) {
			continue
		}
		var o docObject
		depth := 0
		prev := byte('{') // the last character outside a string, not space
		for j := i + 1; j < len(doc) && depth >= 0; j++ {
			switch c := doc[j]; c {
			case ' ', '\n', '\t':
			case '{', '[':
				depth++
				prev = c
			case '}', ']':
				depth--
				prev = c
			case '"':
				end := strings.IndexByte(doc[j+1:], '"')
				if end < 0 {
					j = len(doc)
					break
				}
				s := doc[j+1 : j+1+end]
				if depth == 0 {
					switch prev {
					case '{', ',':
						o.keys = append(o.keys, s)
					case ':':
						if len(o.keys) > 0 && o.keys[len(o.keys)-1] == "r" {
							o.r = s
						}
					}
				}
				j += end + 1
				prev = '"'
			default:
				prev = c
			}
		}
		if len(o.keys) > 1 || o.r == "" {
			out = append(out, o) // {"r":"op"} alone names a record, not its keys
		}
	}
	return out
}

// jsonKeys lists the JSON keys of struct type t's fields, with each
// field's "in" tag; the fields of an embedded struct (a record kind's
// group) are t's own, as encoding/json writes them.
func jsonKeys(t reflect.Type) (keys []string, in map[string][]string) {
	in = map[string][]string{}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		keys = append(keys, name)
		if k := f.Tag.Get("in"); k != "" {
			in[name] = strings.Split(k, ",")
		}
	}
	return keys, in
}

// sameKeys reports what one side has and the other lacks.
func sameKeys(t *testing.T, what string, code, doc []string) {
	t.Helper()
	for _, k := range code {
		if !slices.Contains(doc, k) {
			t.Errorf("%s: the package doc does not give %q", what, k)
		}
	}
	for _, k := range doc {
		if !slices.Contains(code, k) {
			t.Errorf("%s: the package doc gives %q, which the code has not", what, k)
		}
	}
}

// The records the package doc describes have the keys the code writes: each kind
// of record ("r") has the keys whose fields' "in" tags name it, and
// images, sources and failures the keys of their structs.
func TestDocRecordKeys(t *testing.T) {
	objs := docObjects(docText(t))
	keys, in := jsonKeys(reflect.TypeFor[record.Line]())
	kinds := map[string][]string{}
	for _, k := range keys {
		if len(in[k]) == 0 {
			t.Errorf("record field %q has no \"in\" tag naming its records", k)
		}
		for _, kind := range in[k] {
			kinds[kind] = append(kinds[kind], k)
		}
	}
	for kind, want := range kinds {
		found := 0
		for _, o := range objs {
			if o.r == kind {
				found++
				sameKeys(t, `{"r":"`+kind+`"}`, want, o.keys)
			}
		}
		if found != 1 {
			t.Errorf(`the package doc spells out {"r":%q,…} %d times, want once`, kind, found)
		}
	}
	for _, o := range objs {
		if o.r != "" && kinds[o.r] == nil {
			t.Errorf(`the package doc spells out {"r":%q,…}, a record the code has not`, o.r)
		}
	}
	// The objects inside records are spelled out starting with their
	// first key.
	for _, typ := range []reflect.Type{reflect.TypeFor[Image](), reflect.TypeFor[Source](), reflect.TypeFor[Failure]()} {
		want, _ := jsonKeys(typ)
		found := 0
		for _, o := range objs {
			if len(o.keys) > 0 && o.keys[0] == want[0] && o.r == "" {
				found++
				sameKeys(t, typ.Name(), want, o.keys)
			}
		}
		if found != 1 {
			t.Errorf(`the package doc spells out a %s ({%q,…}) %d times, want once`, typ.Name(), want[0], found)
		}
	}
}

// The records a store's writers leave carry only the keys their kind's
// fields are tagged with: the "in" tags say what is written.
func TestRecordKeysWritten(t *testing.T) {
	root := versionedStore(t)
	_, in := jsonKeys(reflect.TypeFor[record.Line]())
	seen := map[string]bool{}
	dir := filepath.Join(root, storeDir)
	files, _ := filepath.Glob(filepath.Join(dir, "turns", "*.log"))
	steps, _ := filepath.Glob(filepath.Join(dir, "ops", "*.steps"))
	files = append(append(files, steps...), filepath.Join(dir, "ops.log"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte{'\n'}) {
			_, js, _ := bytes.Cut(line, []byte{' '})
			var m map[string]json.RawMessage
			if err := json.Unmarshal(js, &m); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var kind string
			json.Unmarshal(m["r"], &kind)
			seen[kind] = true
			for k := range m {
				if !slices.Contains(in[k], kind) {
					t.Errorf("%s: a %q record carries %q, which its field's \"in\" tag leaves out", filepath.Base(f), kind, k)
				}
			}
		}
	}
	var kinds []string
	for k := range seen {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	if want := []string{"done", "op", "post", "pre", "step", "turn"}; !slices.Equal(kinds, want) {
		t.Errorf("the store holds records %v, want one of each of %v", kinds, want)
	}
}

// A pack written is laid out as the package doc says: its index lines hold the
// fields the doc names, and its trailer the fields, sizes and order it
// gives.
func TestDocPackLayout(t *testing.T) {
	doc := docText(t)
	root := versionedStore(t)
	p := filepath.Join(root, storeDir, firstFile(t, root, "packs", ".pack"))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// The index line as the doc gives it.
	i := strings.Index(doc, `"<sha256> `)
	if i < 0 {
		t.Fatal(`the package doc does not give the index line ("<sha256> …")`)
	}
	line := doc[i+1 : i+strings.Index(doc[i:], `\n"`)]
	docFields := regexp.MustCompile(`<[^>]+>`).FindAllString(line, -1)

	tr := data[len(data)-pack.TrailerLen:]
	if !bytes.HasPrefix(tr, []byte(pack.Magic)) || !bytes.HasSuffix(tr, []byte(pack.End)) {
		t.Fatalf("trailer %q", tr)
	}
	body := tr[len(pack.Magic):]
	for _, want := range []string{"the index's offset and", "length (8 bytes each, big-endian)", "its crc32c (4 bytes)"} {
		if !strings.Contains(strings.Join(strings.Fields(doc), " "), want) {
			t.Errorf("the package doc does not say %q of the trailer", want)
		}
	}
	off := binary.BigEndian.Uint64(body[0:8])
	n := binary.BigEndian.Uint64(body[8:16])
	crc := binary.BigEndian.Uint32(body[16:20])
	if len(pack.Magic)+8+8+4+len(pack.End) != pack.TrailerLen || off+n != uint64(len(data)-pack.TrailerLen) {
		t.Fatalf("trailer fields: offset %d, length %d in a pack of %d", off, n, len(data))
	}
	idx := data[off : off+n]
	if crc32.Checksum(idx, castagnoli) != crc {
		t.Errorf("trailer crc32c %08x does not match the index", crc)
	}
	for _, l := range strings.Split(strings.TrimSuffix(string(idx), "\n"), "\n") {
		f := strings.Fields(l)
		if len(f) != len(docFields) {
			t.Errorf("index line %q has %d fields; the package doc gives %d: %v", l, len(f), len(docFields), docFields)
			continue
		}
		if _, err := ParseBlobID(f[0]); err != nil {
			t.Errorf("index line %q: %v", l, err)
		}
	}
}
