package record

import (
	"bytes"
	"encoding/json"
)

// SeedEntry is a turn of the seed format's index.json.
type SeedEntry struct {
	Turn  json.RawMessage `json:"turn"`
	Label string          `json:"label"`
	At    int64           `json:"at"`
	Files []SeedFile      `json:"files"`
}

// SeedFile is one path of a SeedEntry: the path as the seed design wrote
// it (a string; anything else is refused by the reader) and its pre-image.
type SeedFile struct {
	Path any `json:"path"`
	Pre  struct {
		Kind   string `json:"kind"`
		SHA256 string `json:"sha256"`
		Bytes  int64  `json:"bytes"`
		Reason string `json:"reason"`
	} `json:"pre"`
}

// ID is the entry's turn id: its "turn" as a string, or the digits of a
// number; "" when it is neither (the reader then numbers it by place).
func (e *SeedEntry) ID() string { return seedID(e.Turn) }

// DecodeSeed parses a seed index.json: the fast way when it can, else by
// encoding/json, whose error it returns.
func DecodeSeed(data []byte) ([]SeedEntry, error) {
	if entries, ok := fastSeed(data); ok {
		return entries, nil
	}
	var entries []SeedEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, err
	}
	return entries, nil
}

// fastSeed parses a seed index.json (a JSON array of turns, as the seed
// design writes it) several times faster than encoding/json, which matters
// for an index of 100,000 entries. It reports false for anything else (an
// unknown key, a null, a float, a path that is not a string), and the
// caller falls back to encoding/json; TestFastSeed checks the two agree.
func fastSeed(b []byte) ([]SeedEntry, bool) {
	d := fastDec{b: b, ws: true, intern: map[string]string{}}
	var out []SeedEntry
	ok := d.array(func() bool {
		var e SeedEntry
		if !d.object(func(key string) bool { return d.seedField(key, &e) }) {
			return false
		}
		out = append(out, e)
		return true
	})
	d.skipWS()
	return out, ok && d.p == len(d.b)
}

func (d *fastDec) seedField(key string, e *SeedEntry) bool {
	d.skipWS()
	switch key {
	case "turn":
		start := d.p
		if d.p < len(d.b) && d.b[d.p] == '"' {
			if _, ok := d.str(); !ok {
				return false
			}
		} else if _, ok := d.int(64); !ok {
			return false
		}
		e.Turn = json.RawMessage(d.b[start:d.p])
		return true
	case "label":
		return d.setStr(&e.Label)
	case "at":
		n, ok := d.int(64)
		e.At = n
		return ok
	case "files":
		e.Files = nil // a repeated key replaces, as in encoding/json
		return d.array(func() bool {
			var f SeedFile
			if !d.object(func(key string) bool {
				d.skipWS()
				switch key {
				case "path":
					p, ok := d.str()
					f.Path = p
					return ok
				case "pre":
					return d.object(func(key string) bool {
						d.skipWS()
						switch key {
						case "kind":
							return d.setStr(&f.Pre.Kind)
						case "sha256":
							return d.setStr(&f.Pre.SHA256)
						case "reason":
							return d.setStr(&f.Pre.Reason)
						case "bytes":
							n, ok := d.int(64)
							f.Pre.Bytes = n
							return ok
						}
						return false
					})
				}
				return false
			}) {
				return false
			}
			e.Files = append(e.Files, f)
			return true
		})
	}
	return false
}

func seedID(raw json.RawMessage) string {
	if len(raw) > 0 && len(raw) < 19 && raw[0] != '0' || len(raw) == 1 {
		digits := true
		for _, c := range raw {
			digits = digits && '0' <= c && c <= '9'
		}
		if digits {
			return string(raw) // the common case, without a decoder
		}
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&n) == nil {
		return n.String()
	}
	return ""
}
