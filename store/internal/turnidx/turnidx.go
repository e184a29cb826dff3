// Package turnidx is the codec of a turn file's path index,
// turns/<id>.idx: where in the turn file each path's first capture is,
// so that a capture or a seal in a turn of thousands of calls reads a few
// kilobytes of it, not the whole file.
//
// The index is a cache of its turn file. Every entry it gives is checked
// against the record it points to (whose checksum and path must match);
// its batches say how much of the turn file they cover, and the records
// past that are read from the turn file itself. An index that is missing,
// damaged, of another file or of a newer version is not trusted.
//
// Layout (integers little-endian):
//
//	"ckpttidx", uint32 version (2), uint32 0     header, 16 bytes
//	uint64 device, uint64 inode                  the turn file it indexes
//	entries of 16 bytes: uint64 hash, uint64 offset
//
// An entry's offset has its top bit set for a post record (version 2;
// version 1 indexed pre records only, and is built again).
//
// An entry of hash 0 closes a batch: its offset is the length of the turn
// file the entries before it cover. Entries after the last batch's close
// (a writer killed while appending) are not trusted. A path's hash is the
// 64-bit FNV-1a of its bytes, 0 taken as 1.
package turnidx

import (
	"encoding/binary"
	"errors"
	"hash/fnv"

	"github.com/ckpt-dev/ckpt/store/internal/format"
)

// Version is the version of the index this package reads and writes.
const Version = 2

// postBit marks an entry of a post record.
const postBit = 1 << 63

const (
	magic      = "ckpttidx"
	headerSize = 32
	entrySize  = 16
)

// ErrNotIndex means the bytes are not an index (a torn or foreign file).
var ErrNotIndex = errors.New("not a turn index")

// Entry is a record of the turn file: the hash of its path and its
// offset, and whether it is a post record (else a pre record).
type Entry struct {
	Hash uint64
	Off  int64
	Post bool
}

// Index is what an index file says. Its entries stay as the bytes read
// (16 a record, a turn of thousands of calls holds thousands): Find
// scans them where they lie.
type Index struct {
	Dev, Ino uint64 // the turn file indexed
	Covered  int64  // the length of turn file the entries cover
	Size     int64  // the bytes of the index file through its last batch
	body     []byte // the entries and closes of the whole batches
}

// Hash is the hash of path in an entry.
func Hash(path string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(path))
	if v := h.Sum64(); v != 0 {
		return v
	}
	return 1
}

// Parse reads an index. It errs with ErrNotIndex on a file that is not
// one and with format.ErrNewerFormat (named as file) on a newer version.
// The index keeps b.
func Parse(file string, b []byte) (*Index, error) {
	if len(b) < headerSize || string(b[:8]) != magic {
		return nil, ErrNotIndex
	}
	v := int(binary.LittleEndian.Uint32(b[8:]))
	if err := format.CheckVersion(file, "turn index", v, Version); err != nil {
		return nil, err
	}
	if v < Version {
		return nil, ErrNotIndex // it lacks the post records: built again
	}
	ix := &Index{Dev: binary.LittleEndian.Uint64(b[16:]), Ino: binary.LittleEndian.Uint64(b[24:]), Size: headerSize}
	for off := headerSize; off+entrySize <= len(b); off += entrySize {
		if binary.LittleEndian.Uint64(b[off:]) != 0 {
			continue
		}
		covered := int64(binary.LittleEndian.Uint64(b[off+8:]))
		if covered < ix.Covered {
			break // a batch covers no less than the one before
		}
		ix.Covered, ix.Size = covered, int64(off+entrySize)
	}
	ix.body = b[headerSize:ix.Size]
	return ix, nil
}

// Find is the offsets of the pre records of hash h, oldest first.
func (ix *Index) Find(h uint64) []int64 { return ix.find(h, false) }

// FindPost is the offsets of the post records of hash h, oldest first.
func (ix *Index) FindPost(h uint64) []int64 { return ix.find(h, true) }

func (ix *Index) find(h uint64, post bool) []int64 {
	var out []int64
	for off := 0; off+entrySize <= len(ix.body); off += entrySize {
		if binary.LittleEndian.Uint64(ix.body[off:]) == h {
			o := binary.LittleEndian.Uint64(ix.body[off+8:])
			if (o&postBit != 0) == post {
				out = append(out, int64(o&^postBit))
			}
		}
	}
	return out
}

// AppendBody appends the index's whole batches, as AppendBatch wrote
// them, to dst: for an index written anew.
func (ix *Index) AppendBody(dst []byte) []byte { return append(dst, ix.body...) }

// AppendHeader appends a new index's header, for the turn file of that
// device and inode.
func AppendHeader(dst []byte, dev, ino uint64) []byte {
	dst = append(dst, magic...)
	dst = binary.LittleEndian.AppendUint32(dst, Version)
	dst = binary.LittleEndian.AppendUint32(dst, 0)
	dst = binary.LittleEndian.AppendUint64(dst, dev)
	return binary.LittleEndian.AppendUint64(dst, ino)
}

// AppendBatch appends entries and the close of their batch, covering the
// turn file's first covered bytes.
func AppendBatch(dst []byte, ents []Entry, covered int64) []byte {
	for _, e := range ents {
		o := uint64(e.Off)
		if e.Post {
			o |= postBit
		}
		dst = binary.LittleEndian.AppendUint64(dst, e.Hash)
		dst = binary.LittleEndian.AppendUint64(dst, o)
	}
	dst = binary.LittleEndian.AppendUint64(dst, 0)
	return binary.LittleEndian.AppendUint64(dst, uint64(covered))
}
