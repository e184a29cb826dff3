package cli

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/store"
)

// The --json output of every command goes through this file.
//
// Names are bytes, and JSON strings are UTF-8: encoding/json writes a name
// that is not valid UTF-8 with U+FFFD in place of each bad byte, which
// names no file. So every name keeps its readable string under its key,
// as before, and one that is not valid UTF-8 also has its exact bytes, in
// standard base64, under the same key with "_b64" appended: a string for a
// string ("path_b64"), and for a list an object from the index to the
// base64 ("restored_b64": {"1": "…"}) holding only the names that need it.
// When every name is valid UTF-8 no "_b64" key is written.

// printJSON writes v to standard output, indented.
func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeJSONArray writes n elements as printJSON writes a slice of them,
// appending each through add (which gets the buffer to append the
// element's value to, at an indent of one level), and streaming them out:
// a list of 20,000 turns is never held whole, nor indented in a second
// pass, as encoding/json would. add's values must be what encoding/json
// gives for the element (TestLogJSONAsEncodingJSON holds log's).
func writeJSONArray(w io.Writer, n int, add func(b []byte, i int) []byte) error {
	if n == 0 {
		_, err := io.WriteString(w, "[]\n")
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	b := make([]byte, 0, 1024)
	for i := range n {
		b = append(b[:0], ",\n  "...)
		if i == 0 {
			b[0] = '['
		}
		b = add(b, i)
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	if _, err := bw.WriteString("\n]\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// jsonObject appends an object's members laid out as printJSON lays them
// out, the object's braces at depth levels of indent: keys in the order
// they are added, each value as encoding/json writes it.
type jsonObject struct {
	b     []byte
	depth int
	n     int
}

func openObject(b []byte, depth int) jsonObject {
	return jsonObject{b: append(b, '{'), depth: depth}
}

// key starts a member; k needs no escaping.
func (o *jsonObject) key(k string) {
	if o.n > 0 {
		o.b = append(o.b, ',')
	}
	o.n++
	o.b = appendJSONIndent(append(o.b, '\n'), o.depth+1)
	o.b = append(append(append(o.b, '"'), k...), `": `...)
}

func (o *jsonObject) str(k, v string) {
	o.key(k)
	o.b = appendJSONString(o.b, v)
}

// strOmit is str of a field tagged omitempty.
func (o *jsonObject) strOmit(k, v string) {
	if v != "" {
		o.str(k, v)
	}
}

func (o *jsonObject) int(k string, v int) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, int64(v), 10)
}

// value appends v through encoding/json, indented to sit at the member's
// depth: for the fields few elements have. v is of a type encoding/json
// cannot fail on (strings, numbers, and lists and maps of them).
func (o *jsonObject) value(k string, v any) {
	data, _ := json.MarshalIndent(v, string(appendJSONIndent(nil, o.depth+1)), "  ")
	o.key(k)
	o.b = append(o.b, data...)
}

// close ends the object and returns the buffer.
func (o *jsonObject) close() []byte {
	if o.n > 0 {
		o.b = appendJSONIndent(append(o.b, '\n'), o.depth)
	}
	return append(o.b, '}')
}

func appendJSONIndent(b []byte, depth int) []byte {
	for range depth {
		b = append(b, "  "...)
	}
	return b
}

// appendJSONString appends s as encoding/json writes a string: quoted,
// with '"', '\\' and the control characters escaped, and '<', '>', '&',
// U+2028 and U+2029 as \u escapes; a byte that is not UTF-8 becomes
// U+FFFD (the name's bytes are under its "_b64" key).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

// formatAt is t.UTC().Format(atLayout), without reading the layout
// each time: log --json writes one per turn.
func formatAt(t time.Time) string {
	t = t.UTC()
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return t.Format(atLayout)
	}
	h, mi, sec := t.Clock()
	var b [len(atLayout)]byte
	put := func(at, n, v int) {
		for k := at + n - 1; k >= at; k-- {
			b[k] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, 4, y)
	put(5, 2, int(mo))
	put(8, 2, d)
	put(11, 2, h)
	put(14, 2, mi)
	put(17, 2, sec)
	put(20, 9, t.Nanosecond())
	b[4], b[7], b[10], b[13], b[16], b[19], b[29] = '-', '-', 'T', ':', ':', '.', 'Z'
	return string(b[:])
}

// nameB64 is the base64 of name's bytes when it is not valid UTF-8, else "".
func nameB64(name string) string {
	if utf8.ValidString(name) {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte(name))
}

// namesB64 maps the index of each name in names that is not valid UTF-8
// to the base64 of its bytes; nil when every name is valid.
func namesB64(names []string) map[int]string {
	var m map[int]string
	for i, n := range names {
		if b := nameB64(n); b != "" {
			if m == nil {
				m = map[int]string{}
			}
			m[i] = b
		}
	}
	return m
}

// failureJSON is a path an operation could not put back, with its bytes.
type failureJSON struct {
	Path    string `json:"path"`
	PathB64 string `json:"path_b64,omitempty"`
	Reason  string `json:"reason"`
}

// failuresJSON converts fs, keeping nil nil and empty empty.
func failuresJSON(fs []store.Failure) []failureJSON {
	if fs == nil {
		return nil
	}
	out := make([]failureJSON, len(fs))
	for i, f := range fs {
		out[i] = failureJSON{Path: f.Path, PathB64: nameB64(f.Path), Reason: f.Reason}
	}
	return out
}

// resultJSON is `rewind|undo|redo --json`: store.Result with each list's
// names' bytes beside it.
type resultJSON struct {
	Op            string         `json:"op"`
	Restored      []string       `json:"restored"`
	RestoredB64   map[int]string `json:"restored_b64,omitempty"`
	Deleted       []string       `json:"deleted"`
	DeletedB64    map[int]string `json:"deleted_b64,omitempty"`
	Kept          []string       `json:"kept"`
	KeptB64       map[int]string `json:"kept_b64,omitempty"`
	Failed        []failureJSON  `json:"failed"`
	HandEdited    []string       `json:"hand_edited"`
	HandEditedB64 map[int]string `json:"hand_edited_b64,omitempty"`
	Plan          string         `json:"plan"`
	Applied       bool           `json:"applied"`
	// A revert's: nil for other operations, so the key is absent.
	Conflicts *[]conflictJSON `json:"conflicts,omitempty"`
	Merged    *[]string       `json:"merged,omitempty"`
	MergedB64 map[int]string  `json:"merged_b64,omitempty"`
}

// conflictJSON is one path a revert left in conflict: its lines, 1-based
// and inclusive, in the file as it is now.
type conflictJSON struct {
	Path    string   `json:"path"`
	PathB64 string   `json:"path_b64,omitempty"`
	Lines   [][2]int `json:"lines"`
}

func newResultJSON(r *store.Result) resultJSON {
	out := resultJSON{
		Op:       r.Op,
		Restored: r.Restored, RestoredB64: namesB64(r.Restored),
		Deleted: r.Deleted, DeletedB64: namesB64(r.Deleted),
		Kept: r.Kept, KeptB64: namesB64(r.Kept),
		Failed:     failuresJSON(r.Failed),
		HandEdited: r.HandEdited, HandEditedB64: namesB64(r.HandEdited),
		Plan:    r.Plan,
		Applied: r.Applied,
	}
	if r.Conflicts != nil {
		cs := make([]conflictJSON, 0, len(r.Conflicts))
		for _, c := range r.Conflicts {
			j := conflictJSON{Path: c.Path, PathB64: nameB64(c.Path), Lines: [][2]int{}}
			for _, l := range c.Lines {
				j.Lines = append(j.Lines, [2]int{l.Start, l.End})
			}
			cs = append(cs, j)
		}
		merged := append([]string{}, r.Merged...)
		out.Conflicts, out.Merged, out.MergedB64 = &cs, &merged, namesB64(merged)
	}
	return out
}
