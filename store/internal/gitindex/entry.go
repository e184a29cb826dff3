package gitindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// The one reader of an index's entries, for Read (which keeps them all)
// and Staged (which keeps none: a 35 MB index is streamed through a
// buffer of bufSize bytes).

// bufSize is the read buffer: an entry's fixed part and its name must
// fit in it, and git's names stop at PATH_MAX.
const bufSize = 256 << 10

// fixed is an entry's stat data: ctime, mtime, dev, ino, mode, uid, gid,
// size, ten 32-bit words.
const fixed = 40

// rawEntry is one entry as the index holds it. Its slices hold until the
// decoder reads the next entry.
type rawEntry struct {
	mode  uint32
	flags uint16 // assume-valid, extended, the stage (2 bits), the name's length (12)
	ext   uint16 // the extended flags (version 3 on), when flags has extended
	oid   []byte
	name  []byte
}

// extended says whether the entry has extended flags.
func (e *rawEntry) extended() bool { return e.flags&0x4000 != 0 }

// stage is the entry's merge stage: 0, or 1-3 for a merge's sides.
func (e *rawEntry) stage() int { return int(e.flags>>12) & 3 }

// decoder reads the entries after an index's header, one at a time.
type decoder struct {
	br      *bufio.Reader
	version uint32
	n, i    uint32 // entries the header counts, entries read
	size    int    // bytes of an object name (SHA-1's or SHA-256's)
	e       rawEntry
	oid     [32]byte
	name    []byte // the last name: version 4 names are cut from it
}

// newDecoder reads the header of the index in r, whose object names are
// size bytes long.
func newDecoder(r io.Reader, size int) (*decoder, error) {
	br := bufio.NewReaderSize(r, bufSize)
	hdr, err := br.Peek(12)
	if err != nil || string(hdr[:4]) != "DIRC" {
		return nil, fmt.Errorf("%w: no DIRC header", ErrFormat)
	}
	version := binary.BigEndian.Uint32(hdr[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("%w: version %d", ErrFormat, version)
	}
	n := binary.BigEndian.Uint32(hdr[8:12])
	_, _ = br.Discard(12)
	return &decoder{br: br, version: version, n: n, size: size}, nil
}

// more says whether entries are left to read.
func (d *decoder) more() bool { return d.i < d.n }

// next reads the next entry; an error is ErrFormat naming the entry.
func (d *decoder) next() (*rawEntry, error) {
	d.i++
	e := &d.e
	head := fixed + d.size + 2
	b, err := d.br.Peek(head)
	if err != nil {
		return nil, d.bad("cut short")
	}
	e.mode = binary.BigEndian.Uint32(b[24:])
	e.flags = binary.BigEndian.Uint16(b[fixed+d.size:])
	if e.extended() && d.version < 3 {
		return nil, d.bad("extended flags")
	}
	if n := int(e.flags & 0xfff); d.version < 4 && n < 0xfff {
		return d.whole(head, n)
	}
	e.oid = append(d.oid[:0], b[fixed:fixed+d.size]...)
	_, _ = d.br.Discard(head)
	if e.extended() {
		x, err := d.br.Peek(2)
		if err != nil {
			return nil, d.bad("cut short")
		}
		e.ext = binary.BigEndian.Uint16(x)
		_, _ = d.br.Discard(2)
		head += 2
	}
	prev := d.name
	if d.version == 4 {
		strip, err := readVarint(d.br)
		if err != nil || strip > uint64(len(prev)) {
			return nil, d.bad("name prefix")
		}
		rest, err := d.br.ReadSlice(0)
		if err != nil {
			return nil, d.bad("name not ended")
		}
		d.name = append(prev[:len(prev)-int(strip)], rest[:len(rest)-1]...)
	} else {
		z, err := d.br.ReadSlice(0)
		if err != nil {
			return nil, d.bad("name not ended")
		}
		d.name = append(prev[:0], z[:len(z)-1]...)
		// 1 to 8 NULs pad the entry to a multiple of 8 bytes; one was read.
		pad := (head+len(d.name)+8)&^7 - head - len(d.name) - 1
		p, err := d.br.Peek(pad)
		if err != nil || !zeros(p) {
			return nil, d.bad("padding")
		}
		_, _ = d.br.Discard(pad)
	}
	if len(d.name) == 0 || int(e.flags&0xfff) != min(len(d.name), 0xfff) {
		return nil, d.bad("name length")
	}
	e.name = d.name
	return e, nil
}

// whole reads a version 2 or 3 entry whose flags give its name's length
// n (under 0xfff) as one piece, its slices into the read buffer: the
// fixed part of head bytes, the extended flags, the name and 1 to 8 NULs
// padding the entry to a multiple of 8 bytes.
func (d *decoder) whole(head, n int) (*rawEntry, error) {
	e := &d.e
	if e.extended() {
		head += 2
	}
	size := (head + n + 8) &^ 7
	b, err := d.br.Peek(size)
	if err != nil {
		return nil, d.bad("cut short")
	}
	name := b[head : head+n]
	if n == 0 || bytes.IndexByte(name, 0) >= 0 || !zeros(b[head+n:]) {
		return nil, d.bad("name length")
	}
	if e.extended() {
		e.ext = binary.BigEndian.Uint16(b[head-2:])
	}
	e.oid, e.name = b[fixed:fixed+d.size], name
	_, _ = d.br.Discard(size)
	return e, nil
}

// bad is the error of the entry being read.
func (d *decoder) bad(why string) error {
	return fmt.Errorf("%w: entry %d of %d: %s", ErrFormat, d.i, d.n, why)
}

// splitIndex says whether the link extension follows the entries: the
// index is split, its entries a delta on a shared index.
func (d *decoder) splitIndex() bool {
	ext, err := d.br.Peek(4)
	return err == nil && string(ext) == "link"
}

func zeros(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// readVarint reads git's offset varint (each byte 7 bits, high bit:
// more, one added per continuation) from br.
func readVarint(br *bufio.Reader) (uint64, error) {
	c, err := br.ReadByte()
	if err != nil {
		return 0, err
	}
	v := uint64(c & 0x7f)
	for i := 1; c&0x80 != 0; i++ {
		if i > 9 {
			return 0, fmt.Errorf("varint too long")
		}
		if c, err = br.ReadByte(); err != nil {
			return 0, err
		}
		v = ((v + 1) << 7) | uint64(c&0x7f)
	}
	return v, nil
}
