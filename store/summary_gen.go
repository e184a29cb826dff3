package store

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
	"golang.org/x/sys/unix"
)

// The turns' generation lets a load skip listing turns/ and a stat of
// every turn file when nothing was written since one that did (see
// Summary in the package doc).

// turnsGen is the state of the turn files as a load saw it begin: the
// clock (the last order number handed out: every record appended to a
// turn file takes a larger one first, under the store lock), the turns
// folder's stat (a file made, removed or renamed in it changes its
// times), and the boot of the system it was read in. The clock is
// written without a sync, and a record is synced once it has its
// number: a crash of the system can lose the clock's update and keep
// the record, so after a reboot the clock may read as it did before the
// record, and only a generation of the same boot stands for the files.
type turnsGen struct {
	clock int64
	dir   storefs.Stat
	boot  string
}

// genFrame is the name of the summary frame that records a generation:
// no turn file's name starts with a NUL.
const genFrame = "\x00gen"

// genSettle is how long the turns folder must have been left alone for
// its stat to stand for its entries: one changed again within the same
// tick of the file system's clock keeps its times. Tests lower it.
var genSettle = 2 * time.Second

// genRead is the generation as a load read it.
type genRead struct {
	g turnsGen
	// ok: read under the store lock held shared, so no writer is
	// between taking an order number and appending its record (whatever
	// is appended after has a larger number), and the clock, the folder
	// and the boot could all be read. settled: the folder had been left
	// alone for genSettle.
	ok, settled bool
	journal     []byte // the clock journal, nil when not read
}

// readGen reads the generation, and the clock journal unless the
// generation is known (the one the cache last matched): ok is false when
// a writer holds the lock, or the lock file, the clock, the folder or
// the boot cannot be read. The load then lists and stats every turn
// file, as it would without a generation.
func (s *Store) readGen(known *turnsGen) (r genRead) {
	g := &r.g
	if g.boot = bootID(); g.boot == "" {
		return r
	}
	// The caller's own hold of the lock, while it has taken no number,
	// answers as a shared one would: no writer is mid-record.
	if w := s.cache.locked; w == nil || w.numbered {
		f, err := s.dir.OpenFile("lock", os.O_RDONLY, 0)
		if err != nil {
			return r
		}
		defer f.Close()
		if unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB) != nil {
			return r
		}
		defer func() { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }() // and the close releases it
	}
	c, err := s.dir.Open(clockFile)
	if err != nil {
		return r
	}
	var buf [24]byte
	k, _ := c.ReadAt(buf[:], 0)
	c.Close()
	line, _, _ := strings.Cut(string(buf[:k]), "\n")
	if g.clock, err = strconv.ParseInt(line, 10, 64); err != nil {
		return r
	}
	if g.dir, err = s.dir.StatAt("turns"); err != nil || g.dir.Regular {
		return r
	}
	if known == nil || *known != *g {
		r.journal, _ = s.dir.ReadFile(journalFile) // none: no chain, the folder is listed
	}
	now, settle := time.Now().UnixNano(), genSettle.Nanoseconds()
	r.ok, r.settled = true, now-g.dir.Mtime >= settle && now-g.dir.Ctime >= settle
	return r
}

// since is the turn files changed between generation base and this one,
// from the journal; ok is false when it cannot say (see journalSince),
// or base is of another boot: the clock and the journal are written
// without a sync, and a crash of the system can keep a record and lose
// the number it took.
func (r *genRead) since(base turnsGen) (names []string, ok bool) {
	if !r.ok || base.boot != r.g.boot {
		return nil, false
	}
	return journalSince(r.journal, base, r.g)
}

// standing: a load that brought every turn file up to this generation
// may later take it as its base. The folder is either settled (a change
// since moves its times) or as the last journaled writer left it (a
// change since is a writer's, journaled after).
func (r *genRead) standing() bool {
	return r.ok && (r.settled || journalVouches(r.journal, r.g))
}

// appendGenFrame appends the frame recording g.
func appendGenFrame(buf []byte, g turnsGen) []byte {
	var e sumEnc
	e.str(genFrame)
	e.varint(g.clock)
	e.uvarint(uint64(g.dir.Size))
	e.varint(g.dir.Mtime)
	e.varint(g.dir.Ctime)
	e.uvarint(g.dir.Ino)
	e.str(g.boot)
	return e.frame(buf)
}

// appendGoneFrame appends the frame saying the turn file name is gone:
// it replaces the name's entries as a later entry would.
func appendGoneFrame(buf []byte, name string) []byte {
	var e sumEnc
	e.str(name)
	return e.frame(buf)
}

// decodeGen reads a generation frame.
func decodeGen(data string, fr sumFrame) (turnsGen, bool) {
	d := sumDec{s: data[:fr.end-4], p: fr.body}
	var g turnsGen
	d.str()
	g.clock = d.varint()
	g.dir.Size = int64(d.uvarint())
	g.dir.Mtime, g.dir.Ctime = d.varint(), d.varint()
	g.dir.Ino = d.uvarint()
	if d.p < len(d.s) { // absent from a frame written before the boot was kept: no boot matches it
		g.boot = d.str()
	}
	return g, !d.bad && d.p == len(d.s)
}

// genWanted says whether a summary written now may end with a frame for
// generation g: g was read settled, and every turn file this load knows
// is whole and, once dirty is written, in the summary.
func (s *Store) genWanted(g turnsGen, ok bool, dirty []string) bool {
	if !ok || s.cache.sum.newer {
		return false
	}
	summed := len(dirty)
	for _, c := range s.cache.files {
		if c.torn {
			return false
		}
		if c.summed {
			summed++
		}
	}
	return summed == len(s.cache.files)
}
