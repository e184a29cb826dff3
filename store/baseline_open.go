package store

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"

	bltab "github.com/ckpt-dev/ckpt/store/internal/baseline"
	"github.com/ckpt-dev/ckpt/store/internal/format"
)

// Opening the baseline: its table for lookups, or read whole.

// fullTable appends every entry of the table, with the log's over
// them, to out: the table is read in pieces of about a megabyte, each
// entry decoded once into out, the paths of a piece into one string.
func (s *blSource) fullTable(out []baseEntry) ([]baseEntry, error) {
	t := s.table.t
	oi := 0
	type span struct{ i, at, n int }
	var spans []span
	emitOver := func(upto []byte, all bool) {
		for ; oi < len(s.keys) && (all || s.keys[oi] < string(upto)); oi++ {
			if e := s.over[s.keys[oi]]; e != nil {
				out = append(out, *e)
			}
		}
	}
	const piece = 1 << 20
	var buf, arena, prev, last []byte
	for bi := 0; bi < t.Blocks(); {
		lo, _ := t.Span(bi)
		end := bi + 1
		for end < t.Blocks() {
			if _, h := t.Span(end); h-lo > piece {
				break
			}
			end++
		}
		_, hi := t.Span(end - 1)
		buf = slices.Grow(buf[:0], int(hi-lo))[:hi-lo]
		if n, err := s.file.ReadAt(buf, lo); n != len(buf) {
			return nil, errf("%w: %v", errBadBaseline, err)
		}
		arena, spans = arena[:0], spans[:0]
		for ; bi < end; bi++ {
			l, h := t.Span(bi)
			body, err := bltab.CheckBlock(buf[l-lo : h-lo])
			if err != nil {
				return nil, errBadBaseline
			}
			d := &bdec{b: body}
			cnt := d.uvarint()
			if d.bad || cnt == 0 || cnt > uint64(len(body)) {
				return nil, errBadBaseline
			}
			prev = prev[:0]
			for range cnt {
				shared := d.uvarint()
				suffix := d.bytes()
				if d.bad || shared > uint64(len(prev)) {
					return nil, errBadBaseline
				}
				prev = append(prev[:shared], suffix...)
				if len(last) > 0 && bytes.Compare(prev, last) <= 0 {
					return nil, errBadBaseline
				}
				last = append(last[:0], prev...)
				e := d.entryRest(true)
				if d.bad {
					return nil, errBadBaseline
				}
				emitOver(prev, false)
				if oi < len(s.keys) && s.keys[oi] == string(prev) {
					if o := s.over[s.keys[oi]]; o != nil {
						out = append(out, *o)
					}
					oi++
					continue
				}
				spans = append(spans, span{len(out), len(arena), len(prev)})
				arena = append(arena, prev...)
				out = append(out, e)
			}
			if d.p != len(body) {
				return nil, errBadBaseline
			}
		}
		all := string(arena)
		for _, sp := range spans {
			out[sp.i].path = all[sp.at : sp.at+sp.n]
		}
	}
	emitOver(nil, true)
	return out, nil
}

// readAt reads n bytes at off of f, a file of size bytes; shorter only
// at the end.
func readAt(f *os.File, size int64) bltab.ReadAt {
	return func(off int64, n int) ([]byte, error) {
		// A damaged length asks for up to bltab.MaxHead: never make
		// more room than the file holds.
		n = int(max(0, min(int64(n), size-off)))
		buf := make([]byte, n)
		m, err := f.ReadAt(buf, off)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return buf[:m], nil
	}
}

// openBaseline opens the baseline file for lookups: its head, and for
// version 5 its index, rules and recheck list and the log over it; a
// legacy file is decoded whole. b is nil when there is none; a damaged
// one is errBadBaseline, a newer one ErrNewerFormat.
func (s *Store) openBaseline(withLog bool) (b *baseline, err error) {
	f, err := s.dir.Open(baselineFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, errf("read %s: %w", s.path(baselineFile), err)
	}
	src := &blSource{file: f}
	defer func() {
		if b == nil {
			src.close()
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return nil, errf("read %s: %w", s.path(baselineFile), err)
	}
	src.size = fi.Size()
	magic := make([]byte, len(baselineMagic))
	if n, _ := f.ReadAt(magic, 0); n < len(magic) || !bytes.HasPrefix(magic, []byte(baselineMagic[:len(baselineMagic)-1])) {
		return nil, errf("%s: %w", s.path(baselineFile), errBadBaseline)
	}
	v := int(magic[len(magic)-1])
	if err := format.CheckVersion(s.path(baselineFile), "baseline format", v, baselineVersion); err != nil {
		return nil, err
	}
	if v <= legacyBaselineVersion {
		if !withLog { // the head alone
			var hb *baseline
			err := s.mapBaseline(func(data []byte) error {
				var err error
				hb, _, err = decodeBaselineHead(data)
				return err
			})
			if err != nil {
				return nil, errf("%s: %w", s.path(baselineFile), errBadBaseline)
			}
			hb.src = src
			return hb, nil
		}
		var lb *baseline
		if err := s.mapBaseline(func(data []byte) error {
			var err error
			lb, err = decodeBaseline(data)
			return err
		}); err != nil {
			return nil, errf("%s: %w", s.path(baselineFile), errBadBaseline)
		}
		src.legacy, lb.entries = lb.entries, nil
		lb.src = src
		return lb, nil
	}
	b = &baseline{src: src}
	if !withLog {
		head, err := bltab.HeadOf(readAt(f, src.size), len(baselineMagic))
		if err != nil || !b.decodeTableHead(head) {
			return nil, errf("%s: %w", s.path(baselineFile), errBadBaseline)
		}
		s.logHead(b, src)
		return b, nil
	}
	t, err := bltab.OpenTable(readAt(f, src.size), src.size, len(baselineMagic))
	if err != nil || !b.decodeTableHead(t.Head) {
		return nil, errf("%s: %w", s.path(baselineFile), errBadBaseline)
	}
	d := &bdec{b: t.Meta}
	b.rules = d.rules()
	b.recheck = d.strs()
	total := d.uvarint()
	if d.bad || d.p != len(d.b) || total > uint64(src.size) {
		return nil, errf("%s: %w", s.path(baselineFile), errBadBaseline)
	}
	src.table = &blTable{t: t, total: int(total)}
	if err := s.readLog(b, src); err != nil {
		return nil, err
	}
	return b, nil
}

// decodeTableHead parses a table's head into b and its source's
// generation.
func (b *baseline) decodeTableHead(head []byte) bool {
	d := &bdec{b: head}
	d.head(b)
	b.src.gen = bytes.Clone(d.take(bltab.GenLen))
	return !d.bad && d.p == len(head)
}
