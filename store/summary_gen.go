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

// readGen reads the generation under the store lock held shared, so no
// writer is between taking an order number and appending its record:
// whatever is appended after has a larger number. ok is false when a
// writer holds the lock, when the lock file, the clock or the boot
// cannot be read, or when the folder changed within genSettle: the load
// then lists and stats every turn file, as it would without a
// generation.
func (s *Store) readGen() (g turnsGen, ok bool) {
	if g.boot = bootID(); g.boot == "" {
		return g, false
	}
	f, err := s.dir.OpenFile("lock", os.O_RDONLY, 0)
	if err != nil {
		return g, false
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB) != nil {
		return g, false
	}
	defer func() { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }() // and the close releases it
	c, err := s.dir.Open(clockFile)
	if err != nil {
		return g, false
	}
	var buf [24]byte
	k, _ := c.ReadAt(buf[:], 0)
	c.Close()
	line, _, _ := strings.Cut(string(buf[:k]), "\n")
	if g.clock, err = strconv.ParseInt(line, 10, 64); err != nil {
		return g, false
	}
	if g.dir, err = s.dir.StatAt("turns"); err != nil || g.dir.Regular {
		return g, false
	}
	now, settle := time.Now().UnixNano(), genSettle.Nanoseconds()
	return g, now-g.dir.Mtime >= settle && now-g.dir.Ctime >= settle
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
