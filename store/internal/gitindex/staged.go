package gitindex

import (
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
	dec, err := newDecoder(r, oid)
	if err != nil {
		return Digest{}, err
	}
	d := digester{h: sha256.New(), buf: make([]byte, 0, 64<<10)}
	d.buf = binary.BigEndian.AppendUint32(d.buf, dec.n)
	for dec.more() {
		e, err := dec.next()
		if err != nil {
			return Digest{}, err
		}
		d.entry(e)
	}
	// A split index's entries are a delta on its shared index, and its
	// link extension's bitmaps remove or replace shared entries: what it
	// stages is not in the entries alone.
	if dec.splitIndex() {
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

// entry digests e's mode, stage, object, extended flags and name.
func (d *digester) entry(e *rawEntry) {
	if cap(d.buf)-len(d.buf) < 8192 {
		d.flush()
	}
	d.buf = binary.BigEndian.AppendUint32(d.buf, e.mode)
	d.buf = append(d.buf, byte(e.flags>>12)&7) // the stage, and whether extended flags follow
	d.buf = append(d.buf, e.oid...)
	// Intent to add (git add -N) is staging of a kind, and git status
	// never rewrites these flags: they count.
	if e.extended() {
		d.buf = binary.BigEndian.AppendUint16(d.buf, e.ext)
	}
	d.buf = append(append(d.buf, e.name...), 0)
}
