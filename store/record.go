package store

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FormatName names the store format in `ckpt --version`.
const FormatName = "ckpt-store/3 (crc32c-framed JSON records, zstd blobs)"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// record is one line of a turn file, the operations log or a steps file.
// Field names are short because a big turn holds thousands of them. A
// field's "in" tag lists the kinds of record ("r") that carry it, as the
// package doc describes them (TestDocRecordKeys keeps the two in step).
type record struct {
	R string `json:"r" in:"turn,pre,post,op,done,step"` // turn, pre, post; op, done; step

	// turn header
	V      int     `json:"v,omitempty" in:"turn,op"`
	ID     string  `json:"id,omitempty" in:"turn,op,done"`
	Label  string  `json:"label,omitempty" in:"turn"`
	Source *Source `json:"source,omitempty" in:"turn"`
	Head   string  `json:"head,omitempty" in:"turn"`
	Ref    string  `json:"ref,omitempty" in:"turn"`   // the branch HEAD named ("refs/heads/main"; "" detached)
	Index  *Image  `json:"index,omitempty" in:"turn"` // git's index file as the turn began
	// End, on a later header carrying git's state, says the turn ended
	// there (its agent's end-of-turn event, ckpt watch closing it).
	End bool `json:"end,omitempty" in:"turn"`

	// pre, post, step
	Path string   `json:"p,omitempty" in:"pre,post,step"`
	Img  *Image   `json:"i,omitempty" in:"pre,post,step"`
	Want *Image   `json:"w,omitempty" in:"step"`    // step: what the operation writes
	Back *Image   `json:"back,omitempty" in:"step"` // step: what an undo puts back, when not Img
	Dirs []string `json:"dirs,omitempty" in:"pre,step"`
	Do   Action   `json:"do,omitempty" in:"step"`
	Why  string   `json:"why,omitempty" in:"step"`
	Hand bool     `json:"hand,omitempty" in:"step"`
	Cmd  string   `json:"cmd,omitempty" in:"pre,post"` // pre, post: the shell command that changed the path
	// Shared names the other turns a sweep gave the same change: no
	// single command owned it (two sessions' commands were running).
	Shared []string `json:"shared,omitempty" in:"pre,post"`

	// op
	Kind   Kind     `json:"kind,omitempty" in:"op"`
	Target string   `json:"target,omitempty" in:"op"`
	Turns  []string `json:"turns,omitempty" in:"op"`
	Steps  int      `json:"steps,omitempty" in:"op"`
	Retry  string   `json:"retry,omitempty" in:"op"`  // op: the operation whose failed paths it tries again
	Sess   string   `json:"sess,omitempty" in:"op"`   // op: the agent session a revert took out
	Rmdirs []string `json:"rmdirs,omitempty" in:"op"` // folders removed if left empty
	Had    []string `json:"had,omitempty" in:"op"`    // of those, the ones there before
	Mkdirs []string `json:"mkdirs,omitempty" in:"op"` // folders made (an undo's give-back)
	// HadModes and MkdirModes run parallel to Had and Mkdirs: the
	// folders' permission bits.
	HadModes   []uint32 `json:"hadm,omitempty" in:"op"`
	MkdirModes []uint32 `json:"mkdirm,omitempty" in:"op"`
	// IndexWas and IndexSet are git's index file before the operation and
	// what the operation wrote there, when it put the index back.
	IndexWas *Image `json:"index_was,omitempty" in:"op"`
	IndexSet *Image `json:"index_set,omitempty" in:"op"`

	// done
	Recovered bool     `json:"recovered,omitempty" in:"done"`
	Abandoned bool     `json:"abandoned,omitempty" in:"done"` // never carried out: changes nothing
	Failed    []string `json:"failed,omitempty" in:"done"`    // paths whose step failed (readers before format 1.1: while running)
	// Fails gives each failed path (planned to fail or failed while
	// running) with its reason; None says every step failed, so the
	// operation changed nothing and stands for nothing.
	Fails []Failure `json:"fails,omitempty" in:"done"`
	None  bool      `json:"none,omitempty" in:"done"`

	At int64 `json:"at,omitempty" in:"turn,pre,post,op,done"` // Unix nanoseconds, for display
	// N orders records: taken under the lock from the store's clock file,
	// greater than every N before it even when the wall clock steps back.
	// Records without one (older stores) are ordered by At.
	N int64 `json:"n,omitempty" in:"turn,pre,post,op"`
}

// order is r's place in the store's order of commits.
func (r *record) order() int64 {
	if r.N != 0 {
		return r.N
	}
	return r.At
}

// nameEscape starts a name that is not valid UTF-8, in a record: the
// rest is the standard base64 of its bytes. JSON strings are UTF-8, and
// encoding/json would turn each bad byte into U+FFFD, so a rewind would
// create a file of another name. No file name holds a NUL, so the escaped
// form cannot be taken for a real name, and a reader that does not know
// it fails that path rather than write a wrong one.
const nameEscape = "\x00b64:"

// escName is s as a record holds it.
func escName(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return nameEscape + base64.StdEncoding.EncodeToString([]byte(s))
}

// unescName is the name a record's string stands for.
func unescName(s string) string {
	if len(s) == 0 || s[0] != 0 {
		return s
	}
	if b, ok := strings.CutPrefix(s, nameEscape); ok {
		if raw, err := base64.StdEncoding.DecodeString(b); err == nil && !utf8.Valid(raw) {
			return string(raw)
		}
	}
	return s // left with its NUL: refused wherever it is used as a path
}

func escNames(list []string, f func(string) string) []string {
	var out []string
	for i, n := range list {
		if e := f(n); e != n {
			if out == nil {
				out = append([]string(nil), list...)
			}
			out[i] = e
		}
	}
	if out == nil {
		return list
	}
	return out
}

func escImage(img *Image, f func(string) string) *Image {
	if img == nil || f(img.Link) == img.Link {
		return img
	}
	c := *img
	c.Link = f(img.Link)
	return &c
}

// mapNames maps every name a record holds (paths, folders, link targets,
// turn ids) through f, copying only what changes. It returns a copy of r
// rather than a pointer, so a record written a file at a time is not
// allocated twice.
func (r *record) mapNames(f func(string) string) record {
	c := *r
	c.Path, c.ID, c.Target = f(r.Path), f(r.ID), f(r.Target)
	c.Dirs, c.Rmdirs, c.Had, c.Mkdirs = escNames(r.Dirs, f), escNames(r.Rmdirs, f), escNames(r.Had, f), escNames(r.Mkdirs, f)
	c.Failed, c.Turns, c.Shared = escNames(r.Failed, f), escNames(r.Turns, f), escNames(r.Shared, f)
	c.Img, c.Want = escImage(r.Img, f), escImage(r.Want, f)
	copied := false
	for i, fl := range r.Fails {
		if p := f(fl.Path); p != fl.Path {
			if !copied {
				c.Fails, copied = append([]Failure(nil), r.Fails...), true
			}
			c.Fails[i].Path = p
		}
	}
	return c
}

// appendRecord frames r as "<crc32c hex> <json>\n" and appends it to buf.
func appendRecord(buf []byte, r *record) []byte {
	esc := r.mapNames(escName)
	start := len(buf)
	buf = append(buf, "00000000 "...)
	js, ok := appendFileRecord(buf, &esc)
	if !ok {
		other := esc // only this copy escapes to encoding/json
		enc, err := json.Marshal(&other)
		if err != nil {
			// Only unsupported types fail, and record has none.
			panic(fmt.Sprintf("store: encode record: %v", err))
		}
		js = append(buf, enc...)
	}
	crc := crc32.Checksum(js[start+9:], castagnoli)
	hexCRC(js[start:start+8], crc)
	return append(js, '\n')
}

// hexCRC writes crc as 8 lowercase hex digits into dst.
func hexCRC(dst []byte, crc uint32) {
	const digits = "0123456789abcdef"
	for i := 7; i >= 0; i-- {
		dst[i] = digits[crc&0xf]
		crc >>= 4
	}
}

// decodeResult is what decodeRecords found in a file's bytes.
type decodeResult struct {
	recs []record
	// good is the length of the prefix that excludes a torn last record:
	// a writer cuts the file there before it appends. Damaged lines in the
	// middle stay (verify reports them; readers skip them).
	good int64
	// torn is set when bytes follow the good prefix (a partial or damaged
	// last record).
	torn bool
	// bad lists damaged lines before the last one (1-based line numbers).
	bad []int
}

// decodeRecords parses framed records. A damaged line in the middle is
// skipped and reported; a damaged or unterminated last line is torn. It
// never panics, whatever the input.
func decodeRecords(data []byte) decodeResult {
	recs := make([]record, 0, bytes.Count(data, []byte{'\n'}))
	res := decodeEach(data, func(r *record) { recs = append(recs, *r) })
	res.recs = recs
	return res
}

// decodeEach is decodeRecords handing each record to fn as it is decoded
// (the record is reused: fn copies what it keeps), so a big store is read
// without holding every record at once.
func decodeEach(data []byte, fn func(*record)) decodeResult {
	var res decodeResult
	var r record
	line := 0
	for off := 0; off < len(data); {
		line++
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			res.torn = true
			return res
		}
		ok := decodeLine(data[off:off+nl], &r)
		next := off + nl + 1
		if !ok {
			if next >= len(data) {
				res.torn = true
				return res
			}
			res.bad = append(res.bad, line)
		} else {
			fn(&r)
		}
		off = next
		res.good = int64(off)
	}
	return res
}

func decodeLine(l []byte, r *record) bool {
	*r = record{}
	if len(l) < 10 || l[8] != ' ' {
		return false
	}
	want, err := strconv.ParseUint(string(l[:8]), 16, 32)
	if err != nil || uint32(want) != crc32.Checksum(l[9:], castagnoli) {
		return false
	}
	if !fastDecode(l[9:], r) {
		*r = record{}
		if err := json.Unmarshal(l[9:], r); err != nil {
			return false
		}
	}
	if bytes.IndexByte(l, '\\') >= 0 {
		// Only an escaped name (a JSON "\u0000") can need unescaping.
		*r = r.mapNames(unescName)
	}
	return r.R != ""
}
