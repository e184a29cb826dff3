package cli

import (
	"encoding/base64"
	"encoding/json"
	"os"
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
