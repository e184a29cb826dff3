package record

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// appendFileRecord appends r as encoding/json would write it, when r is a
// record about one file (a pre or post: its path, image, folders,
// command, time and order), several times faster than json.Marshal,
// which a bulk capture calls once a file. It reports false for any other
// record, leaving it to encoding/json; TestFileRecordEncoding checks the
// two agree, field by field.
func appendFileRecord(buf []byte, r *Line) ([]byte, bool) {
	if !fileFieldsOnly(r) {
		return buf, false
	}
	buf = append(buf, `{"r":`...)
	buf = appendJSONString(buf, r.R)
	if r.Path != "" {
		buf = append(buf, `,"p":`...)
		buf = appendJSONString(buf, r.Path)
	}
	if img := r.Img; img != nil {
		buf = append(buf, `,"i":`...)
		buf = appendImage(buf, img)
	}
	if len(r.Dirs) > 0 {
		buf = append(buf, `,"dirs":[`...)
		for i, d := range r.Dirs {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSONString(buf, d)
		}
		buf = append(buf, ']')
	}
	if r.Cmd != "" {
		buf = append(buf, `,"cmd":`...)
		buf = appendJSONString(buf, r.Cmd)
	}
	if r.CmdN != 0 {
		buf = append(buf, `,"cmdn":`...)
		buf = strconv.AppendInt(buf, r.CmdN, 10)
	}
	if len(r.Shared) > 0 {
		buf = append(buf, `,"shared":[`...)
		for i, t := range r.Shared {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSONString(buf, t)
		}
		buf = append(buf, ']')
	}
	if r.Seen != 0 {
		buf = append(buf, `,"seen":`...)
		buf = strconv.AppendInt(buf, r.Seen, 10)
	}
	if r.At != 0 {
		buf = append(buf, `,"at":`...)
		buf = strconv.AppendInt(buf, r.At, 10)
	}
	if r.N != 0 {
		buf = append(buf, `,"n":`...)
		buf = strconv.AppendInt(buf, r.N, 10)
	}
	return append(buf, '}'), true
}

// fileFieldsOnly reports whether r sets no field but those of a record
// about one file, the only ones appendFileRecord writes.
func fileFieldsOnly(r *Line) bool {
	return !(r.V != 0 || r.ID != "" || r.Label != "" || r.Source != nil || r.Head != "" ||
		r.Ref != "" || r.Index != nil || r.IndexWas != nil || r.IndexSet != nil ||
		r.Want != nil || r.Back != nil || r.Do != "" || r.Why != "" || r.Hand ||
		r.Kind != "" || r.Target != "" || r.Turns != nil || r.Steps != 0 || r.Retry != "" || r.Sess != "" || r.Except != nil ||
		r.Rmdirs != nil || r.Had != nil || r.Mkdirs != nil || r.HadModes != nil || r.MkdirModes != nil ||
		r.Recovered || r.Abandoned || r.Failed != nil || r.Fails != nil || r.None || r.End)
}

// appendImage appends img as encoding/json writes an Image.
func appendImage(buf []byte, img *Image) []byte {
	buf = append(buf, `{"kind":`...)
	buf = appendJSONString(buf, string(img.Kind))
	if !img.SHA256.IsZero() {
		buf = append(buf, `,"sha256":"`...)
		buf = hex.AppendEncode(buf, img.SHA256[:])
		buf = append(buf, '"')
	}
	if img.Size != 0 {
		buf = append(buf, `,"bytes":`...)
		buf = strconv.AppendInt(buf, img.Size, 10)
	}
	if img.Mode != 0 {
		buf = append(buf, `,"mode":`...)
		mode := img.Mode
		if mode == ModeZero {
			mode = 0 // known to be 000, not unknown (left out)
		}
		buf = strconv.AppendUint(buf, uint64(mode), 10)
	}
	if img.Link != "" {
		buf = append(buf, `,"link":`...)
		buf = appendJSONString(buf, img.Link)
	}
	if img.Reason != "" {
		buf = append(buf, `,"reason":`...)
		buf = appendJSONString(buf, img.Reason)
	}
	if img.Kept {
		buf = append(buf, `,"kept":true`...)
	}
	buf = append(buf, '}')
	return buf
}

// appendJSONString appends s quoted as encoding/json quotes it: printable
// ASCII that needs no escape is copied as it is, anything else is left to
// encoding/json.
func appendJSONString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			js, _ := json.Marshal(s)
			return append(buf, js...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}
