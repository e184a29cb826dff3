// Package gitindex reads the entries of git's index file (.git/index):
// each staged path with its mode, object and stage. The store keeps the
// index's bytes as they were when each turn began, and reads them here
// to say which staged paths putting an older index back would drop.
//
// It reads versions 2, 3 and 4 of the format, SHA-1 and SHA-256
// repositories alike, and nothing of the extensions after the entries.
// It never writes an index: ckpt puts back a whole file git wrote.
package gitindex

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"
)

// ErrFormat means the bytes are not an index this package reads.
var ErrFormat = errors.New("gitindex: not a git index file it reads")

// Entry is one staged path.
type Entry struct {
	Path  string
	Mode  uint32 // 0o100644, 0o100755, 0o120000 (a link), 0o160000 (a submodule)
	OID   string // the object, in hex
	Stage int    // 0, or 1-3 for a merge's sides
}

// Read gives the index's entries in its order (by path, then stage).
// An entry cut short, out of order, or whose name disagrees with the
// length its flags give is an ErrFormat, never a partial list.
func Read(data []byte) ([]Entry, error) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, fmt.Errorf("%w: no DIRC header", ErrFormat)
	}
	// The trailer is a checksum of what precedes it, as long as the
	// repository's object names; an index written with index.skipHash
	// has zeros there, and is read as SHA-1's first.
	sizes := []int{sha1.Size, sha256.Size}
	if k := len(data) - sha1.Size; k >= 12 {
		if sum := sha1.Sum(data[:k]); bytes.Equal(sum[:], data[k:]) {
			sizes = []int{sha1.Size}
		} else if k := len(data) - sha256.Size; k >= 12 {
			if sum := sha256.Sum256(data[:k]); bytes.Equal(sum[:], data[k:]) {
				sizes = []int{sha256.Size}
			}
		}
	}
	var err error
	for _, size := range sizes {
		var out []Entry
		// No entry reaches into the trailer.
		if out, err = entries(data[:max(len(data)-size, 12)], size); err == nil {
			return out, nil
		}
	}
	return nil, err
}

// entries reads the entries of the index in data (its trailer cut off),
// with object names of size bytes.
func entries(data []byte, size int) ([]Entry, error) {
	d, err := newDecoder(bytes.NewReader(data), size)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, min(int(d.n), len(data)/(fixed+size+2)))
	for d.more() {
		e, err := d.next()
		if err != nil {
			return nil, err
		}
		out = append(out, Entry{Path: string(e.name), Mode: e.mode, OID: hex.EncodeToString(e.oid), Stage: e.stage()})
	}
	if !sort.SliceIsSorted(out, func(a, b int) bool { return out[a].Path < out[b].Path }) {
		return nil, fmt.Errorf("%w: entries out of order", ErrFormat)
	}
	return out, nil
}

// Changed lists, sorted, the paths whose staged entries differ between
// index a and index b: staged, unstaged, or staged with other bytes or
// another mode, at any stage.
func Changed(a, b []Entry) []string {
	type staged struct {
		stage int
		mode  uint32
		oid   string
	}
	of := func(list []Entry) map[string][]staged {
		m := make(map[string][]staged, len(list))
		for _, e := range list {
			m[e.Path] = append(m[e.Path], staged{e.Stage, e.Mode, e.OID})
		}
		return m
	}
	ma, mb := of(a), of(b)
	var out []string
	for p, ka := range ma {
		if !slices.Equal(ka, mb[p]) {
			out = append(out, p)
		}
	}
	for p := range mb {
		if _, ok := ma[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
