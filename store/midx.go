package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"sort"
)

// The multi-pack index (see the package doc, "Packs"): one sorted table of
// every blob of the packs it names, so a lookup is a binary search in one
// file instead of a parse of every pack's index.
const (
	midxFile  = "packs.idx"
	midxMagic = "ckptmidx\x00"
	// midxEnt is one entry: the blob's hash, its pack (an index into the
	// names), and its frame's offset, length and raw length.
	midxEnt = 32 + 4 + 8 + 8 + 8
	// midxMax bounds the file read into memory (about 2 million blobs).
	midxMax = 128 << 20
)

// midx is a loaded multi-pack index.
type midx struct {
	packs []string // pack file names (<id>.pack)
	fan   [256]uint32
	ents  []byte // n entries of midxEnt bytes, sorted by hash
	n     int
}

// find returns the pack number and entry of sum.
func (m *midx) find(sum BlobID) (int, packEnt, bool) {
	if m == nil || m.n == 0 {
		return 0, packEnt{}, false
	}
	lo := 0
	if sum[0] > 0 {
		lo = int(m.fan[sum[0]-1])
	}
	hi := int(m.fan[sum[0]])
	i := lo + sort.Search(hi-lo, func(i int) bool {
		return bytes.Compare(m.ents[(lo+i)*midxEnt:(lo+i)*midxEnt+32], sum[:]) >= 0
	})
	if i >= hi {
		return 0, packEnt{}, false
	}
	e := m.ents[i*midxEnt : (i+1)*midxEnt]
	if !bytes.Equal(e[:32], sum[:]) {
		return 0, packEnt{}, false
	}
	return int(binary.BigEndian.Uint32(e[32:])), m.entAt(i), true
}

func (m *midx) entAt(i int) packEnt {
	e := m.ents[i*midxEnt : (i+1)*midxEnt]
	var sum BlobID
	copy(sum[:], e[:32])
	return packEnt{
		sum:  sum,
		off:  int64(binary.BigEndian.Uint64(e[36:])),
		zlen: int64(binary.BigEndian.Uint64(e[44:])),
		size: int64(binary.BigEndian.Uint64(e[52:])),
	}
}

// covers reports whether the index names pack name.
func (m *midx) covers(name string) bool {
	if m == nil {
		return false
	}
	for _, p := range m.packs {
		if p == name {
			return true
		}
	}
	return false
}

// encodeMidx builds the file for packs (each with its entries loaded):
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
func encodeMidx(packs []*packFile) []byte {
	sort.Slice(packs, func(i, j int) bool { return packs[i].name < packs[j].name })
	type ref struct {
		e packEnt
		p uint32
	}
	n := 0
	for _, p := range packs {
		n += len(p.ents)
	}
	all := make([]ref, 0, n)
	for i, p := range packs {
		for _, e := range p.ents {
			all = append(all, ref{e, uint32(i)})
		}
	}
	sort.Slice(all, func(i, j int) bool { return bytes.Compare(all[i].e.sum[:], all[j].e.sum[:]) < 0 })
	b := append([]byte(midxMagic), byte(midxVersion))
	b = binary.AppendUvarint(b, uint64(len(packs)))
	for _, p := range packs {
		b = binary.AppendUvarint(b, uint64(len(p.name)))
		b = append(b, p.name...)
	}
	var fan [256]uint32
	var ents []byte
	var last BlobID
	count := 0
	for i, r := range all {
		if i > 0 && r.e.sum == last {
			continue
		}
		last = r.e.sum
		fan[r.e.sum[0]]++
		count++
		ents = append(ents, r.e.sum[:]...)
		ents = binary.BigEndian.AppendUint32(ents, r.p)
		ents = binary.BigEndian.AppendUint64(ents, uint64(r.e.off))
		ents = binary.BigEndian.AppendUint64(ents, uint64(r.e.zlen))
		ents = binary.BigEndian.AppendUint64(ents, uint64(r.e.size))
	}
	var cum uint32
	for i := range fan {
		cum += fan[i]
		b = binary.BigEndian.AppendUint32(b, cum)
	}
	b = append(b, ents...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// decodeMidx parses the file, checking its checksum, its fan-out and that
// entries are sorted and name a listed pack.
func decodeMidx(b []byte) (*midx, error) {
	bad := func(why string) error { return errf("%s %s: %w", midxFile, why, ErrCorrupt) }
	if len(b) < len(midxMagic)+1+4 || string(b[:len(midxMagic)]) != midxMagic {
		return nil, bad("does not start as a lookup index")
	}
	if v := int(b[len(midxMagic)]); v != midxVersion {
		if err := checkVersion(midxFile, "pack index format", v, midxVersion); err != nil {
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
	m := &midx{}
	for range k {
		l, w := binary.Uvarint(r)
		if w <= 0 || uint64(len(r)-w) < l {
			return nil, bad("is damaged")
		}
		m.packs = append(m.packs, string(r[w:w+int(l)]))
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
		if int(binary.BigEndian.Uint32(e[32:])) >= len(m.packs) {
			return nil, bad("names a pack it does not list")
		}
		if i > 0 && bytes.Compare(r[(i-1)*midxEnt:(i-1)*midxEnt+32], e[:32]) >= 0 {
			return nil, bad("is not sorted")
		}
	}
	return m, nil
}

// loadMidx reads the store's multi-pack index; nil when there is none.
// One that cannot be read is ignored (every pack's own index still
// serves), unless it is of a newer version.
func (s *Store) loadMidx() (*midx, error) {
	f, size, err := openRegular(s.dir, midxFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	if size > midxMax {
		return nil, errf("%s is %d bytes: %w", midxFile, size, ErrCorrupt)
	}
	b := make([]byte, size)
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, err
	}
	return decodeMidx(b)
}

// writeMidx replaces the multi-pack index with one naming packs, durably:
// written beside it, synced, and renamed over it.
func (s *Store) writeMidx(packs []*packFile, fp *failpoint) error {
	data := encodeMidx(packs)
	if err := writeFileAtomic(s.dir, midxFile, data, 0o600, true); err != nil {
		return errf("write %s: %w", s.path(midxFile), err)
	}
	fp.hit()
	if err := syncDir(s.dir, "."); err != nil {
		return errf("sync %s: %w", s.path("."), err)
	}
	return nil
}
