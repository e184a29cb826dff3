package record

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
)

// fastDecode parses one record in the exact form Append writes (no
// whitespace, no nulls, integers only, known keys) several times faster
// than encoding/json, which matters when a log reads 100,000 records. It
// reports false for anything else, and the caller falls back to
// encoding/json; FuzzFastDecode checks the two agree.
func fastDecode(b []byte, r *Line) bool {
	d := fastDec{b: b}
	if !d.object(func(key string) bool { return d.recordField(key, r) }) {
		return false
	}
	return d.p == len(d.b)
}

// known holds the strings records repeat; looking one up with
// string(bytes) does not allocate.
var known = map[string]string{}

// maxKnown is the longest of them: longer strings (paths, hashes) skip the
// lookup.
const maxKnown = len("recovered")

func init() {
	for _, k := range []string{"r", "v", "id", "label", "source", "head", "ref", "index", "p", "i", "w", "dirs", "do", "why", "hand", "cmd", "cmdn", "shared", "seen",
		"kind", "target", "turns", "steps", "rmdirs", "had", "mkdirs", "recovered", "abandoned", "end", "failed", "at", "n", "sha256", "bytes", "mode",
		"link", "reason", "kept", "agent", "session", "prompt", "turn", "pre", "post", "op", "done", "step",
		"content", "absent", "skipped", "symlink", "restore", "delete", "keep", "fail", "rewind", "undo", "redo"} {
		known[k] = k
	}
}

type fastDec struct {
	b  []byte
	p  int
	ws bool // skip whitespace between tokens (a seed index is indented)
	// intern, when not nil, keeps one copy of each string: an index names
	// the same paths and blobs over and over.
	intern map[string]string
}

func (d *fastDec) skipWS() {
	for d.p < len(d.b) {
		switch d.b[d.p] {
		case ' ', '\t', '\n', '\r':
			d.p++
		default:
			return
		}
	}
}

func (d *fastDec) eat(c byte) bool {
	if d.ws {
		d.skipWS()
	}
	if d.p < len(d.b) && d.b[d.p] == c {
		d.p++
		return true
	}
	return false
}

// object parses {"key":value,...}, handing each key to field, which parses
// the value.
func (d *fastDec) object(field func(key string) bool) bool {
	if !d.eat('{') {
		return false
	}
	if d.eat('}') {
		return true
	}
	for {
		key, ok := d.str()
		if !ok || !d.eat(':') || !field(key) {
			return false
		}
		if d.eat('}') {
			return true
		}
		if !d.eat(',') {
			return false
		}
	}
}

// str parses a string. Escapes go to encoding/json, so every rule holds.
func (d *fastDec) str() (string, bool) {
	if !d.eat('"') {
		return "", false
	}
	start := d.p
	for d.p < len(d.b) {
		c := d.b[d.p]
		switch {
		case c == '"':
			raw := d.b[start:d.p]
			d.p++
			if len(raw) <= maxKnown {
				if k, ok := known[string(raw)]; ok {
					return k, true // no allocation for the words every record repeats
				}
			}
			if d.intern != nil {
				if k, ok := d.intern[string(raw)]; ok {
					return k, true
				}
			}
			if !utf8.Valid(raw) {
				return "", false
			}
			str := string(raw)
			if d.intern != nil {
				d.intern[str] = str
			}
			return str, true
		case c == '\\':
			return d.escaped(start - 1)
		case c < 0x20:
			return "", false
		}
		d.p++
	}
	return "", false
}

func (d *fastDec) escaped(open int) (string, bool) {
	for d.p < len(d.b) {
		switch d.b[d.p] {
		case '\\':
			d.p += 2
			continue
		case '"':
			d.p++
			var s string
			if json.Unmarshal(d.b[open:d.p], &s) != nil {
				return "", false
			}
			return s, true
		}
		d.p++
	}
	return "", false
}

func (d *fastDec) int(bits int) (int64, bool) {
	start := d.p
	if d.p < len(d.b) && d.b[d.p] == '-' {
		d.p++
	}
	for d.p < len(d.b) && '0' <= d.b[d.p] && d.b[d.p] <= '9' {
		d.p++
	}
	n, err := strconv.ParseInt(string(d.b[start:d.p]), 10, bits)
	if err != nil || d.p < len(d.b) && (d.b[d.p] == '.' || d.b[d.p] == 'e' || d.b[d.p] == 'E') {
		return 0, false
	}
	// JSON forbids leading zeros ("01"), which ParseInt accepts.
	digits := d.b[start:d.p]
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) > 1 && digits[0] == '0' {
		return 0, false
	}
	return n, true
}

func (d *fastDec) uint32() (uint32, bool) {
	start := d.p
	n, ok := d.int(64)
	if !ok || n < 0 || n > 1<<32-1 || d.b[start] == '-' {
		return 0, false
	}
	return uint32(n), true
}

func (d *fastDec) bool() (bool, bool) {
	switch {
	case len(d.b)-d.p >= 4 && string(d.b[d.p:d.p+4]) == "true":
		d.p += 4
		return true, true
	case len(d.b)-d.p >= 5 && string(d.b[d.p:d.p+5]) == "false":
		d.p += 5
		return false, true
	}
	return false, false
}

func (d *fastDec) strs() ([]string, bool) {
	if !d.eat('[') {
		return nil, false
	}
	out := []string{}
	if d.eat(']') {
		return out, true
	}
	for {
		s, ok := d.str()
		if !ok {
			return nil, false
		}
		out = append(out, s)
		if d.eat(']') {
			return out, true
		}
		if !d.eat(',') {
			return nil, false
		}
	}
}

func (d *fastDec) setStr(dst *string) bool {
	s, ok := d.str()
	*dst = s
	return ok
}

// recordField parses the value of key into r. It is a table, one case a
// key of Line, so its complexity grows with the format; the fields of the
// objects it holds are sourceField's and imageField's. Splitting it by
// kind would parse each key twice.
func (d *fastDec) recordField(key string, r *Line) bool {
	var ok bool
	switch key {
	case "r":
		return d.setStr(&r.R)
	case "id":
		return d.setStr(&r.ID)
	case "label":
		return d.setStr(&r.Label)
	case "head":
		return d.setStr(&r.Head)
	case "ref":
		return d.setStr(&r.Ref)
	case "p":
		return d.setStr(&r.Path)
	case "why":
		return d.setStr(&r.Why)
	case "cmd":
		return d.setStr(&r.Cmd)
	case "target":
		return d.setStr(&r.Target)
	case "do":
		var s string
		ok = d.setStr(&s)
		r.Do = Action(s)
	case "kind":
		var s string
		ok = d.setStr(&s)
		r.Kind = Kind(s)
	case "v", "steps":
		var n int64
		if n, ok = d.int(64); ok {
			if key == "v" {
				r.V = int(n)
			} else {
				r.Steps = int(n)
			}
		}
	case "at":
		r.At, ok = d.int(64)
	case "n":
		r.N, ok = d.int(64)
	case "cmdn":
		r.CmdN, ok = d.int(64)
	case "seen":
		r.Seen, ok = d.int(64)
	case "hand":
		r.Hand, ok = d.bool()
	case "end":
		r.End, ok = d.bool()
	case "recovered":
		r.Recovered, ok = d.bool()
	case "abandoned":
		r.Abandoned, ok = d.bool()
	case "failed":
		r.Failed, ok = d.strs()
	case "dirs":
		r.Dirs, ok = d.strs()
	case "shared":
		r.Shared, ok = d.strs()
	case "turns":
		r.Turns, ok = d.strs()
	case "rmdirs":
		r.Rmdirs, ok = d.strs()
	case "had":
		r.Had, ok = d.strs()
	case "mkdirs":
		r.Mkdirs, ok = d.strs()
	case "i", "w", "index", "index_was", "index_set":
		// A repeated key decodes into the same value, as encoding/json does.
		dst := &r.Img
		switch key {
		case "w":
			dst = &r.Want
		case "index":
			dst = &r.Index
		case "index_was":
			dst = &r.IndexWas
		case "index_set":
			dst = &r.IndexSet
		}
		if *dst == nil {
			*dst = &Image{}
		}
		img := *dst
		ok = d.object(func(k string) bool { return d.imageField(k, img) })
	case "source":
		if r.Source == nil {
			r.Source = &Source{}
		}
		src := r.Source
		ok = d.object(func(k string) bool { return d.sourceField(k, src) })
	}
	return ok
}

func (d *fastDec) sourceField(key string, src *Source) bool {
	switch key {
	case "agent":
		return d.setStr(&src.Agent)
	case "session":
		return d.setStr(&src.Session)
	case "prompt":
		return d.setStr(&src.Prompt)
	case "transcript":
		return d.setStr(&src.Transcript)
	}
	return false
}

func (d *fastDec) imageField(key string, img *Image) bool {
	var ok bool
	switch key {
	case "kind":
		var s string
		ok = d.setStr(&s)
		img.Kind = ImageKind(s)
	case "sha256":
		var str string
		if str, ok = d.str(); ok {
			img.SHA256, ok = blob.Decode(str)
		}
	case "link":
		return d.setStr(&img.Link)
	case "reason":
		return d.setStr(&img.Reason)
	case "bytes":
		img.Size, ok = d.int(64)
	case "mode":
		img.Mode, ok = d.uint32()
		img.Mode = PermMode(img.Mode)
	case "kept":
		img.Kept, ok = d.bool()
	}
	return ok
}

// array parses [v,...], handing each element to elem.
func (d *fastDec) array(elem func() bool) bool {
	if !d.eat('[') {
		return false
	}
	if d.eat(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.eat(']') {
			return true
		}
		if !d.eat(',') {
			return false
		}
	}
}
