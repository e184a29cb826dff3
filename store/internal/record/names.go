package record

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// nameEscape starts a name that is not valid UTF-8, in a record: the
// rest is the standard base64 of its bytes. JSON strings are UTF-8, and
// encoding/json would turn each bad byte into U+FFFD, so a rewind would
// create a file of another name. No file name holds a NUL, so the escaped
// form cannot be taken for a real name, and a reader that does not know
// it fails that path rather than write a wrong one.
const nameEscape = "\x00b64:"

// EscName is s as a record holds it.
func EscName(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return nameEscape + base64.StdEncoding.EncodeToString([]byte(s))
}

// UnescName is the name a record's string stands for.
func UnescName(s string) string {
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
func (r *Line) mapNames(f func(string) string) Line {
	c := *r
	c.Path, c.ID, c.Target = f(r.Path), f(r.ID), f(r.Target)
	c.Dirs, c.Rmdirs, c.Had, c.Mkdirs = escNames(r.Dirs, f), escNames(r.Rmdirs, f), escNames(r.Had, f), escNames(r.Mkdirs, f)
	c.Failed, c.Turns, c.Shared, c.Except = escNames(r.Failed, f), escNames(r.Turns, f), escNames(r.Shared, f), escNames(r.Except, f)
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
