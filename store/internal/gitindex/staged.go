package gitindex

import (
	"bufio"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
)

// Digest is what an index stages, digested (see Staged).
type Digest [sha256.Size]byte

func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// Staged digests what an index stages: each entry's path, mode, object,
// stage and extended flags (intent to add), in order. Two indexes that stage the same things have the
// same digest whatever stat data git cached in them (`git status`
// rewrites the index to refresh it) and whatever extensions they carry;
// staging, unstaging or a merge's sides change it. r holds the index's
// size bytes, read as a stream a few hundred KiB at a time, so a 35 MB
// index costs no 35 MB of memory.
//
// An index whose object names are SHA-256's is read as such when reading
// it as SHA-1's fails (each entry's flags give its name's length, so a
// wrong guess fails at the first entry).
func Staged(r io.ReaderAt, size int64) (Digest, error) {
	var err error
	for _, oid := range []int{sha1.Size, sha256.Size} {
		var d Digest
		if d, err = staged(io.NewSectionReader(r, 0, size), oid); err == nil {
			return d, nil
		}
	}
	return Digest{}, err
}

// staged digests the entries of the index in r, with object names of
// oid bytes.
func staged(r io.Reader, oid int) (Digest, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	hdr, err := br.Peek(12)
	if err != nil || string(hdr[:4]) != "DIRC" {
		return Digest{}, fmt.Errorf("%w: no DIRC header", ErrFormat)
	}
	version := binary.BigEndian.Uint32(hdr[4:8])
	if version < 2 || version > 4 {
		return Digest{}, fmt.Errorf("%w: version %d", ErrFormat, version)
	}
	n := binary.BigEndian.Uint32(hdr[8:12])
	_, _ = br.Discard(12)
	d := digester{h: sha256.New(), buf: make([]byte, 0, 64<<10)}
	d.buf = binary.BigEndian.AppendUint32(d.buf, n)
	var prev []byte
	for i := uint32(0); i < n; i++ {
		if prev, err = d.entry(br, version, oid, prev); err != nil {
			return Digest{}, fmt.Errorf("%w: entry %d of %d: %s", ErrFormat, i+1, n, err)
		}
	}
	// A split index's entries are a delta on its shared index, and its
	// link extension's bitmaps remove or replace shared entries: what it
	// stages is not in the entries alone.
	if ext, err := br.Peek(4); err == nil && string(ext) == "link" {
		return Digest{}, fmt.Errorf("%w: a split index", ErrFormat)
	}
	d.flush()
	var out Digest
	d.h.Sum(out[:0])
	return out, nil
}

// digester feeds what entries stage to h, a buffer at a time.
type digester struct {
	h   hash.Hash
	buf []byte
}

func (d *digester) flush() {
	d.h.Write(d.buf)
	d.buf = d.buf[:0]
}

// entry reads one entry from br and digests its name, mode, stage and
// object; prev is the name before it (version 4 names are cut from it),
// and the name read is returned for the next.
func (d *digester) entry(br *bufio.Reader, version uint32, oid int, prev []byte) ([]byte, error) {
	const fixed = 40 // ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit words
	head := fixed + oid + 2
	b, err := br.Peek(head)
	if err != nil {
		return prev, fmt.Errorf("cut short")
	}
	if cap(d.buf)-len(d.buf) < 8192 {
		d.flush()
	}
	mode := binary.BigEndian.Uint32(b[24:])
	flags := binary.BigEndian.Uint16(b[fixed+oid:])
	d.buf = binary.BigEndian.AppendUint32(d.buf, mode)
	d.buf = append(d.buf, byte(flags>>12)&7) // the stage, and whether extended flags follow
	d.buf = append(d.buf, b[fixed:fixed+oid]...)
	_, _ = br.Discard(head)
	if flags&0x4000 != 0 { // extended flags (version 3 on)
		if version < 3 {
			return prev, fmt.Errorf("extended flags")
		}
		x, err := br.Peek(2)
		if err != nil {
			return prev, fmt.Errorf("cut short")
		}
		// Intent to add (git add -N) is staging of a kind, and git
		// status never rewrites these flags: they count.
		d.buf = append(d.buf, x...)
		_, _ = br.Discard(2)
		head += 2
	}
	var name []byte
	if version == 4 {
		strip, err := readVarint(br)
		if err != nil || strip > uint64(len(prev)) {
			return prev, fmt.Errorf("name prefix")
		}
		rest, err := br.ReadSlice(0)
		if err != nil {
			return prev, fmt.Errorf("name not ended")
		}
		name = append(prev[:len(prev)-int(strip)], rest[:len(rest)-1]...)
	} else {
		z, err := br.ReadSlice(0)
		if err != nil {
			return prev, fmt.Errorf("name not ended")
		}
		name = append(prev[:0], z[:len(z)-1]...)
		// 1 to 8 NULs pad the entry to a multiple of 8 bytes; one was read.
		pad := (head+len(name)+8)&^7 - head - len(name) - 1
		p, err := br.Peek(pad)
		if err != nil || !zeros(p) {
			return prev, fmt.Errorf("padding")
		}
		_, _ = br.Discard(pad)
	}
	if len(name) == 0 || int(flags&0xfff) != min(len(name), 0xfff) {
		return prev, fmt.Errorf("name length")
	}
	d.buf = append(append(d.buf, name...), 0)
	return name, nil
}

func zeros(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// readVarint reads git's offset varint (see varint) from br.
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
