package store

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/ckpt-dev/ckpt/store/internal/format"
	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
	"github.com/ckpt-dev/ckpt/store/internal/turnidx"
)

// A capture or a seal needs two things of its turn's file: whether the
// turn has begun, and which of its paths the turn already captured (the
// first capture wins); a shell sweep needs each path's newest seal too.
// Reading the whole file for them made every call of a long turn cost
// more than the one before; turnPaths answers them from the turn's
// header, its path index (turns/<id>.idx, see store/internal/turnidx: a
// hash table, of which a lookup reads a slot or a few) and the records
// the index does not cover yet (fewer than indexCoverBytes of them), so a
// call costs the same at the 5,000th call of a turn as at the 10th.

// turnIndexName is the path index of turn id's file.
func turnIndexName(id string) string {
	return strings.TrimSuffix(turnFileName(id), ".log") + ".idx"
}

// turnPaths is a turn file as a capture or a seal reads it.
type turnPaths struct {
	s      *Store
	id     string
	name   string   // the turn file
	f      *os.File // open for reading; nil when there is no file
	exists bool     // the file holds a turn header
	size   int64    // its length, a torn tail cut
	ix     *turnidx.Index
	ixf    *os.File        // the index's file (open to write, with the lock)
	keep   bool            // an index of a newer ckpt: never written over
	tail   []turnidx.Entry // pre records past what the index covers
	mine   map[string]bool // paths this call appends a pre record of
	full   *turn           // the whole file, read once a miss must be sure
	// damaged: an entry led to a record that is not its path's capture.
	damaged bool
}

// lockTurnPaths is lockTurn for a capture or a seal: the lock, the
// incarnation the records go to, and its file read as turnPaths. The
// caller unlocks and closes; on an error nothing is held.
func (s *Store) lockTurnPaths(asked string) (*lockFile, string, *turnPaths, error) {
	l, err := s.lock()
	if err != nil {
		return nil, "", nil, err
	}
	id, tp, err := s.turnPathsFor(asked)
	if err != nil {
		l.unlock()
		return nil, "", nil, err
	}
	return l, id, tp, nil
}

// turnPathsFor finds the incarnation records for the turn asked for go
// to and reads its file as turnPaths. Caller holds the lock, and closes
// tp.
func (s *Store) turnPathsFor(asked string) (string, *turnPaths, error) {
	id, err := s.incarnation(asked)
	if err != nil {
		return "", nil, err
	}
	tp, err := s.openTurnPaths(id, true)
	if err != nil {
		return "", nil, err
	}
	return id, tp, nil
}

// openTurnPaths reads what a capture or a seal needs of turn id's file.
// With cut (the caller holds the lock) a torn last record is cut.
func (s *Store) openTurnPaths(id string, cut bool) (*turnPaths, error) {
	tp := &turnPaths{s: s, id: id, name: turnFileName(id), mine: map[string]bool{}}
	f, err := s.dir.OpenFile(tp.name, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return tp, nil
	}
	if err != nil {
		return nil, errf("read %s: %w", s.path(tp.name), err)
	}
	tp.f = f
	fi, err := f.Stat()
	if err != nil {
		tp.close()
		return nil, errf("read %s: %w", s.path(tp.name), err)
	}
	tp.size = fi.Size()
	if err := tp.header(cut); err != nil {
		tp.close()
		return nil, err
	}
	tp.loadIndex(fi, cut)
	if err := tp.readTail(cut); err != nil {
		tp.close()
		return nil, err
	}
	return tp, nil
}

func (tp *turnPaths) close() {
	if tp.f != nil {
		_ = tp.f.Close()
	}
	if tp.ixf != nil {
		_ = tp.ixf.Close()
	}
}

// header checks the turn file's first record: a newer ckpt's file is
// refused as it is. A file whose first line is not a whole turn header
// (torn, damaged) is read whole, as readTurnFile reads it.
func (tp *turnPaths) header(cut bool) error {
	line, err := readLineAt(tp.f, 0)
	var r record.Line
	if err != nil || !record.DecodeLine(line, &r) || r.R != "turn" {
		return tp.readFull(cut)
	}
	if err := format.CheckVersion(tp.s.path(tp.name), "record format", r.V, formatVersion); err != nil {
		return err
	}
	tp.exists = r.At != 0
	return nil
}

// readFull reads the whole file, as a writer did before there were
// indexes; the index is then left as it is.
func (tp *turnPaths) readFull(cut bool) error {
	t, ok, err := tp.s.readTurnFile(tp.id, cut)
	if err != nil {
		return err
	}
	if t == nil {
		t = newTurn(tp.id)
	}
	tp.full, tp.exists, tp.keep = t, ok, true
	return nil
}

// loadIndex opens the turn's index (to write too, with write: the
// caller holds the lock), trusting it only for this very file and no
// further than the file's length; otherwise the index is built again
// from the whole file.
func (tp *turnPaths) loadIndex(fi os.FileInfo, write bool) {
	if tp.full != nil {
		return
	}
	name := turnIndexName(tp.id)
	flag := os.O_RDONLY
	if write {
		flag = os.O_RDWR
	}
	f, err := tp.s.dir.OpenFile(name, flag, 0)
	if err != nil {
		return
	}
	ifi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return
	}
	ix, err := turnidx.Parse(tp.s.path(name), f, ifi.Size())
	if errors.Is(err, ErrNewerFormat) {
		_ = f.Close()
		tp.keep = true
		return
	}
	dev, ino := fileID(fi)
	if err != nil || ix.Dev != dev || ix.Ino != ino || ix.Covered > tp.size {
		_ = f.Close()
		return
	}
	if ix.Covered > 0 {
		// The covered part must end a record.
		var b [1]byte
		if _, err := tp.f.ReadAt(b[:], ix.Covered-1); err != nil || b[0] != '\n' {
			_ = f.Close()
			return
		}
	}
	tp.ix, tp.ixf = ix, f
}

// readTail notes the pre records past what the index covers (the whole
// file when there is no index), cutting a torn last record with cut.
func (tp *turnPaths) readTail(cut bool) error {
	if tp.full != nil {
		return nil
	}
	from := tp.covered()
	data := make([]byte, tp.size-from)
	if _, err := tp.f.ReadAt(data, from); err != nil && err != io.EOF {
		return errf("read %s: %w", tp.s.path(tp.name), err)
	}
	// As record.Each reads: a damaged line is passed over, and one at
	// the end (or a line with no newline) is a torn last record.
	good := int64(0)
	var r record.Line
	for off := int64(0); off < int64(len(data)); {
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			break
		}
		next := off + int64(nl) + 1
		ok := record.DecodeLine(data[off:off+int64(nl)], &r)
		if !ok && next >= int64(len(data)) {
			break
		}
		if ok {
			tp.note(&r, from+off)
		}
		off, good = next, next
	}
	if from+good < tp.size {
		if cut {
			tp.s.changeTurn(tp.name)
			if err := storefs.TruncateDurably(tp.s.dir, tp.name, from+good); err != nil {
				return errf("cut the torn record at the end of %s: %w", tp.s.path(tp.name), err)
			}
		}
		tp.size = from + good
	}
	return nil
}

// note takes in one record of the tail at offset at.
func (tp *turnPaths) note(r *record.Line, at int64) {
	switch r.R {
	case "turn":
		if r.At != 0 {
			tp.exists = true
		}
	case "pre", "post":
		if p, why := cleanRecordPath(r.Path); why == "" && r.Img != nil {
			tp.tail = append(tp.tail, turnidx.Entry{Hash: turnidx.Hash(p), Off: at, Post: r.R == "post"})
		}
	}
}

func (tp *turnPaths) covered() int64 {
	if tp.ix == nil {
		return 0
	}
	return tp.ix.Covered
}

// has reports whether the turn holds a capture of rel: an entry of the
// index or the tail whose record, read back, is a pre record of rel. A
// damaged index can only hide a capture, which costs a capture a second
// pre record (ignored: the first wins); see sure.
func (tp *turnPaths) has(rel string) bool {
	if tp.mine[rel] {
		return true
	}
	_, ok := tp.pre(rel)
	return ok
}

// pre is rel's capture in the turn (its pre record's image), found as
// has finds it; false when the turn holds none, or only one this call
// appends.
func (tp *turnPaths) pre(rel string) (Image, bool) {
	if tp.full != nil {
		return tp.fullPre(rel)
	}
	h := turnidx.Hash(rel)
	var offs []int64
	if tp.ix != nil {
		pre, _, err := tp.ix.Find(h)
		if err != nil {
			tp.damaged = true
			return tp.fullPre(rel)
		}
		if pre >= 0 {
			offs = append(offs, pre)
		}
	}
	for _, e := range tp.tail {
		if e.Hash == h && !e.Post && e.Off >= 0 {
			offs = append(offs, e.Off)
		}
	}
	for _, off := range offs {
		line, err := readLineAt(tp.f, off)
		var r record.Line
		if err == nil && record.DecodeLine(line, &r) && r.R == "pre" && r.Img != nil {
			if p, why := cleanRecordPath(r.Path); why == "" && p == rel {
				return *r.Img, true
			}
		}
	}
	if len(offs) > 0 {
		// An entry of rel's hash at a record that is not rel's capture:
		// the index is damaged (or two paths share a 64-bit hash). The
		// whole file answers, and the index is built again.
		tp.damaged = true
		return tp.fullPre(rel)
	}
	return Image{}, false
}

// held is what the turn holds of rel: its newest seal, else its capture
// (an absent image when it has neither).
func (tp *turnPaths) held(rel string) Image {
	if img, ok := tp.lastPost(rel); ok {
		return img
	}
	if img, ok := tp.pre(rel); ok {
		return img
	}
	return Image{Kind: ImageAbsent}
}

// fullPre answers pre from the whole file, read once.
func (tp *turnPaths) fullPre(rel string) (Image, bool) {
	if !tp.fullHas(rel) || tp.full == nil {
		return Image{}, false
	}
	if f := tp.full.recorded(rel); f != nil {
		return f.pre, true
	}
	return Image{}, false
}

// sure is has, reading the whole file before it answers no: a seal of a
// path the turn did not capture fails, so a damaged index must not say so.
func (tp *turnPaths) sure(rel string) bool {
	return tp.has(rel) || tp.fullHas(rel)
}

// fullHas answers has from the whole file, read once.
func (tp *turnPaths) fullHas(rel string) bool {
	if tp.f == nil {
		return false
	}
	if tp.full == nil {
		t, _, err := tp.s.readTurnFile(tp.id, false)
		if err != nil || t == nil {
			return false
		}
		tp.full = t
	}
	return tp.mine[rel] || tp.full.recorded(rel) != nil
}

// lastPost is rel's newest post record in the turn: the index's or the
// tail's, whichever lies further into the file, read back and checked to
// be a post record of rel. An entry that leads elsewhere (a damaged
// index) has the whole file answer.
func (tp *turnPaths) lastPost(rel string) (Image, bool) {
	if tp.full != nil {
		if f := tp.full.byPath[rel]; f != nil && f.post != nil {
			return *f.post, true
		}
		return Image{}, false
	}
	h := turnidx.Hash(rel)
	newest := int64(-1)
	if tp.ix != nil {
		_, post, err := tp.ix.Find(h)
		if err != nil {
			tp.damaged = true
			return tp.fullPost(rel)
		}
		newest = post
	}
	for _, e := range tp.tail {
		if e.Hash == h && e.Post && e.Off > newest {
			newest = e.Off
		}
	}
	if newest < 0 {
		return Image{}, false
	}
	line, err := readLineAt(tp.f, newest)
	var r record.Line
	if err == nil && record.DecodeLine(line, &r) && r.R == "post" && r.Img != nil {
		if p, why := cleanRecordPath(r.Path); why == "" && p == rel {
			return *r.Img, true
		}
	}
	tp.damaged = true
	return tp.fullPost(rel)
}

// fullPost answers lastPost from the whole file, read once.
func (tp *turnPaths) fullPost(rel string) (Image, bool) {
	if tp.fullHas(rel); tp.full == nil {
		return Image{}, false
	}
	return tp.lastPost(rel)
}

// appendPre appends a pre record of rel to buf, noting where it lies.
func (tp *turnPaths) appendPre(buf []byte, rel string, r *record.Line) []byte {
	tp.tail = append(tp.tail, turnidx.Entry{Hash: turnidx.Hash(rel), Off: -1 - int64(len(buf))})
	tp.mine[rel] = true
	return record.Append(buf, r)
}

// indexCoverBytes is how much of the turn file a reader reads past what
// the index covers, at most, before a writer makes the index cover it:
// each time, the index is synced once, so the sync costs a share of the
// records' writing, and a turn file shorter than this has no index (it is
// read whole, which costs no more).
const indexCoverBytes = 16 << 10

// appended writes the index after buf was appended to the turn file and
// made durable: it merges the records past what the index covered into
// its slots, and once they are indexCoverBytes or more it syncs the index
// and covers them. With synced, buf was made durable by a barrier of the
// whole file system (a capture's or a seal's), which made durable every
// slot merged before it too: then the index covers, with no sync of its
// own, what earlier writers merged (see mergedUpTo), and the next call
// reads only what came since. The index is a cache: a failure to write it
// costs the next call a longer read, so it is not reported.
func (tp *turnPaths) appended(buf []byte, synced bool) {
	if tp.keep {
		return
	}
	if tp.damaged {
		_ = tp.s.dir.Remove(turnIndexName(tp.id)) // the next writer builds it from the turn file
		return
	}
	base := tp.size
	ents := make([]turnidx.Entry, 0, len(tp.tail))
	for _, e := range tp.tail {
		if e.Off >= 0 {
			ents = append(ents, e) // read from the file; buf's come next
		}
	}
	// Every pre and post record of buf, wherever it came from.
	var r record.Line
	for off := 0; off < len(buf); {
		nl := bytes.IndexByte(buf[off:], '\n')
		if nl < 0 {
			break
		}
		if record.DecodeLine(buf[off:off+nl], &r) && (r.R == "pre" || r.R == "post") && r.Img != nil {
			if p, why := cleanRecordPath(r.Path); why == "" {
				ents = append(ents, turnidx.Entry{Hash: turnidx.Hash(p), Off: base + int64(off), Post: r.R == "post"})
			}
		}
		off += nl + 1
	}
	covered := base + int64(len(buf))
	due := covered-tp.covered() >= indexCoverBytes
	switch {
	case tp.ix == nil && !due:
		return // a short turn file is read whole: no index yet
	case tp.ix != nil:
		upto := int64(-1)
		if synced && !due {
			upto = tp.mergedUpTo(base) // before this call's slots are merged
		}
		// The slots may run ahead of what the index covers: a reader
		// takes the newest of theirs and the tail's.
		ok, err := tp.ix.Update(tp.ixf, ents)
		if err != nil {
			return
		}
		if ok && !due {
			if upto > tp.ix.Covered {
				_ = tp.ix.Cover(tp.ixf, upto)
			}
			return
		}
		if ok && tp.ixf.Sync() == nil && tp.ix.Cover(tp.ixf, covered) == nil {
			return
		}
	}
	tp.rebuildIndex(ents, covered)
}

// mergedUpTo is how far the index may cover once a barrier made durable
// the slots merged so far: up to the first record past what it covers
// whose slot no earlier writer merged (one killed before it did), or to
// base, where this call's records begin.
func (tp *turnPaths) mergedUpTo(base int64) int64 {
	for _, e := range tp.tail {
		if e.Off >= 0 && !tp.ix.Holds(e) {
			return e.Off
		}
	}
	return base
}

// rebuildIndex writes the index anew, twice as large as it was: what it
// held and ents, covering the turn file's first covered bytes. It is
// synced before it replaces the old one, as Cover is.
func (tp *turnPaths) rebuildIndex(ents []turnidx.Entry, covered int64) {
	name := turnIndexName(tp.id)
	if tp.ix != nil {
		held, err := tp.ix.Entries()
		if err != nil {
			_ = tp.s.dir.Remove(name) // built from the turn file next time
			return
		}
		ents = append(held, ents...)
	}
	fi, err := tp.s.dir.Lstat(tp.name)
	if err != nil {
		return
	}
	dev, ino := fileID(fi)
	_ = storefs.WriteAtomic(tp.s.dir, name, turnidx.Build(dev, ino, ents, covered), 0o600, true) // a cache: see appended
}

// readLineAt reads the line starting at off, without its newline.
func readLineAt(f *os.File, off int64) ([]byte, error) {
	buf := make([]byte, 0, 1024)
	for {
		chunk := make([]byte, max(1024, len(buf)))
		n, err := f.ReadAt(chunk, off+int64(len(buf)))
		if i := bytes.IndexByte(chunk[:n], '\n'); i >= 0 {
			return append(buf, chunk[:i]...), nil
		}
		buf = append(buf, chunk[:n]...)
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// fileID is the device and inode of fi.
func fileID(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), st.Ino
	}
	return 0, 0
}
