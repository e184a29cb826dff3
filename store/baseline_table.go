package store

import (
	"encoding/binary"
	"slices"
	"strings"

	bltab "github.com/ckpt-dev/ckpt/store/internal/baseline"
)

// The baseline of version 5 is a table of blocks (see "Shell sweeps" in
// doc_sweeps.go) and a log beside it; this file reads and writes the table's
// entries, baseline_log.go the log.

// blockEntries is how many entries a block holds: a lookup decodes one
// block, a few kilobytes.
const blockEntries = 64

// appendEntry lays out one entry after prev (the previous entry's path
// in the same block, "" for a block's first).
func appendEntry(buf []byte, prev string, e *baseEntry) []byte {
	n := 0
	for n < len(prev) && n < len(e.path) && prev[n] == e.path[n] {
		n++
	}
	buf = binary.AppendUvarint(buf, uint64(n))
	buf = appendStr(buf, e.path[n:])
	if e.kind == baseSpecial {
		buf = append(buf, baseUnknown) // marked in its mode (see baseSpecial)
	} else {
		buf = append(buf, e.kind)
	}
	buf = binary.AppendUvarint(buf, uint64(e.mode))
	if e.kind == baseDir {
		buf = binary.AppendVarint(buf, e.mtime)
		buf = binary.AppendVarint(buf, e.ctime)
		return binary.AppendUvarint(buf, e.ino)
	}
	buf = binary.AppendUvarint(buf, uint64(e.size))
	buf = binary.AppendVarint(buf, e.mtime)
	buf = binary.AppendVarint(buf, e.ctime)
	buf = binary.AppendUvarint(buf, e.ino)
	switch e.kind {
	case baseFile, baseSkipped:
		buf = append(buf, e.sum[:]...)
	case baseLink:
		buf = appendStr(buf, e.link)
	}
	return buf
}

// entry decodes one entry after prev; d.bad on anything amiss.
func (d *bdec) entry(prev string) baseEntry {
	var e baseEntry
	shared := d.uvarint()
	suffix := d.bytes()
	if d.bad || shared > uint64(len(prev)) {
		d.bad = true
		return e
	}
	rest := d.entryRest(true)
	rest.path = prev[:shared] + string(suffix)
	return rest
}

// entryRest decodes what follows an entry's path; dirTimes says whether
// a folder's entry carries its times, as in every version from 4.
func (d *bdec) entryRest(dirTimes bool) baseEntry {
	var e baseEntry
	e.kind = d.byte()
	e.mode = uint32(d.uvarint())
	switch e.kind {
	case baseDir:
		if dirTimes {
			e.mtime = d.varint()
			e.ctime = d.varint()
			e.ino = d.uvarint()
		}
		return e
	case baseFile, baseSkipped, baseLink, baseUnknown:
	default:
		d.bad = true
		return e
	}
	e.size = int64(d.uvarint())
	e.mtime = d.varint()
	e.ctime = d.varint()
	e.ino = d.uvarint()
	switch e.kind {
	case baseLink:
		e.link = d.str()
	case baseFile, baseSkipped:
		copy(e.sum[:], d.take(32))
	case baseUnknown:
		if e.mode&specialMask != 0 {
			e.kind = baseSpecial
		}
	}
	return e
}

// appendHead lays out what a table's head or a log frame starts with.
func appendHead(buf []byte, b *baseline) []byte {
	buf = binary.AppendVarint(buf, b.at)
	buf = appendStr(buf, b.turn)
	// A command too long for a head keeps its start: a table whose head
	// would not be read back would lose the baseline, and with it the
	// changes of the command it was made for.
	buf = appendStr(buf, b.cmd[:min(len(b.cmd), bltab.MaxHead/2)])
	return binary.AppendVarint(buf, b.ops)
}

func (d *bdec) head(b *baseline) {
	b.at = d.varint()
	b.turn = d.str()
	b.cmd = d.str()
	b.ops = d.varint()
}

// appendRules lays out the ignore files, sorted by path.
func appendRules(buf []byte, rules map[string][]byte) []byte {
	paths := make([]string, 0, len(rules))
	for p := range rules {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	buf = binary.AppendUvarint(buf, uint64(len(paths)))
	for _, p := range paths {
		buf = appendStr(buf, p)
		buf = appendStr(buf, string(rules[p]))
	}
	return buf
}

func (d *bdec) rules() map[string][]byte {
	m := d.uvarint()
	if d.bad || m > uint64(len(d.b)) {
		d.bad = true
		return nil
	}
	rules := make(map[string][]byte, m)
	for range m {
		p := d.str()
		rules[p] = []byte(d.str())
	}
	return rules
}

func appendStrs(buf []byte, ss []string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(ss)))
	for _, s := range ss {
		buf = appendStr(buf, s)
	}
	return buf
}

func (d *bdec) strs() []string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.b)) {
		d.bad = true
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, d.str())
	}
	return out
}

// writeTable lays out a table of version 5 through emit: b's head and
// generation gen, the entries next hands out in path order (nil at the
// end), b's rules and recheck list.
func writeTable(emit func([]byte) error, b *baseline, gen []byte, next func() *baseEntry) error {
	head := appendHead(nil, b)
	head = append(head, gen...)
	w := bltab.NewTableWriter(emit, baselineMagic, head)
	block := make([]byte, 0, 16<<10)
	count := 0
	total := uint64(0)
	prev := ""
	var last string
	flush := func() {
		if count == 0 {
			return
		}
		out := binary.AppendUvarint(make([]byte, 0, len(block)+4), uint64(count))
		w.Block(append(out, block...))
		block, count, prev = block[:0], 0, ""
	}
	for e := next(); e != nil; e = next() {
		if total > 0 && e.path <= last {
			return errf("baseline: entries out of order at %q", e.path)
		}
		last = e.path
		block = appendEntry(block, prev, e)
		prev = e.path
		count++
		total++
		if count == blockEntries {
			flush()
		}
	}
	flush()
	meta := appendRules(nil, b.rules)
	meta = appendStrs(meta, b.recheck)
	meta = binary.AppendUvarint(meta, total)
	return w.Close(meta)
}

// blTable is a version-5 table opened for lookups: blocks are read and
// decoded as they are needed, and the last blockCacheMax of them kept
// (a sweep that looks up every folder of the tree holds a few, not all).
type blTable struct {
	t      *bltab.Table
	total  int
	blocks map[int][]baseEntry
	firsts []string // by block, "" not read yet
}

// block is block i decoded.
func (t *blTable) block(i int) ([]baseEntry, error) {
	if b, ok := t.blocks[i]; ok {
		return b, nil
	}
	data, err := t.t.Block(i)
	if err != nil {
		return nil, errBadBaseline
	}
	d := &bdec{b: data}
	n := d.uvarint()
	if d.bad || n == 0 || n > uint64(len(data)) {
		return nil, errBadBaseline
	}
	// The block's paths are laid end to end in one string, made once:
	// a string a path is an allocation a path, 300,000 of them for a
	// sweep that reads the whole table.
	out := make([]baseEntry, 0, n)
	ends := make([]int, 0, n)
	var arena []byte
	prev := 0 // where the previous path starts in arena
	for range n {
		shared := d.uvarint()
		suffix := d.bytes()
		if d.bad || shared > uint64(len(arena)-prev) {
			return nil, errBadBaseline
		}
		start := len(arena)
		arena = append(arena, arena[prev:prev+int(shared)]...)
		arena = append(arena, suffix...)
		prev = start
		out = append(out, d.entryRest(true))
		ends = append(ends, len(arena))
	}
	if d.bad || d.p != len(data) {
		return nil, errBadBaseline
	}
	all := string(arena)
	for k := range out {
		from := 0
		if k > 0 {
			from = ends[k-1]
		}
		out[k].path = all[from:ends[k]]
		if k > 0 && out[k].path <= out[k-1].path {
			return nil, errBadBaseline
		}
	}
	if t.blocks == nil {
		t.blocks = map[int][]baseEntry{}
	}
	if len(t.blocks) >= blockCacheMax {
		for k := range t.blocks { // any half: lookups come in path order, mostly
			delete(t.blocks, k)
			if len(t.blocks) <= blockCacheMax/2 {
				break
			}
		}
	}
	t.blocks[i] = out
	return out, nil
}

// blockCacheMax bounds the decoded blocks a table keeps; a variable so
// tests can lower it.
var blockCacheMax = 256

// first is the first path of block i.
func (t *blTable) first(i int) (string, error) {
	if i < len(t.firsts) && t.firsts[i] != "" {
		return t.firsts[i], nil
	}
	var p string
	if b, ok := t.blocks[i]; ok {
		p = b[0].path
	} else {
		// Only the first entry's path, which shares nothing with a path
		// before it: a seek decodes one block, not each block it passes.
		data, err := t.t.Block(i)
		if err != nil {
			return "", errBadBaseline
		}
		d := &bdec{b: data}
		n, shared := d.uvarint(), d.uvarint()
		suffix := d.bytes()
		if d.bad || n == 0 || shared != 0 || len(suffix) == 0 {
			return "", errBadBaseline
		}
		p = string(suffix)
	}
	if t.firsts == nil {
		t.firsts = make([]string, t.t.Blocks()) // a block's first path is never ""
	}
	t.firsts[i] = p
	return p, nil
}

// seek is the block and index in it of the first entry at or after key.
func (t *blTable) seek(key string) (bi, k int, err error) {
	n := t.t.Blocks()
	// The last block whose first path is at most key.
	lo, hi := 0, n
	for lo < hi {
		mid := (lo + hi) / 2
		f, err := t.first(mid)
		if err != nil {
			return 0, 0, err
		}
		if f <= key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if n == 0 {
		return 0, 0, nil
	}
	return t.seekIn(max(lo-1, 0), key)
}

// seekFrom is seek for a key in block from or after it: it gallops on
// from there (a folder's listing skips a subfolder a few blocks on, not
// across the table).
func (t *blTable) seekFrom(from int, key string) (bi, k int, err error) {
	n := t.t.Blocks()
	lo, hi, step := from, from+1, 1 // block lo's first path is at most key
	for hi < n {
		f, err := t.first(hi)
		if err != nil {
			return 0, 0, err
		}
		if f > key {
			break
		}
		lo, step = hi, step*2
		hi = lo + step
	}
	hi = min(hi, n)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		f, err := t.first(mid)
		if err != nil {
			return 0, 0, err
		}
		if f <= key {
			lo = mid
		} else {
			hi = mid
		}
	}
	return t.seekIn(lo, key)
}

// seekIn is the position of the first entry at or after key, which lies
// in block bi or at the start of the next.
func (t *blTable) seekIn(bi int, key string) (int, int, error) {
	b, err := t.block(bi)
	if err != nil {
		return 0, 0, err
	}
	k, _ := slices.BinarySearchFunc(b, key, func(e baseEntry, p string) int { return strings.Compare(e.path, p) })
	if k == len(b) {
		return bi + 1, 0, nil
	}
	return bi, k, nil
}
