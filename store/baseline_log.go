package store

import (
	"bytes"
	"encoding/binary"
	"os"
	"slices"
	"strings"
	"sync"

	bltab "github.com/ckpt-dev/ckpt/store/internal/baseline"
)

// baselineLog holds the sweeps' changes since the table was written, a
// frame each (see "Shell sweeps" in doc_sweeps.go).
const baselineLog = "baseline.log"

// baselineLogMagic starts the log; its last byte is the version.
const baselineLogMagic = "ckptbll\x00\x01"

// blSource is a baseline as it stands on disk: the table (or a legacy
// file decoded whole) and, over it, what the log's frames put and
// removed. Lookups read the table's blocks as they need them. Callers
// hold sweep.lock; the walk's workers look paths up at once, hence mu.
type blSource struct {
	mu     sync.Mutex
	file   *os.File
	table  *blTable    // nil: legacy
	legacy []baseEntry // a legacy file's entries
	gen    []byte
	// over is the log's entries by path, nil for a removed one; keys
	// sorted.
	over     map[string]*baseEntry
	keys     []string
	logEnd   int64 // where the last whole frame of the log ends; 0: no log to extend
	logBytes int64 // the log's size, up to logEnd
	size     int64 // the table's size
	// err is the first damage a lookup found (a block failing its
	// check): the sweep then reads every file, as for any damage.
	err error
}

// close lets the file go.
func (s *blSource) close() {
	if s != nil && s.file != nil {
		s.file.Close()
		s.file = nil
	}
}

// size is how many entries b holds, as its file says (0 for none).
func (b *baseline) size() int {
	switch {
	case b == nil:
		return 0
	case b.src == nil || b.loaded:
		return len(b.entries)
	case b.src.table != nil:
		return b.src.table.total
	}
	return len(b.src.legacy)
}

// close lets go of the file b was read from, if any.
func (b *baseline) close() {
	if b != nil {
		b.src.close()
	}
}

// find is the entry for rel, or nil. A block that fails its check makes
// it nil too, and the source remembers the failure (see err).
func (b *baseline) find(rel string) *baseEntry {
	if b.src == nil || b.loaded {
		i, ok := slices.BinarySearchFunc(b.entries, rel, func(e baseEntry, p string) int { return strings.Compare(e.path, p) })
		if !ok {
			return nil
		}
		return &b.entries[i]
	}
	e, _ := b.src.get(rel)
	return e
}

func (s *blSource) get(rel string) (*baseEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.over[rel]; ok {
		return e, nil
	}
	if s.table == nil {
		i, ok := slices.BinarySearchFunc(s.legacy, rel, func(e baseEntry, p string) int { return strings.Compare(e.path, p) })
		if !ok {
			return nil, nil
		}
		return &s.legacy[i], nil
	}
	bi, k, err := s.table.seek(rel)
	if err == nil && bi < s.table.t.Blocks() {
		var blk []baseEntry
		if blk, err = s.table.block(bi); err == nil && blk[k].path == rel {
			return &blk[k], nil
		}
	}
	if err != nil && s.err == nil {
		s.err = err
	}
	return nil, err
}

// blIter walks a source's entries in path order from a key on: the
// table's (or legacy file's) and the log's, the log's winning.
type blIter struct {
	s      *blSource
	bi, k  int         // the table's position
	blk    []baseEntry // block bi
	li     int         // the legacy position
	oi     int         // the log's position
	err    error
	cached bool // keep the blocks read (lookups), or not (a walk of all)
}

// seek moves to the first entry at or after key.
func (it *blIter) seek(key string) {
	s := it.s
	it.oi, _ = slices.BinarySearch(s.keys, key)
	if s.table == nil {
		it.li, _ = slices.BinarySearchFunc(s.legacy, key, func(e baseEntry, p string) int { return strings.Compare(e.path, p) })
		return
	}
	if it.bi, it.k, it.err = s.table.seek(key); it.err == nil {
		it.load()
	}
}

// seekOn moves on to the first entry at or after key, a key past the
// position: within the block it holds when key falls in it (a folder's
// listing skips each subfolder so, mostly within one block), else as
// seek does.
func (it *blIter) seekOn(key string) {
	s := it.s
	if s.table == nil || it.err != nil || it.blk == nil {
		it.seek(key)
		return
	}
	k, _ := slices.BinarySearch(s.keys[it.oi:], key)
	it.oi += k
	if key > it.blk[len(it.blk)-1].path {
		if it.bi, it.k, it.err = s.table.seekFrom(it.bi, key); it.err == nil {
			it.load()
		}
		return
	}
	k, _ = slices.BinarySearchFunc(it.blk[it.k:], key, func(e baseEntry, p string) int { return strings.Compare(e.path, p) })
	it.k += k
}

func (it *blIter) load() {
	it.blk = nil
	if it.bi < it.s.table.t.Blocks() {
		it.blk, it.err = it.s.table.block(it.bi)
		if !it.cached {
			delete(it.s.table.blocks, it.bi)
		}
	}
}

// base is the table's entry at the position, nil past the end.
func (it *blIter) base() *baseEntry {
	if it.s.table == nil {
		if it.li < len(it.s.legacy) {
			return &it.s.legacy[it.li]
		}
		return nil
	}
	if it.err != nil || it.blk == nil {
		return nil
	}
	return &it.blk[it.k]
}

func (it *blIter) advanceBase() {
	if it.s.table == nil {
		it.li++
		return
	}
	it.k++
	if it.k == len(it.blk) {
		it.bi, it.k = it.bi+1, 0
		it.load()
	}
}

// next is the entry at the position, and moves past it; nil at the end.
func (it *blIter) next() *baseEntry {
	for {
		b := it.base()
		var o string
		haveO := it.oi < len(it.s.keys)
		if haveO {
			o = it.s.keys[it.oi]
		}
		switch {
		case b == nil && !haveO:
			return nil
		case b != nil && (!haveO || b.path < o):
			it.advanceBase()
			return b
		case b != nil && b.path == o:
			it.advanceBase()
		}
		it.oi++
		if e := it.s.over[o]; e != nil {
			return e
		}
	}
}

// children calls fn with each entry directly in the folder dir ("" the
// root), in path order, skipping what lies deeper with a seek.
func (s *blSource) children(dir string, fn func(*baseEntry)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	it := &blIter{s: s, cached: true}
	it.seek(prefix)
	for {
		e := it.next()
		if e == nil || !strings.HasPrefix(e.path, prefix) {
			break
		}
		rest := e.path[len(prefix):]
		if k := strings.IndexByte(rest, '/'); k >= 0 {
			it.seekOn(prefix + rest[:k] + "0") // '0' follows '/': past that folder's contents
			continue
		}
		fn(e)
	}
	return it.err
}

// subtree calls fn with each entry under the folder dir, in path order.
func (s *blSource) subtree(dir string, fn func(*baseEntry)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	prefix := dir + "/"
	it := &blIter{s: s, cached: true}
	it.seek(prefix)
	for e := it.next(); e != nil && strings.HasPrefix(e.path, prefix); e = it.next() {
		fn(e)
	}
	return it.err
}

// full reads every entry into b.entries: a sweep that lists the whole
// tree compares it with all of them.
func (b *baseline) full() error {
	if b.src == nil || b.loaded {
		return nil
	}
	s := b.src
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.legacy) + len(s.over)
	if s.table != nil {
		n += s.table.total
	}
	entries := make([]baseEntry, 0, n)
	var err error
	if s.table != nil && s.file != nil {
		entries, err = s.fullTable(entries)
	} else {
		it := &blIter{s: s}
		it.seek("")
		for e := it.next(); e != nil; e = it.next() {
			entries = append(entries, *e)
		}
		err = it.err
	}
	if err != nil {
		return err
	}
	b.entries, b.loaded = entries, true
	s.legacy, s.over, s.keys = nil, nil, nil
	if s.table != nil {
		s.table.blocks, s.table.firsts = nil, nil
	}
	return nil
}

// A log frame holds one sweep's changes:
//
//	head               as the table's, less the generation
//	byte flags         1: the rules follow, 2: the recheck list's
//	                   changes follow (each only when it changed)
//	rules              as in the table's meta
//	recheck            two lists as in the table's meta: the paths it
//	                   gained, the paths it lost
//	uvarint n, n entries put (sorted, as in a block)
//	uvarint m, m str   paths removed

// appendFrameBody lays out one sweep's changes.
func appendFrameBody(b *baseline, rulesMoved bool, oldRecheck []string, puts []*baseEntry, dels []string) []byte {
	gained, lost := sortedDiff(b.recheck, oldRecheck)
	recheckMoved := len(gained)+len(lost) > 0
	buf := appendHead(nil, b)
	var flags byte
	if rulesMoved {
		flags |= 1
	}
	if recheckMoved {
		flags |= 2
	}
	buf = append(buf, flags)
	if rulesMoved {
		buf = appendRules(buf, b.rules)
	}
	if recheckMoved {
		buf = appendStrs(buf, gained)
		buf = appendStrs(buf, lost)
	}
	buf = binary.AppendUvarint(buf, uint64(len(puts)))
	prev := ""
	for _, e := range puts {
		buf = appendEntry(buf, prev, e)
		prev = e.path
	}
	return appendStrs(buf, dels)
}

// logStart is where a log's frames start.
const logStart = len(baselineLogMagic) + bltab.GenLen + 4

// readLogBytes reads the log, when it extends the table of gen; nil
// otherwise (none, or one a compaction left behind).
func (s *Store) readLogBytes(gen []byte) []byte {
	data, err := s.dir.ReadFile(baselineLog)
	if err != nil || len(data) < logStart || !bytes.HasPrefix(data, []byte(baselineLogMagic)) {
		return nil
	}
	g, _, err := bltab.LogGen(data, len(baselineLogMagic))
	if err != nil || !bytes.Equal(g, gen) {
		return nil
	}
	return data
}

// logHead sets b's head from the log's last frame, reading only the
// log's tail when it ends with a whole frame.
func (s *Store) logHead(b *baseline, src *blSource) {
	f, err := s.dir.Open(baselineLog)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() < int64(logStart) {
		return
	}
	hdr := make([]byte, logStart)
	if _, err := f.ReadAt(hdr, 0); err != nil {
		return
	}
	g, _, err := bltab.LogGen(hdr, len(baselineLogMagic))
	if err != nil || !bytes.Equal(g, src.gen) || !bytes.HasPrefix(hdr, []byte(baselineLogMagic)) {
		return
	}
	tail := min(fi.Size()-int64(logStart), 64<<10)
	buf := make([]byte, tail)
	if _, err := f.ReadAt(buf, fi.Size()-tail); err != nil {
		return
	}
	body, ok := bltab.LastFrame(buf, 0)
	if !ok {
		data := s.readLogBytes(src.gen)
		if data == nil {
			return
		}
		frames, _ := bltab.Frames(data, logStart)
		if len(frames) == 0 {
			return
		}
		body = frames[len(frames)-1]
	}
	var h baseline
	d := &bdec{b: body}
	d.head(&h)
	if !d.bad {
		b.at, b.turn, b.cmd, b.ops = h.at, h.turn, h.cmd, h.ops
	}
}

// readLog applies the log's whole frames over the table, in order.
func (s *Store) readLog(b *baseline, src *blSource) error {
	data := s.readLogBytes(src.gen)
	if data == nil {
		return nil
	}
	frames, end := bltab.Frames(data, logStart)
	src.logEnd, src.logBytes = int64(end), int64(end)
	src.over = map[string]*baseEntry{}
	var recheck map[string]bool
	for _, body := range frames {
		d := &bdec{b: body}
		d.head(b)
		flags := d.byte()
		if flags&1 != 0 {
			b.rules = d.rules()
		}
		if flags&2 != 0 {
			if recheck == nil {
				recheck = make(map[string]bool, len(b.recheck))
				for _, p := range b.recheck {
					recheck[p] = true
				}
			}
			for _, p := range d.strs() {
				recheck[p] = true
			}
			for _, p := range d.strs() {
				delete(recheck, p)
			}
		}
		n := d.uvarint()
		if d.bad || n > uint64(len(body)) {
			return errf("%s: %w", s.path(baselineLog), errBadBaseline)
		}
		prev := ""
		for range n {
			e := d.entry(prev)
			prev = e.path
			src.over[e.path] = &e
		}
		for _, p := range d.strs() {
			src.over[p] = nil
		}
		if d.bad || d.p != len(body) {
			return errf("%s: %w", s.path(baselineLog), errBadBaseline)
		}
	}
	if recheck != nil {
		b.recheck = make([]string, 0, len(recheck))
		for p := range recheck {
			b.recheck = append(b.recheck, p)
		}
		slices.Sort(b.recheck)
	}
	src.keys = make([]string, 0, len(src.over))
	for p := range src.over {
		src.keys = append(src.keys, p)
	}
	slices.Sort(src.keys)
	return nil
}

// sortedDiff is what the sorted list a holds that b does not, and what b
// holds that a does not.
func sortedDiff(a, b []string) (onlyA, onlyB []string) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			onlyA = append(onlyA, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			onlyB = append(onlyB, b[j])
			j++
		default:
			i, j = i+1, j+1
		}
	}
	return onlyA, onlyB
}
