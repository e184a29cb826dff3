// Package pack reads and writes the pack format: many blobs in one file,
// each a zstd frame, with an index at the end (see the store's package
// doc, "Packs"):
//
//	"ckpt-pack 1\n"                       header, 12 bytes
//	frame…                                one zstd frame per blob, back to back
//	index                                 one line per blob:
//	                                      "<sha256> <offset> <frame length> <raw length>\n"
//	trailer, 32 bytes                     "CKPTIDX1", the index's offset and
//	                                      length (8 bytes each, big-endian),
//	                                      its crc32c (4 bytes), "END\n"
//
// It knows nothing of where packs live: the store names, creates, renames
// and syncs the files; this package only lays out and checks their bytes.
package pack

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
	"github.com/ckpt-dev/ckpt/store/internal/format"
)

// Version is the number in a pack's header.
const Version = 1

// The pieces of the format.
const (
	Header     = "ckpt-pack 1\n"
	Magic      = "CKPTIDX1"
	End        = "END\n"
	TrailerLen = len(Magic) + 8 + 8 + 4 + len(End)
	// IndexMax bounds an index read into memory (about 1.3 million
	// blobs): a larger one is a damaged or hostile pack.
	IndexMax = 128 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Entry is one blob of a pack: where its zstd frame lies and how long its
// raw bytes are.
type Entry struct {
	Sum       blob.ID
	Off, ZLen int64
	Size      int64
}

// ReadIndex reads the index of the pack f of size bytes, checking the
// header, the trailer, the index's checksum and that every frame lies
// inside the file. A damaged pack errs with format.ErrCorrupt, one of a
// newer version with format.ErrNewerFormat.
func ReadIndex(f io.ReaderAt, size int64) ([]Entry, error) {
	hl := int64(len(Header))
	if size < hl+int64(TrailerLen) {
		return nil, fmt.Errorf("too short to be a pack (%d bytes): %w", size, format.ErrCorrupt)
	}
	head := make([]byte, hl)
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, err
	}
	if string(head) != Header {
		if v, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(string(head), "ckpt-pack "))); err == nil {
			if err := format.CheckVersion("", "pack format", v, Version); err != nil {
				return nil, err
			}
		}
		return nil, fmt.Errorf("does not start with %q: %w", strings.TrimSpace(Header), format.ErrCorrupt)
	}
	tr := make([]byte, TrailerLen)
	if _, err := f.ReadAt(tr, size-int64(TrailerLen)); err != nil {
		return nil, err
	}
	if string(tr[:8]) != Magic || string(tr[28:]) != End {
		return nil, fmt.Errorf("its index trailer is damaged: %w", format.ErrCorrupt)
	}
	ioff := int64(binary.BigEndian.Uint64(tr[8:16]))
	ilen := int64(binary.BigEndian.Uint64(tr[16:24]))
	crc := binary.BigEndian.Uint32(tr[24:28])
	if ioff < hl || ilen < 0 || ilen > IndexMax || ioff+ilen != size-int64(TrailerLen) {
		return nil, fmt.Errorf("its index trailer is damaged: %w", format.ErrCorrupt)
	}
	idx := make([]byte, ilen)
	if _, err := f.ReadAt(idx, ioff); err != nil {
		return nil, err
	}
	if crc32.Checksum(idx, castagnoli) != crc {
		return nil, fmt.Errorf("its index does not match its checksum: %w", format.ErrCorrupt)
	}
	// Lines are parsed in place, as the writer writes them (one space
	// between fields): every process that reads a blob of a store with
	// packs reads every index first.
	ents := make([]Entry, 0, bytes.Count(idx, []byte{'\n'}))
	for len(idx) > 0 {
		line, rest, ok := bytes.Cut(idx, []byte{'\n'})
		idx = rest
		var sum blob.ID
		var nums [3]int64
		good := ok && len(line) > 2*len(sum) && line[2*len(sum)] == ' '
		if good {
			sum, good = blob.Decode(line[:2*len(sum)])
		}
		if good {
			f := line[2*len(sum)+1:]
			for i := range nums {
				if nums[i], f, good = cutDecimal(f, i < len(nums)-1); !good {
					break
				}
			}
			good = good && len(f) == 0
		}
		if !good {
			return nil, fmt.Errorf("its index holds a malformed line: %w", format.ErrCorrupt)
		}
		off, zlen, n := nums[0], nums[1], nums[2]
		if off < hl || off > ioff || zlen > ioff-off {
			return nil, fmt.Errorf("its index names a frame outside the pack: %w", format.ErrCorrupt)
		}
		ents = append(ents, Entry{Sum: sum, Off: off, ZLen: zlen, Size: n})
	}
	return ents, nil
}

// cutDecimal parses the digits b starts with (1 to 18 of them, so no
// overflow), followed by a space when more fields follow, and returns the
// rest.
func cutDecimal(b []byte, more bool) (int64, []byte, bool) {
	var v int64
	i := 0
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		v = v*10 + int64(b[i]-'0')
	}
	if i == 0 || i > 18 {
		return 0, nil, false
	}
	b = b[i:]
	if more {
		if len(b) == 0 || b[0] != ' ' {
			return 0, nil, false
		}
		b = b[1:]
	}
	return v, b, true
}

// Writer lays out one pack on w: the header first, then each frame as it
// is added, and the index and trailer at Finish. It is not safe for use
// by several goroutines at once.
type Writer struct {
	w    io.Writer
	off  int64
	ents []Entry
	err  error
}

// NewWriter writes the header to w and returns a Writer for the frames.
func NewWriter(w io.Writer) *Writer {
	pw := &Writer{w: w, off: int64(len(Header))}
	_, pw.err = io.WriteString(w, Header)
	return pw
}

// Add appends one blob's zstd frame z; size is the blob's raw length.
func (w *Writer) Add(sum blob.ID, z []byte, size int64) error {
	if w.err != nil {
		return w.err
	}
	if _, err := w.w.Write(z); err != nil {
		w.err = err
		return err
	}
	w.ents = append(w.ents, Entry{Sum: sum, Off: w.off, ZLen: int64(len(z)), Size: size})
	w.off += int64(len(z))
	return nil
}

// Len is the number of blobs added.
func (w *Writer) Len() int { return len(w.ents) }

// Finish writes the index and trailer and returns the pack's name: 24
// hex digits of the SHA-256 of its index, with ".pack".
func (w *Writer) Finish() (string, error) {
	if w.err != nil {
		return "", w.err
	}
	// "<sum> <offset> <length> <size>\n" a blob, built without fmt: a
	// bulk capture's pack indexes thousands.
	idx := make([]byte, 0, len(w.ents)*(2*len(blob.ID{})+24))
	for _, e := range w.ents {
		idx = hex.AppendEncode(idx, e.Sum[:])
		idx = append(idx, ' ')
		idx = strconv.AppendInt(idx, e.Off, 10)
		idx = append(idx, ' ')
		idx = strconv.AppendInt(idx, e.ZLen, 10)
		idx = append(idx, ' ')
		idx = strconv.AppendInt(idx, e.Size, 10)
		idx = append(idx, '\n')
	}
	tr := make([]byte, 0, TrailerLen)
	tr = append(tr, Magic...)
	tr = binary.BigEndian.AppendUint64(tr, uint64(w.off))
	tr = binary.BigEndian.AppendUint64(tr, uint64(len(idx)))
	tr = binary.BigEndian.AppendUint32(tr, crc32.Checksum(idx, castagnoli))
	tr = append(tr, End...)
	if _, err := w.w.Write(idx); err != nil {
		w.err = err
		return "", err
	}
	if _, err := w.w.Write(tr); err != nil {
		w.err = err
		return "", err
	}
	h := sha256.Sum256(idx)
	return hex.EncodeToString(h[:12]) + ".pack", nil
}
