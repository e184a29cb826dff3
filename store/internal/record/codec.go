package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strconv"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Append frames r as "<crc32c hex> <json>\n" and appends it to buf.
func Append(buf []byte, r *Line) []byte {
	esc := r.mapNames(EscName)
	start := len(buf)
	buf = append(buf, "00000000 "...)
	js, ok := appendFileRecord(buf, &esc)
	if !ok {
		other := esc // only this copy escapes to encoding/json
		enc, err := json.Marshal(&other)
		if err != nil {
			// Only unsupported types fail, and Line has none.
			panic(fmt.Sprintf("record: encode: %v", err))
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

// Result is what Decode found in a file's bytes.
type Result struct {
	Recs []Line
	// Good is the length of the prefix that excludes a torn last record:
	// a writer cuts the file there before it appends. Damaged lines in the
	// middle stay (verify reports them; readers skip them).
	Good int64
	// Torn is set when bytes follow the good prefix (a partial or damaged
	// last record).
	Torn bool
	// Bad lists damaged lines before the last one (1-based line numbers).
	Bad []int
}

// Decode parses framed records. A damaged line in the middle is
// skipped and reported; a damaged or unterminated last line is torn. It
// never panics, whatever the input.
func Decode(data []byte) Result {
	recs := make([]Line, 0, bytes.Count(data, []byte{'\n'}))
	res := Each(data, func(r *Line) { recs = append(recs, *r) })
	res.Recs = recs
	return res
}

// Each is Decode handing each record to fn as it is decoded
// (the record is reused: fn copies what it keeps), so a big store is read
// without holding every record at once.
func Each(data []byte, fn func(*Line)) Result {
	var res Result
	var r Line
	line := 0
	for off := 0; off < len(data); {
		line++
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			res.Torn = true
			return res
		}
		ok := DecodeLine(data[off:off+nl], &r)
		next := off + nl + 1
		if !ok {
			if next >= len(data) {
				res.Torn = true
				return res
			}
			res.Bad = append(res.Bad, line)
		} else {
			fn(&r)
		}
		off = next
		res.Good = int64(off)
	}
	return res
}

// DecodeLine decodes one line, without its newline, into r, reporting
// whether it is a whole, undamaged record.
func DecodeLine(l []byte, r *Line) bool {
	*r = Line{}
	if len(l) < 10 || l[8] != ' ' {
		return false
	}
	want, err := strconv.ParseUint(string(l[:8]), 16, 32)
	if err != nil || uint32(want) != crc32.Checksum(l[9:], castagnoli) {
		return false
	}
	if !fastDecode(l[9:], r) {
		*r = Line{}
		if err := json.Unmarshal(l[9:], r); err != nil {
			return false
		}
	}
	if bytes.IndexByte(l, '\\') >= 0 {
		// Only an escaped name (a JSON "\u0000") can need unescaping.
		*r = r.mapNames(UnescName)
	}
	return r.R != ""
}
