// Package baseline lays out the bytes of a shell sweep's baseline: a
// table (a compacted file of checksummed blocks, with an index, so one
// path is found by reading a few pages, not the whole file) and a log of
// frames appended beside it (each sweep's changes, whole or ignored). It
// knows nothing of what the blocks and frames hold; the store does.
package baseline

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// ErrDamaged means a table or log failed its checks.
var ErrDamaged = errors.New("baseline: damaged")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// tableTrailer ends a table: the offsets of its meta section and index,
// the index's checksum, and this mark.
const tableTrailer = "BLX\n"

// MaxHead is the longest head a table may have. It holds the command of
// the sweep that wrote it, whole (agents write heredocs of megabytes), so
// it is generous; it only guards against a damaged length.
const MaxHead = 256 << 20

// trailerLen is the trailer's size: two uint64, a uint32, the mark.
const trailerLen = 8 + 8 + 4 + len(tableTrailer)

// TableWriter lays a table out through emit, in pieces:
//
//	magic             as given (its last byte the version)
//	uint32 n, head    n bytes the caller's, then uint32 crc32c of magic and head
//	blocks            each the caller's bytes, then their uint32 crc32c
//	meta              the caller's bytes, then their uint32 crc32c
//	index             uint64 offset of each block (little-endian)
//	trailer           uint64 meta offset, uint64 index offset,
//	                  uint32 crc32c of the index, "BLX\n"
type TableWriter struct {
	emit  func([]byte) error
	off   uint64
	index []byte
	err   error
}

// NewTableWriter starts a table with magic and head.
func NewTableWriter(emit func([]byte) error, magic string, head []byte) *TableWriter {
	w := &TableWriter{emit: emit}
	buf := append([]byte(magic), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(buf[len(magic):], uint32(len(head)))
	buf = append(buf, head...)
	buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, castagnoli))
	w.put(buf)
	return w
}

func (w *TableWriter) put(b []byte) {
	if w.err != nil {
		return
	}
	w.err = w.emit(b)
	w.off += uint64(len(b))
}

// Block adds one block; b may be reused once it returns.
func (w *TableWriter) Block(b []byte) {
	w.index = binary.LittleEndian.AppendUint64(w.index, w.off)
	w.put(binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)))
}

// Close adds the meta section, the index and the trailer.
func (w *TableWriter) Close(meta []byte) error {
	metaOff := w.off
	w.put(binary.LittleEndian.AppendUint32(meta, crc32.Checksum(meta, castagnoli)))
	indexOff := w.off
	w.put(w.index)
	t := binary.LittleEndian.AppendUint64(nil, metaOff)
	t = binary.LittleEndian.AppendUint64(t, indexOff)
	t = binary.LittleEndian.AppendUint32(t, crc32.Checksum(w.index, castagnoli))
	w.put(append(t, tableTrailer...))
	return w.err
}

// ReadAt reads n bytes at off of a table's file; it may return a
// shorter slice only at the end of the file.
type ReadAt func(off int64, n int) ([]byte, error)

// Table reads a table through a ReadAt: it checks the head, trailer,
// index and meta when opened, and each block when it is read, so a
// lookup reads a few blocks, never the whole file.
type Table struct {
	read ReadAt
	Head []byte
	Meta []byte
	offs []uint64 // block offsets, then the meta offset
}

// HeadOf returns the head of a table (checked), without the rest.
func HeadOf(read ReadAt, magicLen int) ([]byte, error) {
	first, err := read(0, 512)
	if err != nil {
		return nil, err
	}
	if len(first) < magicLen+8 {
		return nil, ErrDamaged
	}
	n := uint64(binary.LittleEndian.Uint32(first[magicLen:]))
	end := uint64(magicLen) + 4 + n
	if end+4 > uint64(len(first)) {
		if n > MaxHead {
			return nil, ErrDamaged
		}
		if first, err = read(0, int(end)+4); err != nil {
			return nil, err
		}
		if end+4 > uint64(len(first)) {
			return nil, ErrDamaged
		}
	}
	if binary.LittleEndian.Uint32(first[end:]) != crc32.Checksum(first[:end], castagnoli) {
		return nil, ErrDamaged
	}
	return first[magicLen+4 : end], nil
}

// OpenTable checks the frame of a table of size bytes and returns it.
func OpenTable(read ReadAt, size int64, magicLen int) (*Table, error) {
	head, err := HeadOf(read, magicLen)
	if err != nil {
		return nil, err
	}
	if size < int64(trailerLen) {
		return nil, ErrDamaged
	}
	tr, err := read(size-int64(trailerLen), trailerLen)
	if err != nil {
		return nil, err
	}
	if len(tr) != trailerLen || string(tr[trailerLen-len(tableTrailer):]) != tableTrailer {
		return nil, ErrDamaged
	}
	metaOff := binary.LittleEndian.Uint64(tr)
	indexOff := binary.LittleEndian.Uint64(tr[8:])
	sum := binary.LittleEndian.Uint32(tr[16:])
	blocksAt := uint64(magicLen+4+len(head)) + 4
	indexEnd := uint64(size) - uint64(trailerLen)
	if metaOff < blocksAt || indexOff < metaOff+4 || indexOff > indexEnd || (indexEnd-indexOff)%8 != 0 || indexEnd-metaOff > 1<<30 {
		return nil, ErrDamaged
	}
	tail, err := read(int64(metaOff), int(indexEnd-metaOff))
	if err != nil {
		return nil, err
	}
	if uint64(len(tail)) != indexEnd-metaOff {
		return nil, ErrDamaged
	}
	index := tail[indexOff-metaOff:]
	if crc32.Checksum(index, castagnoli) != sum {
		return nil, ErrDamaged
	}
	meta := tail[:indexOff-metaOff-4]
	if binary.LittleEndian.Uint32(tail[indexOff-metaOff-4:]) != crc32.Checksum(meta, castagnoli) {
		return nil, ErrDamaged
	}
	t := &Table{read: read, Head: head, Meta: meta}
	t.offs = make([]uint64, 0, len(index)/8+1)
	prev := blocksAt
	for i := 0; i < len(index); i += 8 {
		o := binary.LittleEndian.Uint64(index[i:])
		if o < prev || o+4 > metaOff || i == 0 && o != blocksAt {
			return nil, ErrDamaged
		}
		t.offs = append(t.offs, o)
		prev = o + 4
	}
	if len(t.offs) == 0 && metaOff != blocksAt {
		return nil, ErrDamaged
	}
	t.offs = append(t.offs, metaOff)
	return t, nil
}

// Blocks is the number of blocks.
func (t *Table) Blocks() int { return len(t.offs) - 1 }

// Block returns block i, checked.
func (t *Table) Block(i int) ([]byte, error) {
	if i < 0 || i >= t.Blocks() {
		return nil, ErrDamaged
	}
	lo, hi := t.offs[i], t.offs[i+1]
	if hi < lo+4 || hi-lo > 1<<30 {
		return nil, ErrDamaged
	}
	b, err := t.read(int64(lo), int(hi-lo))
	if err != nil {
		return nil, err
	}
	if uint64(len(b)) != hi-lo {
		return nil, ErrDamaged
	}
	body := b[:len(b)-4]
	if binary.LittleEndian.Uint32(b[len(b)-4:]) != crc32.Checksum(body, castagnoli) {
		return nil, ErrDamaged
	}
	return body, nil
}

// Bytes is a ReadAt over data held whole.
func Bytes(data []byte) ReadAt {
	return func(off int64, n int) ([]byte, error) {
		if off < 0 || off > int64(len(data)) {
			return nil, ErrDamaged
		}
		end := min(off+int64(n), int64(len(data)))
		return data[off:end], nil
	}
}

// Span is where block i lies in the file, its checksum included: a
// reader that reads many blocks at once checks each with CheckBlock.
func (t *Table) Span(i int) (lo, hi int64) { return int64(t.offs[i]), int64(t.offs[i+1]) }

// CheckBlock checks a block read whole (as Span gives it) and returns
// its bytes.
func CheckBlock(raw []byte) ([]byte, error) {
	if len(raw) < 4 {
		return nil, ErrDamaged
	}
	body := raw[:len(raw)-4]
	if binary.LittleEndian.Uint32(raw[len(raw)-4:]) != crc32.Checksum(body, castagnoli) {
		return nil, ErrDamaged
	}
	return body, nil
}
