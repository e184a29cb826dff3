package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"sort"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
	"github.com/ckpt-dev/ckpt/store/internal/format"
)

// The lookup index across packs (the store's packs.idx; see the store's
// package doc, "Packs"): one sorted table of every blob of the packs it
// names, so a lookup is a binary search in one file instead of a parse of
// every pack's index.
const (
	// MidxFile is its name in the store, for messages.
	MidxFile = "packs.idx"
	// MidxVersion is the byte after its magic.
	MidxVersion = 1
	midxMagic   = "ckptmidx\x00"
	// midxEnt is one entry: the blob's hash, its pack (an index into the
	// names), and its frame's offset, length and raw length.
	midxEnt = 32 + 4 + 8 + 8 + 8
)

// Named is a pack's name and its entries, as EncodeMidx takes them.
type Named struct {
	Name string
	Ents []Entry
}

// midx is a loaded multi-pack index: read whole (DecodeMidx), or its head
// alone (OpenMidx), each lookup reading the entries of its hash's first
// byte, until lazyFinds lookups have been made and the rest is read whole.
type Midx struct {
	Packs []string // pack file names (<id>.pack)
	fan   [256]uint32
	ents  []byte // n entries of midxEnt bytes, sorted by hash; nil until read
	n     int
	// r is where the entries are read from, starting at at, while ents
	// is nil; size is the whole file's.
	r     io.ReaderAt
	at    int64
	size  int64
	finds int
	bad   error // the entries are damaged: the index serves no lookup
}

// lazyFinds is how many lookups read their bucket of entries before the
// rest of the index is read whole: a hook asks of a blob or two, a batch
// of thousands, for which one read of the file costs less. lazyBucket
// bounds the bucket one lookup reads (an index of a few hundred thousand
// blobs): past it the index is read whole.
const (
	lazyFinds  = 16
	lazyBucket = 64 << 10
)

// Find returns the pack number and entry of sum. Of an index that turns
// out damaged it finds nothing, and Bad says why.
func (m *Midx) Find(sum blob.ID) (int, Entry, bool) {
	if m == nil || m.n == 0 || m.bad != nil {
		return 0, Entry{}, false
	}
	lo := 0
	if sum[0] > 0 {
		lo = int(m.fan[sum[0]-1])
	}
	hi := int(m.fan[sum[0]])
	ents, base := m.ents, 0
	if ents == nil {
		m.finds++
		if m.finds > lazyFinds || (hi-lo)*midxEnt > lazyBucket {
			if m.bad = m.readAll(); m.bad != nil {
				return 0, Entry{}, false
			}
			ents = m.ents
		} else if ents, m.bad = m.bucket(sum[0], lo, hi); m.bad != nil {
			return 0, Entry{}, false
		} else {
			base = lo
		}
	}
	at := func(i int) []byte { return ents[(i-base)*midxEnt : (i-base+1)*midxEnt] }
	i := lo + sort.Search(hi-lo, func(i int) bool {
		return bytes.Compare(at(lo + i)[:32], sum[:]) >= 0
	})
	if i >= hi {
		return 0, Entry{}, false
	}
	e := at(i)
	if !bytes.Equal(e[:32], sum[:]) {
		return 0, Entry{}, false
	}
	return int(binary.BigEndian.Uint32(e[32:])), entOf(e), true
}

// Whole says the entries were read whole: by DecodeMidx, or by a lookup
// past lazyFinds.
func (m *Midx) Whole() bool { return m != nil && m.ents != nil }

// Bad is why the index's entries cannot be used (nil while they can): a
// lookup found them damaged. The store then reads the packs' own indexes.
func (m *Midx) Bad() error {
	if m == nil {
		return nil
	}
	return m.bad
}

// bucket reads the entries lo to hi, those of hashes starting with first,
// checking what DecodeMidx checks of them: each starts with first, they
// are sorted, and each names a listed pack. (The checksum covers the
// whole file, which a lookup does not read.)
func (m *Midx) bucket(first byte, lo, hi int) ([]byte, error) {
	b := make([]byte, (hi-lo)*midxEnt)
	if _, err := m.r.ReadAt(b, m.at+int64(lo)*midxEnt); err != nil {
		return nil, fmt.Errorf("read %s: %w", MidxFile, err)
	}
	for i := 0; i < len(b); i += midxEnt {
		e := b[i : i+midxEnt]
		switch {
		case e[0] != first:
			return nil, midxBad("is damaged")
		case int(binary.BigEndian.Uint32(e[32:])) >= len(m.Packs):
			return nil, midxBad("names a pack it does not list")
		case i > 0 && bytes.Compare(b[i-midxEnt:i-midxEnt+32], e[:32]) >= 0:
			return nil, midxBad("is not sorted")
		}
	}
	return b, nil
}

// readAll reads the rest of the index and checks it whole, as DecodeMidx.
func (m *Midx) readAll() error {
	b := make([]byte, m.size)
	if _, err := m.r.ReadAt(b, 0); err != nil {
		return fmt.Errorf("read %s: %w", MidxFile, err)
	}
	full, err := DecodeMidx(b)
	if err != nil {
		return err
	}
	if !slices.Equal(full.Packs, m.Packs) || full.fan != m.fan {
		return midxBad("changed while read")
	}
	m.ents, m.r = full.ents, nil
	return nil
}

func midxBad(why string) error {
	return fmt.Errorf("%s %s: %w", MidxFile, why, format.ErrCorrupt)
}

// OpenMidx reads the head of the index in r (size bytes long): its names
// and fan-out, checked as DecodeMidx checks them, and the length the
// entries they count must take. Its entries are read as lookups need
// them (see Midx); r must stay open while the index is used.
func OpenMidx(r io.ReaderAt, size int64) (*Midx, error) {
	for n := min(size, 4096); ; n = min(2*n, size) {
		b := make([]byte, n)
		if _, err := r.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if err := checkMidxStart(b); err != nil {
			return nil, err
		}
		m, headLen, ok := midxHead(b)
		switch {
		case ok:
			if size != int64(headLen)+int64(m.n)*midxEnt+4 {
				return nil, midxBad("is damaged")
			}
			m.r, m.at, m.size = r, int64(headLen), size
			return m, nil
		case n == size:
			return nil, midxBad("is damaged")
		}
	}
}

// checkMidxStart checks the magic and the version.
func checkMidxStart(b []byte) error {
	if len(b) < len(midxMagic)+1 || string(b[:len(midxMagic)]) != midxMagic {
		return midxBad("does not start as a lookup index")
	}
	if v := int(b[len(midxMagic)]); v != MidxVersion {
		if err := format.CheckVersion(MidxFile, "pack index format", v, MidxVersion); err != nil {
			return err
		}
		return midxBad("has an unknown version")
	}
	return nil
}

// midxHead parses the names and the fan-out after the version byte;
// false when b ends before they do, or they are damaged (then the full
// read is damaged too).
func midxHead(b []byte) (*Midx, int, bool) {
	r := b[len(midxMagic)+1:]
	names, ok := midxNames(r)
	if !ok {
		return nil, 0, false
	}
	used := len(b) - len(r)
	k, w := binary.Uvarint(r)
	used += w
	for range k {
		l, w := binary.Uvarint(b[used:])
		used += w + int(l)
	}
	if len(b)-used < 256*4 {
		return nil, 0, false
	}
	m := &Midx{Packs: names}
	var prev uint32
	for i := range m.fan {
		m.fan[i] = binary.BigEndian.Uint32(b[used+i*4:])
		if m.fan[i] < prev {
			return nil, 0, false
		}
		prev = m.fan[i]
	}
	m.n = int(prev)
	return m, used + 256*4, true
}

func entOf(e []byte) Entry {
	var sum blob.ID
	copy(sum[:], e[:32])
	return Entry{
		Sum:  sum,
		Off:  int64(binary.BigEndian.Uint64(e[36:])),
		ZLen: int64(binary.BigEndian.Uint64(e[44:])),
		Size: int64(binary.BigEndian.Uint64(e[52:])),
	}
}

// Names is the packs the index covers (nil for none).
func (m *Midx) Names() []string {
	if m == nil {
		return nil
	}
	return m.Packs
}

// Covers reports whether the index names pack name.
func (m *Midx) Covers(name string) bool {
	if m == nil {
		return false
	}
	for _, p := range m.Packs {
		if p == name {
			return true
		}
	}
	return false
}

// EncodeMidx builds the lookup index for packs:
//
//	"ckptmidx\x00" and a version byte
//	uvarint k, then k pack names (uvarint length, bytes)
//	256 uint32 fan-out counts (big-endian): entries whose hash's first
//	byte is at most i
//	n entries of 60 bytes, sorted by hash: 32 bytes of hash, uint32
//	pack, uint64 offset, uint64 frame length, uint64 raw length
//	uint32 crc32c of everything before it
//
// A blob held by more than one pack appears once.
func EncodeMidx(packs []Named) []byte {
	sort.Slice(packs, func(i, j int) bool { return packs[i].Name < packs[j].Name })
	type ref struct {
		e Entry
		p uint32
	}
	n := 0
	for _, p := range packs {
		n += len(p.Ents)
	}
	all := make([]ref, 0, n)
	for i, p := range packs {
		for _, e := range p.Ents {
			all = append(all, ref{e, uint32(i)})
		}
	}
	sort.Slice(all, func(i, j int) bool { return bytes.Compare(all[i].e.Sum[:], all[j].e.Sum[:]) < 0 })
	b := append([]byte(midxMagic), byte(MidxVersion))
	b = binary.AppendUvarint(b, uint64(len(packs)))
	for _, p := range packs {
		b = binary.AppendUvarint(b, uint64(len(p.Name)))
		b = append(b, p.Name...)
	}
	var fan [256]uint32
	var ents []byte
	var last blob.ID
	count := 0
	for i, r := range all {
		if i > 0 && r.e.Sum == last {
			continue
		}
		last = r.e.Sum
		fan[r.e.Sum[0]]++
		count++
		ents = append(ents, r.e.Sum[:]...)
		ents = binary.BigEndian.AppendUint32(ents, r.p)
		ents = binary.BigEndian.AppendUint64(ents, uint64(r.e.Off))
		ents = binary.BigEndian.AppendUint64(ents, uint64(r.e.ZLen))
		ents = binary.BigEndian.AppendUint64(ents, uint64(r.e.Size))
	}
	var cum uint32
	for i := range fan {
		cum += fan[i]
		b = binary.BigEndian.AppendUint32(b, cum)
	}
	b = append(b, ents...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// DecodeMidx parses the file, checking its checksum, its fan-out and that
// entries are sorted and name a listed pack.
func DecodeMidx(b []byte) (*Midx, error) {
	bad := func(why string) error { return fmt.Errorf("%s %s: %w", MidxFile, why, format.ErrCorrupt) }
	if len(b) < len(midxMagic)+1+4 || string(b[:len(midxMagic)]) != midxMagic {
		return nil, bad("does not start as a lookup index")
	}
	if v := int(b[len(midxMagic)]); v != MidxVersion {
		if err := format.CheckVersion(MidxFile, "pack index format", v, MidxVersion); err != nil {
			return nil, err
		}
		return nil, bad("has an unknown version")
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, bad("does not match its checksum")
	}
	r := body[len(midxMagic)+1:]
	k, w := binary.Uvarint(r)
	if w <= 0 || k > 1<<20 {
		return nil, bad("is damaged")
	}
	r = r[w:]
	m := &Midx{}
	for range k {
		l, w := binary.Uvarint(r)
		if w <= 0 || uint64(len(r)-w) < l {
			return nil, bad("is damaged")
		}
		m.Packs = append(m.Packs, string(r[w:w+int(l)]))
		r = r[w+int(l):]
	}
	if len(r) < 256*4 {
		return nil, bad("is damaged")
	}
	var prev uint32
	for i := range m.fan {
		m.fan[i] = binary.BigEndian.Uint32(r[i*4:])
		if m.fan[i] < prev {
			return nil, bad("is damaged")
		}
		prev = m.fan[i]
	}
	r = r[256*4:]
	m.n = int(prev)
	if len(r) != m.n*midxEnt {
		return nil, bad("is damaged")
	}
	m.ents = r
	for i := range m.n {
		e := r[i*midxEnt:]
		if int(binary.BigEndian.Uint32(e[32:])) >= len(m.Packs) {
			return nil, bad("names a pack it does not list")
		}
		if i > 0 && bytes.Compare(r[(i-1)*midxEnt:(i-1)*midxEnt+32], e[:32]) >= 0 {
			return nil, bad("is not sorted")
		}
	}
	return m, nil
}

// MidxNames reads the names of the packs the index in r (size bytes
// long) covers from its head alone, without reading its entries or
// checking its checksum, which DecodeMidx does: a count of the packs it
// covers costs the few hundred bytes of the names, not the file, which
// holds 60 bytes a blob. A head that does not parse errs as DecodeMidx
// would.
func MidxNames(r io.ReaderAt, size int64) ([]string, error) {
	bad := func(why string) error { return fmt.Errorf("%s %s: %w", MidxFile, why, format.ErrCorrupt) }
	for n := min(size, 4096); ; n = min(2*n, size) {
		b := make([]byte, n)
		if _, err := r.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if len(b) < len(midxMagic)+1 || string(b[:len(midxMagic)]) != midxMagic {
			return nil, bad("does not start as a lookup index")
		}
		if v := int(b[len(midxMagic)]); v != MidxVersion {
			if err := format.CheckVersion(MidxFile, "pack index format", v, MidxVersion); err != nil {
				return nil, err
			}
			return nil, bad("has an unknown version")
		}
		names, ok := midxNames(b[len(midxMagic)+1:])
		switch {
		case ok:
			return names, nil
		case n == size:
			return nil, bad("is damaged")
		}
	}
}

// midxNames parses the names at the start of r; false when r ends
// before they do (or they cannot be names).
func midxNames(r []byte) ([]string, bool) {
	k, w := binary.Uvarint(r)
	if w <= 0 || k > 1<<20 {
		return nil, false
	}
	r = r[w:]
	names := make([]string, 0, k)
	for range k {
		l, w := binary.Uvarint(r)
		if w <= 0 || uint64(len(r)-w) < l {
			return nil, false
		}
		names = append(names, string(r[w:w+int(l)]))
		r = r[w+int(l):]
	}
	return names, true
}
