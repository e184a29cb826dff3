package store

import (
	"hash/crc32"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/format"
)

// The newest version of each versioned store file this ckpt reads (and
// the one it writes). A file of a newer version is refused, never read
// as if it were older nor written over. Files without a version (seq,
// clock, sessions/*, errors.log, statcache.json) hold a number, turn
// ids, lines for people or a cache a reader may throw away; the seed
// format's index.json is never written by ckpt.
const (
	// formatVersion is the version of the record format: turn files,
	// ops.log and, through their op record, steps files; and FORMAT's.
	// Version 2 added "n" (the order of commits) and names that are not
	// UTF-8 (see the record package's names.go); version 3 folders as images ("dir"), the
	// turns a change is shared with ("shared") and open.json, which a
	// ckpt of version 2 would not keep (its sweeps would take another
	// session's running command's writes for hand edits). It reads
	// versions 1 and 2 as they are, and marks a store it writes to as
	// version 3 in FORMAT, so an older ckpt refuses to write to it.
	// Special files' images ("fifo", "socket", "device") came within
	// version 3: a ckpt that predates them plans a path wanted as one as
	// of an unknown kind, not restored, and never writes over one it
	// finds, so no step of it misreads them. A revert's "except" came
	// within version 3 too: a ckpt that predates it reads the op record
	// and counts the paths kept as taken out, as it always did.
	formatVersion = 3
	// baselineVersion is the last byte of baselineMagic. Version 3 added
	// the ignore rules, version 4 folders' mtime, ctime and inode,
	// version 5 the table of blocks with a log beside it (a sweep writes
	// only what it changed); it reads versions 2 to 4 as they are, and
	// the first sweep that writes to one makes it a table. A special
	// file's entry came within version 5, written as an unread one
	// (see baseSpecial).
	baselineVersion = 5
)

// ErrNewerFormat means a store file was written by a newer ckpt, in a
// version this one does not read. Nothing was changed; the wrapped message
// names the file and its version.
var ErrNewerFormat = format.ErrNewerFormat

// FormatName names the store format in `ckpt --version`.
const FormatName = "ckpt-store/3 (crc32c-framed JSON records, zstd blobs)"

// castagnoli is the CRC-32C table of the store's own checksums (the
// baseline's); records carry theirs through the record package.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// formatFile names the store format in FORMAT; its first line starts
// "ckpt-store/<version>".
const formatFile = "FORMAT"

// checkFormat refuses a store whose FORMAT names a newer format. A store
// without one (a seed store, or one a writer has not touched yet) or with
// one it cannot parse is read by its files' own versions.
func (s *Store) checkFormat() error {
	f, err := s.dir.Open(formatFile)
	if err != nil {
		return nil
	}
	// The version is at the start: one read, whatever follows.
	var buf [32]byte
	n, _ := f.Read(buf[:])
	f.Close()
	rest, ok := strings.CutPrefix(string(buf[:n]), "ckpt-store/")
	if !ok {
		return nil
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	v, err := strconv.Atoi(rest[:end])
	if err != nil {
		return nil
	}
	s.formatSeen.Store(int32(v))
	return format.CheckVersion(s.path(formatFile), "store format", v, formatVersion)
}
