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
	"encoding/binary"
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
func Read(data []byte) ([]Entry, error) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, fmt.Errorf("%w: no DIRC header", ErrFormat)
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("%w: version %d", ErrFormat, version)
	}
	n := binary.BigEndian.Uint32(data[8:12])
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
		if out, err = entries(data, version, n, size); err == nil {
			return out, nil
		}
	}
	return nil, err
}

// entries reads n entries after the header, with object names of size
// bytes.
func entries(data []byte, version, n uint32, size int) ([]Entry, error) {
	const fixed = 40 // ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit words
	bad := func(i uint32, why string) error {
		return fmt.Errorf("%w: entry %d of %d: %s", ErrFormat, i+1, n, why)
	}
	end := len(data) - size // the trailer
	at := 12
	var prev []byte
	out := make([]Entry, 0, min(int(n), len(data)/(fixed+size+2)))
	for i := uint32(0); i < n; i++ {
		start := at
		if at+fixed+size+2 > end {
			return nil, bad(i, "cut short")
		}
		mode := binary.BigEndian.Uint32(data[at+24:])
		oid := data[at+fixed : at+fixed+size]
		flags := binary.BigEndian.Uint16(data[at+fixed+size:])
		at += fixed + size + 2
		if flags&0x4000 != 0 { // extended flags (version 3 on)
			if version < 3 || at+2 > end {
				return nil, bad(i, "extended flags")
			}
			at += 2
		}
		var name []byte
		if version == 4 {
			strip, k := varint(data[at:end])
			if k == 0 || strip > uint64(len(prev)) {
				return nil, bad(i, "name prefix")
			}
			at += k
			z := bytes.IndexByte(data[at:end], 0)
			if z < 0 {
				return nil, bad(i, "name not ended")
			}
			name = append(append([]byte(nil), prev[:len(prev)-int(strip)]...), data[at:at+z]...)
			at += z + 1
		} else {
			z := bytes.IndexByte(data[at:end], 0)
			if z < 0 {
				return nil, bad(i, "name not ended")
			}
			name = data[at : at+z]
			// 1 to 8 NULs pad the entry to a multiple of 8 bytes.
			at = start + (at+z-start+8)&^7
			if at > end {
				return nil, bad(i, "cut short")
			}
		}
		if len(name) == 0 {
			return nil, bad(i, "empty name")
		}
		out = append(out, Entry{Path: string(name), Mode: mode, OID: hex.EncodeToString(oid), Stage: int(flags>>12) & 3})
		prev = name
	}
	if !sort.SliceIsSorted(out, func(a, b int) bool { return out[a].Path < out[b].Path }) {
		return nil, fmt.Errorf("%w: entries out of order", ErrFormat)
	}
	return out, nil
}

// varint is git's offset varint (each byte 7 bits, high bit: more, one
// added per continuation), and how many bytes it took; 0 when cut short.
func varint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v := uint64(c & 0x7f)
	i := 1
	for c&0x80 != 0 {
		if i >= len(b) || i > 9 {
			return 0, 0
		}
		c = b[i]
		i++
		v = ((v + 1) << 7) | uint64(c&0x7f)
	}
	return v, i
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
