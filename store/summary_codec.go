package store

import (
	"encoding/binary"
	"hash/crc32"
	"sync"
	"unsafe"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// The summary file's codec: each entry is one turn file as load parses
// it (see Summary in the package doc). Strings decode as slices of the
// file's bytes, read once, so a store of 20,000 turns loads without an
// allocation per name. The file:
//
//	"ckptsum\x00\x04"  magic; the last byte is the version (4)
//	frame…            uvarint n, n bytes of entry, uint32 crc32c of them
//	                  (little-endian); a later entry for a name replaces
//	                  an earlier one, and the first bad frame ends the file
//	entry             str name ("turns/<id>.log"), uvarint size, varint
//	                  mtime, varint ctime, uvarint inode, uvarint length
//	                  read; str id, str label, varint at, varint n, uvarint
//	                  v, source (byte 0, or 1 and str agent, session,
//	                  prompt, transcript), str head, str ref, an optional
//	                  image (index); git's state at the end (byte 0, or 1,
//	                  or 2 when that record ended the turn, and str head,
//	                  str ref, an optional image); uvarint k, uvarint h
//	                  (of the k, those the turn made and removed, which
//	                  turn.list leaves out), then k paths: str path, image pre, optional image post,
//	                  varint at of the pre and of the post and their n
//	                  (each less the turn's own), byte 0 (the pre does
//	                  not say when its image was observed) or 1 and
//	                  varint its "seen" less the turn's n, strs dirs,
//	                  str refused (why the path is unusable), str cmd,
//	                  strs shared
//	gone              str name alone: the turn file is gone
//	generation        str "\x00gen", varint clock, the turns folder's
//	                  uvarint size, varint mtime, varint ctime, uvarint
//	                  ino, str boot (absent from older frames: see
//	                  turnsGen)
//	image             str kind, byte 0 (no hash) or 1 and the 32 bytes
//	                  of the SHA-256, varint bytes, uvarint mode, str
//	                  link, str reason, byte kept
//
// (str is a uvarint length and the bytes; strs a uvarint count and the
// strs; an optional image a byte 0, or 1 and the image.) Version 2
// lacks "seen", and version 3 the count h; neither is read (a ckpt of 2
// summarizes records that hold "seen" without it): a load reads every
// turn file and writes the summary anew.

// summaryMagic starts the file; its last byte is the version.
const summaryMagic = "ckptsum\x00\x04"

// appendSummaryEntry appends one frame: the entry's length, the entry,
// and its crc32c.
func appendSummaryEntry(buf []byte, name string, c *turnFile) []byte {
	var e sumEnc
	e.str(name)
	e.uvarint(uint64(c.st.Size))
	e.varint(c.st.Mtime)
	e.varint(c.st.Ctime)
	e.uvarint(c.st.Ino)
	e.uvarint(uint64(c.size))
	t := c.t
	e.str(t.id)
	e.str(t.label)
	e.varint(t.at)
	e.varint(t.seq)
	e.uvarint(uint64(t.v))
	if t.source == nil {
		e.b = append(e.b, 0)
	} else {
		e.b = append(e.b, 1)
		e.str(t.source.Agent)
		e.str(t.source.Session)
		e.str(t.source.Prompt)
		e.str(t.source.Transcript)
	}
	e.str(t.head)
	e.str(t.ref)
	e.optImage(t.index)
	if t.gitEnd == nil {
		e.b = append(e.b, 0)
	} else {
		e.b = append(e.b, 1)
		if t.ended {
			e.b[len(e.b)-1] = 2
		}
		e.str(t.gitEnd.head)
		e.str(t.gitEnd.ref)
		e.optImage(t.gitEnd.index)
	}
	all := t.recordedList()
	e.uvarint(uint64(len(all)))
	e.uvarint(uint64(len(all) - len(t.list())))
	for _, f := range all {
		e.str(f.path)
		e.image(&f.pre)
		e.optImage(f.post)
		// Times and orders from the turn's own: a few bytes, not nine.
		e.varint(f.preAt - t.at)
		e.varint(f.postAt - t.at)
		e.varint(f.preSeq - t.seq)
		e.varint(f.postSeq - t.seq)
		if f.seen == 0 {
			e.b = append(e.b, 0)
		} else {
			e.b = append(e.b, 1)
			e.varint(f.seen - t.seq)
		}
		e.strs(f.dirs)
		e.str(f.refused)
		e.str(f.cmd)
		e.strs(f.shared)
	}
	return e.frame(buf)
}

// frame appends the entry as a frame: its length, it, its crc32c.
func (e *sumEnc) frame(buf []byte) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(e.b)))
	buf = append(buf, e.b...)
	return binary.LittleEndian.AppendUint32(buf, crc32.Checksum(e.b, castagnoli))
}

type sumEnc struct{ b []byte }

func (e *sumEnc) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *sumEnc) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *sumEnc) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }

func (e *sumEnc) strs(l []string) {
	e.uvarint(uint64(len(l)))
	for _, s := range l {
		e.str(s)
	}
}

func (e *sumEnc) optImage(img *Image) {
	if img == nil {
		e.b = append(e.b, 0)
		return
	}
	e.b = append(e.b, 1)
	e.image(img)
}

func (e *sumEnc) image(img *Image) {
	e.str(string(img.Kind))
	if img.SHA256.IsZero() {
		e.b = append(e.b, 0)
	} else {
		e.b = append(append(e.b, 1), img.SHA256[:]...)
	}
	e.varint(img.Size)
	e.uvarint(uint64(img.Mode))
	e.str(img.Link)
	e.str(img.Reason)
	if img.Kept {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// sumFrame is one entry's place in the file.
type sumFrame struct {
	name       string
	start, end int  // the whole frame: length, entry, checksum
	body       int  // where the entry starts
	gone       bool // the name alone: its turn file is gone
}

// scanSummary checks the magic and each frame's checksum, and returns
// the frames and the length of the whole ones (a torn or damaged frame
// ends the file: what follows it is not read). ok is false when the
// file is not a summary of this version.
func scanSummary(data []byte) (frames []sumFrame, good int, ok bool) {
	if len(data) < len(summaryMagic) || string(data[:len(summaryMagic)]) != summaryMagic {
		return nil, 0, false
	}
	off := len(summaryMagic)
	for off < len(data) {
		n, k := binary.Uvarint(data[off:])
		if k <= 0 || n > uint64(len(data)-off-k) || len(data)-off-k-int(n) < 4 {
			break
		}
		body, end := off+k, off+k+int(n)
		if binary.LittleEndian.Uint32(data[end:end+4]) != crc32.Checksum(data[body:end], castagnoli) {
			break
		}
		l, k := binary.Uvarint(data[body:end])
		if k <= 0 || l > uint64(end-body-k) {
			break
		}
		// The name is a slice of data (which callers never change), not
		// a copy: 20,000 of them are most of a scan's allocations.
		name := unsafe.String(&data[body+k], int(l))
		frames = append(frames, sumFrame{name: name, start: off, body: body, end: end + 4, gone: body+k+int(l) == end})
		off = end + 4
	}
	return frames, off, true
}

// decodeSummaryEntry reads the entry of frame fr; ok is false when it
// does not parse (then it is not used).
func decodeSummaryEntry(data string, fr sumFrame) (*turnFile, bool) {
	d := sumDec{s: data[:fr.end-4], p: fr.body}
	d.str() // the name, in fr
	c := &turnFile{summed: true, fromSum: true}
	c.st.Size = int64(d.uvarint())
	c.st.Mtime = d.varint()
	c.st.Ctime = d.varint()
	c.st.Ino = d.uvarint()
	c.st.Regular = true
	c.size = int64(d.uvarint())
	t := &turn{} // byPath is built on first use (turn.file)
	t.id, t.label = d.str(), d.str()
	t.at, t.seq = d.varint(), d.varint()
	t.v = int(d.uvarint())
	if d.byte() == 1 {
		t.source = &Source{Agent: d.str(), Session: d.str(), Prompt: d.str(), Transcript: d.str()}
	}
	t.head, t.ref = d.str(), d.str()
	t.index = d.optImage()
	if b := d.byte(); b > 2 {
		d.bad = true
	} else if b != 0 {
		t.gitEnd, t.ended = &gitState{head: d.str(), ref: d.str(), index: d.optImage()}, b == 2
	}
	n := d.count(8)
	passed := d.uvarint()
	if passed > uint64(n) {
		d.bad = true
	}
	c.t = t
	if n == 0 || d.bad {
		return c, !d.bad && d.p == len(d.s)
	}
	// The paths are read when first asked for (turn.list, turn.scan).
	t.lazy = &lazyFiles{text: d.s, p: d.p, n: n, passed: int(passed)}
	return c, true
}

// lazyFiles is a turn's paths as its summary entry holds them, checked
// before first use: a list that does not decode (an entry written wrong:
// its checksum holds) is read from the turn file's records instead.
type lazyFiles struct {
	text    string // the entry, up to its checksum
	p       int    // where the paths start
	n       int    // the paths recorded
	passed  int    // of them, those passed through (turn.list leaves them out)
	checked bool
	reread  func() []*tfile
}

// ready says the list decodes whole, checking it the first time.
func (l *lazyFiles) ready(t *turn) bool {
	if !l.checked {
		d := sumDec{s: l.text, p: l.p}
		var f tfile
		var post Image
		for range l.n {
			d.file(t, &f, &post, false)
		}
		l.checked = !d.bad && d.p == len(d.s)
	}
	return l.checked
}

// decode is the paths of t (whose header gives their times and orders).
func (l *lazyFiles) decode(t *turn) []*tfile {
	d := sumDec{s: l.text, p: l.p}
	files := make([]tfile, l.n)
	out := make([]*tfile, l.n)
	var posts []Image // one allocation for the turn's seals
	var post Image
	for i := range files {
		f := &files[i]
		if d.file(t, f, &post, true) {
			if posts == nil {
				posts = make([]Image, l.n-i)
			}
			posts[0] = post
			f.post, posts = &posts[0], posts[1:]
		}
		out[i] = f
	}
	if d.bad || d.p != len(d.s) {
		return l.reread()
	}
	return out
}

// scan decodes each path into one tfile, reused, and calls fn with it,
// checking the list as it goes: ok is false when it did not decode whole
// (fn then saw only what came before the damage).
func (l *lazyFiles) scan(t *turn, fn func(f *tfile)) (ok bool) {
	d := sumDec{s: l.text, p: l.p}
	// fn keeps neither: one pair serves every turn (a listing of 20,000
	// turns scans each).
	sc := scanScratch.Get().(*scratchFile)
	defer scanScratch.Put(sc)
	f, post := &sc.f, &sc.post
	for range l.n {
		*f = tfile{}
		if d.file(t, f, post, true) {
			f.post = post
		}
		if d.bad {
			return false
		}
		fn(f)
	}
	l.checked = d.p == len(d.s)
	return l.checked
}

// scratchFile is the path and seal lazyFiles.scan decodes into.
type scratchFile struct {
	f    tfile
	post Image
}

var scanScratch = sync.Pool{New: func() any { return new(scratchFile) }}

// file decodes one path into f and its seal, if it has one, into post
// (f.post is left to the caller). Without keep, its lists of folders and
// turns are only read past.
func (d *sumDec) file(t *turn, f *tfile, post *Image, keep bool) (sealed bool) {
	f.path = d.str()
	d.image(&f.pre)
	if sealed = d.byte() == 1; sealed {
		*post = Image{}
		d.image(post)
	}
	f.preAt, f.postAt = t.at+d.varint(), t.at+d.varint()
	f.preSeq, f.postSeq = t.seq+d.varint(), t.seq+d.varint()
	if d.byte() == 1 {
		f.seen = t.seq + d.varint()
	}
	f.dirs = d.strs(keep)
	f.refused, f.cmd = d.str(), d.str()
	f.shared = d.strs(keep)
	return sealed
}

// sumDec reads an entry; past the end or on a bad number it sets bad
// and returns zeros.
type sumDec struct {
	s   string
	p   int
	bad bool
}

func (d *sumDec) uvarint() uint64 {
	if d.p < len(d.s) && d.s[d.p] < 0x80 {
		d.p++
		return uint64(d.s[d.p-1])
	}
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if d.p >= len(d.s) {
			break
		}
		b := d.s[d.p]
		d.p++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v
		}
	}
	d.bad = true
	return 0
}

func (d *sumDec) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *sumDec) byte() byte {
	if d.p >= len(d.s) {
		d.bad = true
		return 0
	}
	d.p++
	return d.s[d.p-1]
}

func (d *sumDec) str() string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.s)-d.p) {
		d.bad = true
		return ""
	}
	s := d.s[d.p : d.p+int(n)]
	d.p += int(n)
	return s
}

// count reads a number of items each at least min bytes long, refusing
// one the rest of the entry could not hold.
func (d *sumDec) count(min int) int {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.s)-d.p)/uint64(min) {
		d.bad = true
		return 0
	}
	return int(n)
}

func (d *sumDec) strs(keep bool) []string {
	n := d.count(1)
	if n == 0 {
		return nil
	}
	if !keep {
		for range n {
			d.str()
		}
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = d.str()
	}
	return l
}

func (d *sumDec) optImage() *Image {
	if d.byte() != 1 {
		return nil
	}
	img := &Image{}
	d.image(img)
	return img
}

func (d *sumDec) image(img *Image) {
	img.Kind = ImageKind(d.str())
	if d.byte() == 1 {
		if len(d.s)-d.p < len(img.SHA256) {
			d.bad = true
			return
		}
		copy(img.SHA256[:], d.s[d.p:])
		d.p += len(img.SHA256)
	}
	img.Size = d.varint()
	img.Mode = uint32(d.uvarint())
	img.Link, img.Reason = d.str(), d.str()
	img.Kept = d.byte() == 1
}

// summaryEntryStat reads only the stat and the parsed length an entry
// records.
func summaryEntryStat(data []byte, fr sumFrame) (st storefs.Stat, good int64, ok bool) {
	b := data[fr.body : fr.end-4]
	next := func() uint64 {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			ok = false
			return 0
		}
		b = b[k:]
		return v
	}
	ok = true
	if n := next(); !ok || n > uint64(len(b)) {
		return st, 0, false
	} else {
		b = b[n:]
	}
	zig := func(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
	st.Size = int64(next())
	st.Mtime, st.Ctime = zig(next()), zig(next())
	st.Ino = next()
	st.Regular = true
	good = int64(next())
	return st, good, ok
}
