package store

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
	"golang.org/x/sys/unix"
)

// summaryFile holds the parse of every turn file, so that listing the
// turns of a big store reads one file and a stat of each turn file, not
// every record (see Summary in the package doc).
const summaryFile = "summary"

// summaryMin is the fewest turn files worth a summary: below it, reading
// them costs a few milliseconds. summarySettle is how long a turn file
// must have been left alone before its parse goes into the summary: a
// turn being written changes at every call, and its entry would be
// stale at once. Tests lower both.
var (
	summaryMin    = 200
	summarySettle = 2 * time.Second
)

// summaryState is what a Store knows of the summary file.
type summaryState struct {
	read  bool         // this Store has read it (or found none)
	st    storefs.Stat // the file as this Store last read or wrote it
	good  int64        // the length of its whole frames
	newer bool         // written by a newer ckpt: left alone
	// lastGen is the generation the file ends with, nil when it ends
	// with an entry; gone names turn files whose entries are to be
	// marked gone.
	lastGen *turnsGen
	gone    []string
}

// openSummary reads the summary file: its text and frames, or ok false
// when there is none this version reads. Caller holds s.mu.
func (s *Store) openSummary() (text string, frames []sumFrame, ok bool) {
	sum := &s.cache.sum
	sum.read = true
	f, err := s.dir.Open(summaryFile)
	if err != nil {
		return "", nil, false
	}
	data, st, err := readWhole(f)
	if err != nil {
		return "", nil, false
	}
	frames, good, ok := scanSummary(data)
	if !ok {
		sum.newer = newerSummary(data)
		return "", nil, false
	}
	sum.st, sum.good = st, int64(good)
	// Every name decoded is a slice of text. data is read only from
	// here on, so text is its bytes, not a second copy of a file of
	// several MiB.
	text = unsafe.String(unsafe.SliceData(data), len(data))
	sum.lastGen = nil
	if n := len(frames); n > 0 && frames[n-1].name == genFrame {
		if g, ok := decodeGen(text, frames[n-1]); ok {
			sum.lastGen = &g
		}
	}
	return text, frames, true
}

// latestFrames is the newest frame of each turn file the summary names:
// of those in want (all when want is nil), the ones not marked gone; and
// the names not in want whose newest frame is not a gone one.
func latestFrames(frames []sumFrame, want map[string]bool) (live []sumFrame, gone []string) {
	latest := make(map[string]int, len(frames))
	for i, fr := range frames {
		if fr.name != genFrame {
			latest[fr.name] = i
		}
	}
	live = make([]sumFrame, 0, len(latest))
	for name, i := range latest {
		switch fr := frames[i]; {
		case fr.gone:
		case want == nil || want[name]:
			live = append(live, fr)
		default:
			gone = append(gone, name)
		}
	}
	return live, gone
}

// useSummary fills the cache from the summary's frames (live, from
// latestFrames). Each entry read through a listing is used only while
// its file's stat is the one it records (refreshTurnFile), so a summary
// is never trusted over the records; one read without (the generation
// matched) stands because nothing was written since it was. Caller holds
// s.mu.
func (s *Store) useSummary(text string, todo []sumFrame) (all bool) {
	out := make([]*turnFile, len(todo))
	workers := min(runtime.GOMAXPROCS(0), 1+len(todo)/1024)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(todo); i += workers {
				c, ok := decodeSummaryEntry(text, todo[i])
				if ok && c.t.lazy != nil {
					name := todo[i].name
					c.t.lazy.reread = func() []*tfile { return s.recordFiles(name) }
				}
				if ok && c.t.v <= formatVersion {
					c.sumLen = todo[i].end - todo[i].start
					out[i] = c
				}
			}
		})
	}
	wg.Wait()
	if len(s.cache.files) == 0 {
		s.cache.files = make(map[string]*turnFile, len(todo))
	}
	all = true
	for i, c := range out {
		if c != nil {
			s.cache.files[todo[i].name] = c
		}
		all = all && c != nil
	}
	return all
}

// recordFiles is the paths of the turn file name from its records: for
// an entry whose paths do not decode. A file that cannot be read has
// none, and the error log says why. Caller holds s.mu.
func (s *Store) recordFiles(name string) []*tfile {
	data, err := s.dir.ReadFile(name)
	if err != nil {
		s.LogError("read %s (its summary entry does not decode): %v", s.path(name), err)
		return nil
	}
	t := newTurn("")
	record.Each(data, t.apply)
	return t.list()
}

// newerSummary: the file is a summary of a version this ckpt does not
// know, which it neither reads nor replaces.
func newerSummary(data []byte) bool {
	m := summaryMagic[:len(summaryMagic)-1]
	return len(data) >= len(summaryMagic) && string(data[:len(m)]) == m && data[len(m)] > summaryMagic[len(m)]
}

func readWhole(f *os.File) ([]byte, storefs.Stat, error) {
	defer f.Close()
	st, err := storefs.StatOf(f)
	if err != nil || !st.Regular {
		return nil, st, errors.Join(err, fs.ErrInvalid)
	}
	data := make([]byte, st.Size)
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil, st, err
	}
	return data, st, nil
}

// saveSummary writes what this load parsed into the summary: appended
// entries for the turn files parsed since (those settled), or, once
// stale entries outweigh live ones, the whole file anew through a
// temporary name and a rename. It is a cache: it takes no store lock,
// only its own flock without waiting (a process that finds it held
// leaves the work to the holder), and any error leaves it as it is.
// Caller holds s.mu.
func (s *Store) saveSummary(g turnsGen, genOK bool) {
	sum := &s.cache.sum
	if sum.newer || len(s.cache.files) < summaryMin {
		return
	}
	dirty, live := s.summaryWork()
	wantGen := s.genWanted(g, genOK, dirty)
	if len(dirty) == 0 && len(sum.gone) == 0 && (!wantGen || sum.lastGen != nil && *sum.lastGen == g) && !s.summaryBloated(live, 0) {
		return
	}
	fp := newFailpoint("summary")
	f, err := s.dir.OpenFile(summaryFile, os.O_RDWR|os.O_CREATE, 0o600)
	fp.hit()
	if err != nil {
		return
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		return
	}
	st, err := storefs.StatOf(f)
	if err != nil || !st.Regular {
		return
	}
	if now, err := s.dir.Lstat(summaryFile); err != nil || !sameInode(now, st) {
		return // replaced since it was opened: the new one is another's
	}
	if st != sum.st {
		// Written by another process since this one read it: learn
		// which of its entries match this process's parses.
		if !s.rescanSummary(f, st) {
			return
		}
		dirty, live = s.summaryWork()
		wantGen = s.genWanted(g, genOK, dirty)
	}
	var buf []byte
	for _, name := range dirty {
		buf = appendSummaryEntry(buf, name, s.cache.files[name])
	}
	for _, name := range sum.gone {
		buf = appendGoneFrame(buf, name)
	}
	if wantGen {
		buf = appendGenFrame(buf, g)
	}
	if sum.good == 0 || s.summaryBloated(live, len(buf)) {
		s.rewriteSummary(fp, g, wantGen)
		return
	}
	if st.Size != sum.good {
		fp.hit()
		if f.Truncate(sum.good) != nil {
			return
		}
	}
	fp.hit()
	if _, err := f.WriteAt(buf, sum.good); err != nil {
		return
	}
	fp.hit()
	for _, name := range dirty {
		c := s.cache.files[name]
		c.summed, c.sumLen = true, len(appendSummaryEntry(nil, name, c))
	}
	sum.good += int64(len(buf))
	sum.gone, sum.lastGen = nil, nil
	if wantGen {
		sum.lastGen = &g
	}
	sum.st, _ = storefs.StatOf(f)
}

// summaryWork lists the turn files whose parse is not in the summary and
// may go in (whole, and left alone for summarySettle), and the bytes of
// the entries that are.
func (s *Store) summaryWork() (dirty []string, live int) {
	now := time.Now().UnixNano()
	for name, c := range s.cache.files {
		switch {
		case c.summed:
			live += c.sumLen
		case !c.torn && c.st.Regular && now-c.st.Mtime >= summarySettle.Nanoseconds() && now-c.st.Ctime >= summarySettle.Nanoseconds():
			dirty = append(dirty, name)
		}
	}
	return dirty, live
}

// summaryBloated: with add more bytes of entries, the stale ones would
// outweigh the live ones (and be worth a rewrite).
func (s *Store) summaryBloated(live, add int) bool {
	stale := int(s.cache.sum.good) - len(summaryMagic) - live
	return stale > 64<<10 && stale > live+add
}

// rescanSummary reads the frames another process wrote and marks the
// parses they match: an entry for the same name and the same stat is
// the same parse.
func (s *Store) rescanSummary(f *os.File, st storefs.Stat) bool {
	data := make([]byte, st.Size)
	if _, err := f.ReadAt(data, 0); err != nil {
		return false
	}
	frames, good, ok := scanSummary(data)
	if !ok {
		if s.cache.sum.newer = newerSummary(data); s.cache.sum.newer {
			return false
		}
		good = 0
	}
	for _, c := range s.cache.files {
		c.summed, c.sumLen = false, 0
	}
	s.cache.sum.lastGen = nil
	if n := len(frames); n > 0 && frames[n-1].name == genFrame {
		if g, ok := decodeGen(string(data), frames[n-1]); ok {
			s.cache.sum.lastGen = &g
		}
	}
	for _, fr := range frames {
		c := s.cache.files[fr.name]
		if c == nil || c.torn {
			continue
		}
		if fr.gone {
			c.summed, c.sumLen = false, 0
		} else if id, size, ok := summaryEntryStat(data, fr); ok {
			c.summed = id == c.st && size == c.size
			c.sumLen = fr.end - fr.start
		}
	}
	s.cache.sum.st, s.cache.sum.good = st, int64(good)
	return true
}

// rewriteSummary writes every settled parse into a new summary, renamed
// over the old one, ending with generation g when withGen.
func (s *Store) rewriteSummary(fp *failpoint, g turnsGen, withGen bool) {
	sum := &s.cache.sum
	buf := []byte(summaryMagic)
	type placed struct {
		c *turnFile
		n int
	}
	var done []placed
	dirty, _ := s.summaryWork()
	isDirty := make(map[string]bool, len(dirty))
	for _, n := range dirty {
		isDirty[n] = true
	}
	for name, c := range s.cache.files {
		if c.summed || isDirty[name] {
			n := len(buf)
			buf = appendSummaryEntry(buf, name, c)
			done = append(done, placed{c, len(buf) - n})
		}
	}
	if withGen {
		buf = appendGenFrame(buf, g)
	}
	tmp := ".tmp-summary-" + storefs.RandHex(8)
	f, err := s.dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	fp.hit()
	if err != nil {
		return
	}
	_, err = f.Write(buf)
	fp.hit()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = s.dir.Rename(tmp, summaryFile)
		fp.hit()
	}
	if err != nil {
		_ = s.dir.Remove(tmp) // a cache: what failed is left out
		return
	}
	st, err := s.dir.StatAt(summaryFile) // a rename moves its ctime
	if err != nil {
		return
	}
	for _, p := range done {
		p.c.summed, p.c.sumLen = true, p.n
	}
	sum.st, sum.good = st, int64(len(buf))
	sum.gone, sum.lastGen = nil, nil
	if withGen {
		sum.lastGen = &g
	}
}

func sameInode(fi fs.FileInfo, st storefs.Stat) bool {
	s, ok := fi.Sys().(*syscall.Stat_t)
	return ok && uint64(s.Ino) == st.Ino
}
