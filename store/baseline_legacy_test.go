package store

import (
	"encoding/binary"
	"hash/crc32"
	"slices"
)

// The baseline as ckpt wrote it whole before version 5 (version 4, one
// file, one checksum): stores made then must keep loading.

// legacyMagic is version 4's magic.
const legacyMagic = "ckptbl\x00\x04"

// encode lays b out as version 4 did.
func (b *baseline) encode() []byte {
	n := len(b.entries)
	entry := func(i int) *baseEntry { return &b.entries[i] }
	if b.list != nil {
		n = len(b.list)
		entry = func(i int) *baseEntry { return b.list[i] }
	}
	buf := []byte(legacyMagic)
	buf = appendHead(buf, b)
	buf = binary.AppendUvarint(buf, uint64(n))
	prev := ""
	for i := range n {
		e := entry(i)
		buf = appendEntry(buf, prev, e)
		prev = e.path
	}
	paths := make([]string, 0, len(b.rules))
	for p := range b.rules {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	buf = binary.AppendUvarint(buf, uint64(len(paths)))
	for _, p := range paths {
		buf = appendStr(buf, p)
		buf = appendStr(buf, string(b.rules[p]))
	}
	return binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, castagnoli))
}
