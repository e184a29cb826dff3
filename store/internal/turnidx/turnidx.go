// Package turnidx is the codec of a turn file's path index,
// turns/<id>.idx: for each path the turn holds, where in the turn file
// its first capture (pre record) and its newest seal (post record) are,
// so that a capture, a seal or a shell sweep late in a turn of thousands
// of calls reads a few hundred bytes of the index, not all of it, nor
// the turn file.
//
// The index is a cache of its turn file. Every offset it gives is checked
// against the record it points to (whose checksum and path must match);
// its header says how much of the turn file its slots cover, and the
// records past that are read from the turn file itself. An index that is
// missing, damaged, of another file or of a newer version is not trusted.
//
// Layout (integers little-endian), a hash table of 2^k slots:
//
//	"ckpttidx", uint32 version (3), uint32 0     header, 64 bytes
//	uint64 device, uint64 inode                  the turn file it indexes
//	uint64 slots, uint64 used
//	uint64 covered                               the turn file's length the slots cover
//	uint64 0
//	slots of 32 bytes: uint64 pre, uint64 post, uint64 0, uint64 hash
//
// A slot's pre is the offset of its path's oldest pre record plus one,
// its post that of the newest post record plus one (0: none). A path's
// hash is the 64-bit FNV-1a of its bytes, 0 taken as 1; hash 0 marks an
// empty slot. A path's slot is the first that holds its hash or is empty,
// from its home slot on (open addressing, with linear probing, wrapping
// at the end); at most half of the slots are used.
//
// A writer updates the slots of the records it appended in place, once
// those records are durable, and advances covered only over records
// whose slots are on disk (after an fsync of the index, or a barrier of
// the whole file system that came after their slots were written): a
// slot may run ahead of covered (a writer killed before it advanced it,
// or one that left it for later), never behind it, so what covered
// vouches for survives a crash of the machine as well as of the writer. Past half full, the table is written anew,
// twice as large, to a new file renamed over the old one: an update costs
// the same at any size, and the rewrite, which doubles, costs a constant
// share of each.
//
// Version 1 indexed pre records only; version 2 was a list of entries
// read whole. Both are built again.
package turnidx

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"io"
	"math/bits"

	"github.com/ckpt-dev/ckpt/store/internal/format"
)

// Version is the version of the index this package reads and writes.
const Version = 3

const (
	magic      = "ckpttidx"
	headerSize = 64
	slotSize   = 32
	// minSlots is the size of the smallest table.
	minSlots = 64
	// maxProbe bounds how far from its home slot an update places a
	// path: a cluster that long wants a larger table.
	maxProbe = 32
	// chunk is the slots a lookup reads at a time.
	chunk = 16
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

// Index is an index file's header, and the file, which its lookups read.
type Index struct {
	Dev, Ino uint64 // the turn file indexed
	Covered  int64  // the length of turn file the slots cover
	slots    uint64
	used     uint64
	r        io.ReaderAt
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

// Parse reads the header of the index r, size bytes long. It errs with
// ErrNotIndex on a file that is not one and with format.ErrNewerFormat
// (named as file) on a newer version. Lookups read r from then on.
func Parse(file string, r io.ReaderAt, size int64) (*Index, error) {
	var h [headerSize]byte
	if size < headerSize {
		return nil, ErrNotIndex
	}
	if _, err := r.ReadAt(h[:], 0); err != nil || string(h[:8]) != magic {
		return nil, ErrNotIndex
	}
	v := int(binary.LittleEndian.Uint32(h[8:]))
	if err := format.CheckVersion(file, "turn index", v, Version); err != nil {
		return nil, err
	}
	if v < Version {
		return nil, ErrNotIndex
	}
	ix := &Index{
		Dev: binary.LittleEndian.Uint64(h[16:]), Ino: binary.LittleEndian.Uint64(h[24:]),
		slots: binary.LittleEndian.Uint64(h[32:]), used: binary.LittleEndian.Uint64(h[40:]),
		Covered: int64(binary.LittleEndian.Uint64(h[48:])), r: r,
	}
	if ix.slots < minSlots || ix.slots&(ix.slots-1) != 0 || ix.slots > 1<<40 ||
		size != headerSize+int64(ix.slots)*slotSize || ix.used > ix.slots || ix.Covered < 0 {
		return nil, ErrNotIndex
	}
	return ix, nil
}

// home is the slot where the search for h begins (Fibonacci hashing:
// the top bits of h times the golden ratio, which spreads hashes that
// differ in a few low bits).
func home(h, slots uint64) uint64 {
	return (h * 0x9e3779b97f4a7c15) >> (64 - bits.TrailingZeros64(slots))
}

// slot is one slot's contents.
type slot struct {
	pre, post, hash uint64 // pre and post: offset+1, 0 none
}

func (s slot) encode() []byte {
	b := make([]byte, slotSize)
	binary.LittleEndian.PutUint64(b, s.pre)
	binary.LittleEndian.PutUint64(b[8:], s.post)
	binary.LittleEndian.PutUint64(b[24:], s.hash)
	return b
}

func decodeSlot(b []byte) slot {
	return slot{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[24:])}
}

// take merges e into s.
func (s *slot) take(e Entry) {
	o := uint64(e.Off) + 1
	s.hash = e.Hash
	switch {
	case e.Post && o > s.post:
		s.post = o
	case !e.Post && (s.pre == 0 || o < s.pre):
		s.pre = o
	}
}

// probe finds the slot of h: its number and contents, whether it holds
// h (else it is the empty slot h would go in), and how far it lies from
// h's home. A table with neither h nor an empty slot is not an index.
func (ix *Index) probe(h uint64) (at uint64, s slot, found bool, dist uint64, err error) {
	buf := make([]byte, chunk*slotSize)
	i := home(h, ix.slots)
	for dist < ix.slots {
		n := min(chunk, ix.slots-i, ix.slots-dist)
		b := buf[:n*slotSize]
		if _, err := ix.r.ReadAt(b, headerSize+int64(i)*slotSize); err != nil {
			return 0, slot{}, false, 0, err
		}
		for k := range n {
			s := decodeSlot(b[k*slotSize:])
			if s.hash == h || s.hash == 0 {
				return i + k, s, s.hash == h, dist + k, nil
			}
		}
		i, dist = (i+n)&(ix.slots-1), dist+n
	}
	return 0, slot{}, false, 0, ErrNotIndex
}

// Find is where hash h's records are: the offset of its oldest pre
// record and that of its newest post record the slots hold, each -1
// when they hold none.
func (ix *Index) Find(h uint64) (pre, post int64, err error) {
	_, s, found, _, err := ix.probe(h)
	if err != nil || !found {
		return -1, -1, err
	}
	return int64(s.pre) - 1, int64(s.post) - 1, nil
}

// Holds reports whether the slots hold what e says already: its hash's
// slot has a pre record no later than e (for a pre entry), or a post
// record no earlier (for a post entry).
func (ix *Index) Holds(e Entry) bool {
	_, s, found, _, err := ix.probe(e.Hash)
	if err != nil || !found {
		return false
	}
	o := uint64(e.Off) + 1
	if e.Post {
		return s.post >= o
	}
	return s.pre != 0 && s.pre <= o
}

// Update merges ents into the slots in place, writing through w (the
// index's own file), and the count of slots used. It reports false when
// an entry finds no room near its home or the table would be more than
// half full: the table wants writing anew, larger (Entries, then Build),
// and the entries before it that were written do no harm.
func (ix *Index) Update(w io.WriterAt, ents []Entry) (bool, error) {
	used := ix.used
	defer func() {
		if ix.used != used {
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], ix.used)
			_, _ = w.WriteAt(b[:], 40) // a count a crash can lose: Build counts again
		}
	}()
	for _, e := range ents {
		at, s, found, dist, err := ix.probe(e.Hash)
		if err != nil {
			return false, err
		}
		if !found && (dist >= maxProbe || 2*(ix.used+1) > ix.slots) {
			return false, nil
		}
		was := s
		s.take(e)
		if s == was {
			continue
		}
		if _, err := w.WriteAt(s.encode(), headerSize+int64(at)*slotSize); err != nil {
			return false, err
		}
		if !found {
			ix.used++
		}
	}
	return true, nil
}

// Cover records that the slots cover the turn file's first covered
// bytes, writing the header's count and length through w. The caller
// makes the slots durable first.
func (ix *Index) Cover(w io.WriterAt, covered int64) error {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], ix.used)
	binary.LittleEndian.PutUint64(b[8:], uint64(covered))
	if _, err := w.WriteAt(b[:], 40); err != nil {
		return err
	}
	ix.Covered = covered
	return nil
}

// Entries is what every used slot holds, as entries (a pre and a post
// entry a slot, where it has them).
func (ix *Index) Entries() ([]Entry, error) {
	b := make([]byte, ix.slots*slotSize)
	if _, err := ix.r.ReadAt(b, headerSize); err != nil {
		return nil, err
	}
	var out []Entry
	for off := 0; off < len(b); off += slotSize {
		s := decodeSlot(b[off:])
		if s.hash == 0 {
			continue
		}
		if s.pre != 0 {
			out = append(out, Entry{Hash: s.hash, Off: int64(s.pre) - 1})
		}
		if s.post != 0 {
			out = append(out, Entry{Hash: s.hash, Off: int64(s.post) - 1, Post: true})
		}
	}
	return out, nil
}

// Build lays out a new index of ents for the turn file of that device
// and inode, whose slots cover its first covered bytes, a quarter full
// at most (it may double before it is rewritten).
func Build(dev, ino uint64, ents []Entry, covered int64) []byte {
	distinct := make(map[uint64]struct{}, len(ents))
	for _, e := range ents {
		distinct[e.Hash] = struct{}{}
	}
	slots := uint64(minSlots)
	for slots < 4*uint64(len(distinct)) {
		slots *= 2
	}
	b := make([]byte, headerSize+slots*slotSize)
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[8:], Version)
	binary.LittleEndian.PutUint64(b[16:], dev)
	binary.LittleEndian.PutUint64(b[24:], ino)
	binary.LittleEndian.PutUint64(b[32:], slots)
	binary.LittleEndian.PutUint64(b[40:], uint64(len(distinct)))
	binary.LittleEndian.PutUint64(b[48:], uint64(covered))
	table := b[headerSize:]
	for _, e := range ents {
		i := home(e.Hash, slots)
		for {
			s := decodeSlot(table[i*slotSize:])
			if s.hash == e.Hash || s.hash == 0 {
				s.take(e)
				copy(table[i*slotSize:], s.encode())
				break
			}
			i = (i + 1) & (slots - 1)
		}
	}
	return b
}
