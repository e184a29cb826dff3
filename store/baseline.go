package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"runtime/debug"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// baselineFile holds what the last sweep saw (see "Shell sweeps" in doc_sweeps.go).
const baselineFile = "baseline"

// baselineMagic starts the baseline file; its last byte is the version.
const baselineMagic = "ckptbl\x00\x05"

// legacyBaselineVersion is the newest version written whole, one file
// with one checksum, which decodeBaseline reads (versions 2 to 4).
const legacyBaselineVersion = 4

// Kinds of baseline entry.
const (
	baseFile    byte = 'f' // a regular file whose bytes are in a blob
	baseSkipped byte = 's' // a regular file over the size limit: hash only
	baseLink    byte = 'l' // a symbolic link
	baseDir     byte = 'd' // a folder
	baseUnknown byte = 'x' // a file or folder that could not be read: stat only
	// baseSpecial is a named pipe, a socket or a device node: stat only,
	// its type in the mode (specialFifo…). It is written as baseUnknown
	// with that mark, so a ckpt that predates it reads a path it could
	// not read, never a file, and a removal of it as not restorable.
	baseSpecial byte = 'p'
)

// A baseSpecial entry's type, in its mode's bits above any other.
const (
	specialFifo   = 1 << 20
	specialSocket = 2 << 20
	specialDevice = 3 << 20
	specialMask   = 3 << 20
)

// specialType is the mark of a special file of type t (S_IFMT bits),
// 0 for any other.
func specialType(t uint32) uint32 {
	switch t {
	case unix.S_IFIFO:
		return specialFifo
	case unix.S_IFSOCK:
		return specialSocket
	case unix.S_IFCHR, unix.S_IFBLK:
		return specialDevice
	}
	return 0
}

// specialImage is the kind of image of a baseSpecial entry of mode m.
func specialImage(m uint32) ImageKind {
	switch m & specialMask {
	case specialFifo:
		return ImageFifo
	case specialSocket:
		return ImageSocket
	}
	return ImageDevice
}

// unlistedDir, in the mode of a baseUnknown entry, marks a folder that
// could not be listed (a file that could not be read has none).
const unlistedDir = 0o40000

// baseEntry is what a sweep knows of one path: its stat and, for files,
// the SHA-256 of its bytes.
type baseEntry struct {
	path  string
	kind  byte
	mode  uint32 // permission bits
	size  int64
	mtime int64 // Unix nanoseconds
	ctime int64
	ino   uint64
	sum   BlobID // baseFile, baseSkipped
	link  string // baseLink
}

// sameStat reports whether e and w (a fresh stat) agree on everything the
// stat says; the bytes may still differ if the entry is racy.
func (e *baseEntry) sameStat(w *baseEntry) bool {
	if e.kind == baseUnknown {
		return false
	}
	if e.kind == baseDir || w.kind == baseDir {
		return e.kind == w.kind && e.mode == w.mode
	}
	fileKind := func(k byte) bool { return k == baseFile || k == baseSkipped }
	return (e.kind == w.kind || fileKind(e.kind) && fileKind(w.kind)) &&
		e.mode == w.mode && e.size == w.size && e.mtime == w.mtime && e.ctime == w.ctime && e.ino == w.ino
}

// baseline is the decoded baseline file.
type baseline struct {
	// at is when the sweep that wrote it began: an entry modified or
	// changed less than racyWindow before it may have changed again in
	// the same clock tick without its stat changing, and is hashed again.
	at int64
	// turn is the turn of the last sweep made for one (empty: none). A
	// sweep before a command in the same turn attributes what changed to
	// it; in another turn, what changed is a hand edit.
	turn string
	// cmd is the command of that sweep, for changes found before the next
	// command of the same turn (a background command still writing).
	cmd string
	// ops is the size of ops.log when it was written: a rewind, undo or
	// redo since makes it differ, and what the operation changed is no
	// command's doing.
	ops int64
	// entries are sorted by path (byte order).
	entries []baseEntry
	// list, when set, stands for entries in a baseline to be written: a
	// sweep's next baseline points into the old one and its listing
	// rather than copying them.
	list []*baseEntry
	// rules are the .gitignore and .ckptignore files the listing followed,
	// by path (the empty ones left out): the sweep after a command skips
	// by them, not by the files on disk then. nil for a baseline of
	// version 2, which did not record them.
	rules map[string][]byte
	// recheck lists the entries whose stat could not vouch for them when
	// the baseline was written (racy ones, folders listed in part): a
	// sweep fed by a watcher looks at them whatever the watcher says.
	recheck []string
	// src, when set, is the file the baseline was read from, for lookups
	// without reading it whole: entries is then nil until full() reads
	// them all (see baseline_log.go).
	src *blSource
	// loaded: entries holds every entry, src only what writing needs.
	loaded bool
}

// sameRules reports whether a and b recorded the same ignore files.
func sameRules(a, b map[string][]byte) bool {
	if a == nil || len(a) != len(b) {
		return false
	}
	for p, d := range a {
		if e, ok := b[p]; !ok || !bytes.Equal(d, e) {
			return false
		}
	}
	return true
}

// hasDir reports whether the listing holds the folder rel ("" the root).
func (b *baseline) hasDir(rel string) bool {
	if rel == "" {
		return true
	}
	e := b.find(rel)
	return e != nil && e.kind == baseDir
}

// racy reports whether e's stat cannot vouch for its bytes: its mtime or
// ctime is within racyWindow of the sweep that took it. A ctime ckpt's
// own read left is the exception (a file its owner cannot read, opened
// to it for the read and given its mode back: see grants): the read
// moved it after the sweep began, and what moves a ctime and none of
// the mtime, size, mode and inode writes no bytes, unless it then sets
// the mtime back within the same tick as that read. Any other ctime
// counts, a file of mode 000's too.
func (b *baseline) racy(e *baseEntry) bool {
	switch {
	case e.kind == baseDir:
		return false
	case e.mtime >= b.at-racyWindow:
		return true
	}
	return e.ctime >= b.at-racyWindow && !b.ownCtime(e)
}

// ownCtime reports whether e's ctime, if within racyWindow of the sweep
// that took it, is the one ckpt's own read left: the baseline says so of
// a file its owner cannot read by leaving it out of its recheck list.
func (b *baseline) ownCtime(e *baseEntry) bool {
	if e.kind == baseDir || e.mode&0o400 != 0 {
		return false
	}
	_, listed := slices.BinarySearch(b.recheck, e.path)
	return !listed
}

func appendStr(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// errBadBaseline means the baseline file is damaged or of an unknown
// version: it is ignored, at the cost of reading every file again.
var errBadBaseline = errors.New("store: damaged baseline")

// decodeBaseline parses a baseline file. It never panics; anything amiss
// is errBadBaseline.
func decodeBaseline(data []byte) (*baseline, error) {
	b, d, err := decodeBaselineHead(data)
	if err != nil {
		return nil, err
	}
	if err := d.entries(b, data[len(baselineMagic)-1]); err != nil {
		return nil, err
	}
	return b, nil
}

// decodeBaselineHead checks a baseline file whole and parses what comes
// before its entries (when, the turn and command, ops.log's size): all a
// sweep needs to see that it has nothing to do. d reads on from there.
func decodeBaselineHead(data []byte) (b *baseline, d *bdec, err error) {
	magic := len(baselineMagic)
	if len(data) < magic+4 || !bytes.HasPrefix(data, []byte(baselineMagic[:magic-1])) {
		return nil, nil, errBadBaseline
	}
	version := data[magic-1]
	if version < 2 || version > legacyBaselineVersion {
		return nil, nil, errBadBaseline
	}
	body := data[:len(data)-4]
	if binary.LittleEndian.Uint32(data[len(data)-4:]) != crc32.Checksum(body, castagnoli) {
		return nil, nil, errBadBaseline
	}
	d = &bdec{b: body, p: len(baselineMagic)}
	b = &baseline{}
	d.head(b)
	if d.bad {
		return nil, nil, errBadBaseline
	}
	return b, d, nil
}

// entries parses the rest of a baseline file of version into b.
func (d *bdec) entries(b *baseline, version byte) error {
	body := d.b
	n := d.uvarint()
	if d.bad || n > uint64(len(body)) {
		return errBadBaseline
	}
	b.entries = make([]baseEntry, n)
	// One arena for every path: a tree of 100,000 files decodes with a
	// handful of allocations.
	var arena strings.Builder
	arena.Grow(len(body))
	type span struct{ at, n int }
	spans := make([]span, n)
	prev := []byte{}
	for i := range b.entries {
		e := &b.entries[i]
		shared := d.uvarint()
		suffix := d.bytes()
		if d.bad || shared > uint64(len(prev)) {
			return errBadBaseline
		}
		start := arena.Len()
		arena.Write(prev[:shared])
		arena.Write(suffix)
		spans[i] = span{start, int(shared) + len(suffix)}
		prev = append(prev[:shared], suffix...)
		// Folders carry their times from version 4 on.
		*e = d.entryRest(version >= 4)
		if d.bad {
			return errBadBaseline
		}
	}
	if version >= 3 {
		b.rules = d.rules()
	}
	if d.bad || d.p != len(body) {
		return errBadBaseline
	}
	all := arena.String()
	for i := range b.entries {
		b.entries[i].path = all[spans[i].at : spans[i].at+spans[i].n]
		if i > 0 && b.entries[i-1].path >= b.entries[i].path {
			return errBadBaseline
		}
	}
	return nil
}

// bdec reads the baseline's varints; a short or malformed read sets bad.
type bdec struct {
	b   []byte
	p   int
	bad bool
}

func (d *bdec) uvarint() uint64 {
	v, n := binary.Uvarint(d.b[min(d.p, len(d.b)):])
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.p += n
	return v
}

// varint reads a zig-zag varint, as binary.Varint does.
func (d *bdec) varint() int64 {
	u := d.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

func (d *bdec) take(n int) []byte {
	if d.bad || n < 0 || n > len(d.b)-d.p {
		d.bad = true
		return nil
	}
	out := d.b[d.p : d.p+n]
	d.p += n
	return out
}

func (d *bdec) bytes() []byte { return d.take(int(min(d.uvarint(), uint64(len(d.b)+1)))) }

func (d *bdec) str() string { return string(d.bytes()) }

func (d *bdec) byte() byte {
	if b := d.take(1); b != nil {
		return b[0]
	}
	return 0
}

// mapBaseline calls fn with the baseline file's bytes, mapped rather than
// read where mmap serves: a hook that parses a baseline of megabytes and
// exits does not copy it into pages of its own first. fn copies out what
// it keeps. A file cut short under the mapping is a fault, turned into
// errBadBaseline.
func (s *Store) mapBaseline(fn func(data []byte) error) (err error) {
	f, err := s.dir.Open(baselineFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return errf("read %s: %w", s.path(baselineFile), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return errf("read %s: %w", s.path(baselineFile), err)
	}
	size := fi.Size()
	if size <= 0 || size > 1<<30 || int64(int(size)) != size {
		data, err := io.ReadAll(f)
		if err != nil {
			return errf("read %s: %w", s.path(baselineFile), err)
		}
		return fn(data)
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		data, err := io.ReadAll(f)
		if err != nil {
			return errf("read %s: %w", s.path(baselineFile), err)
		}
		return fn(data)
	}
	defer unix.Munmap(data)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r)
			}
			err = errf("%s: %w", s.path(baselineFile), errBadBaseline)
		}
	}()
	return fn(data)
}
