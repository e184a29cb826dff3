package store

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ckpt-dev/ckpt/store/internal/pack"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// looseMax is the number of new blobs a batch keeps as loose files; a
// larger batch writes one pack. A hook's few blobs cost less as loose
// files (no index to write or read back), a bulk capture far less as one
// pack than as thousands of files.
const looseMax = 8

// packFile is one pack, opened once and read with ReadAt by any goroutine.
// ents is nil for a pack opened only to read a blob the multi-pack index
// located in it.
type packFile struct {
	name string
	f    *os.File
	size int64
	ents []pack.Entry
}

// packSet is the store's view of packs/: the multi-pack index (packs.idx),
// and the own index of every pack it does not cover, loaded on first use
// and refreshed when a blob is not found. A lookup never lists blobs/ and
// never reads the index of a pack the multi-pack index covers.
type packSet struct {
	mu      sync.Mutex
	listed  bool
	midx    *midx
	midxF   *os.File             // packs.idx, which midx reads as lookups need
	midxAt  fs.FileInfo          // the stat of packs.idx when it was read
	present map[string]bool      // packs in packs/ at the last listing
	files   map[string]*packFile // packs opened
	where   map[BlobID]packLoc   // blobs of packs the midx does not cover
	bad     map[string]error     // packs whose index cannot be read
	midxBad error                // why packs.idx could not be read
}

type packLoc struct {
	p *packFile
	e pack.Entry
}

// find locates sum in a pack, listing packs/ first when refresh is set or
// nothing was listed yet.
func (ps *packSet) find(s *Store, sum BlobID, refresh bool) (blobSource, bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if refresh || !ps.listed {
		ps.refresh(s)
	}
	return ps.lookup(s, sum)
}

// lookup finds sum among the packs known now. Caller holds ps.mu.
func (ps *packSet) lookup(s *Store, sum BlobID) (blobSource, bool) {
	if l, ok := ps.where[sum]; ok {
		return l.source(), true
	}
	i, e, ok := ps.midx.Find(sum)
	if err := ps.midx.Bad(); err != nil {
		// Damaged where this lookup read it: the packs' own indexes
		// serve, as for one whose head is damaged.
		ps.dropMidx(s, err)
		if l, ok := ps.where[sum]; ok {
			return l.source(), true
		}
		return blobSource{}, false
	}
	if !ok || !ps.present[ps.midx.Packs[i]] {
		return blobSource{}, false
	}
	name := ps.midx.Packs[i]
	p := ps.files[name]
	if p == nil {
		f, size, err := openRegular(s.dir, "packs/"+name)
		if err != nil {
			return blobSource{}, false
		}
		p = &packFile{name: name, f: f, size: size}
		ps.files[name] = p
	}
	if e.Off < int64(len(pack.Header)) || e.ZLen < 0 || e.Off+e.ZLen > p.size {
		return blobSource{}, false
	}
	return packLoc{p, e}.source(), true
}

// source is where to read the blob l names.
func (l packLoc) source() blobSource {
	return blobSource{f: l.p.f, off: l.e.Off, n: l.e.ZLen, zstd: true, where: "packs/" + l.p.name}
}

// findLoaded is find without listing anything: false when the packs were
// not listed yet. A point lookup (a hook's one blob) tries loose blobs
// before it pays for listing the packs.
func (ps *packSet) findLoaded(s *Store, sum BlobID) (blobSource, bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.listed {
		return blobSource{}, false
	}
	return ps.lookup(s, sum)
}

// ensure lists the packs once, for a batch that will ask about many blobs.
func (ps *packSet) ensure(s *Store) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.listed {
		ps.refresh(s)
	}
}

// list returns every pack with its own index loaded, and the packs that
// could not be read, by name: what verify, prune and repack work on.
func (ps *packSet) list(s *Store) ([]*packFile, map[string]error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.refresh(s)
	var out []*packFile
	for name := range ps.present {
		p := ps.files[name]
		if _, bad := ps.bad[name]; bad {
			continue
		}
		if p == nil || p.ents == nil {
			np, err := openPack(s.dir, name)
			if err != nil {
				ps.bad[name] = err
				continue
			}
			if p != nil {
				p.f.Close()
			}
			ps.files[name] = np
			p = np
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	bad := map[string]error{}
	for n, err := range ps.bad {
		bad[n] = err
	}
	return out, bad
}

// counts returns the number of packs in packs/ and how many of them the
// multi-pack index does not cover. It lists packs/ and reads the names at
// the head of packs.idx (when lookups have not read it already), but
// neither the rest of it nor any pack's own index: a hook asks it at
// every turn's end, and packs.idx holds 60 bytes for each blob of the
// store, the index of an uncovered pack a first copy wrote one entry for
// each file of the tree. A packs.idx whose entries are damaged still
// serves it; lookups, which read them, fall back to the packs' own
// indexes, verify names it, and the next repack writes it anew. It
// leaves what lookups know as it was.
func (ps *packSet) counts(s *Store) (packs, uncovered int) {
	ps.mu.Lock()
	m, at := ps.midx, ps.midxAt
	ps.mu.Unlock()
	var covered []string
	switch fi, err := s.dir.Lstat(midxFile); {
	case err != nil: // none: it covers nothing
	case at != nil && sameFile(fi, at):
		covered = m.Names()
	default:
		covered = s.midxNames() // one whose head cannot be read covers nothing
	}
	list, _ := storefs.Names(s.dir, "packs")
	for _, n := range list {
		if !strings.HasSuffix(n, ".pack") || strings.HasPrefix(n, ".tmp-") {
			continue
		}
		packs++
		if !slices.Contains(covered, n) {
			uncovered++
		}
	}
	return packs, uncovered
}

// refresh lists packs/, reads packs.idx again if it changed, and loads the
// own index of each pack it does not cover, forgetting packs that are
// gone. Caller holds ps.mu.
func (ps *packSet) refresh(s *Store) {
	ps.listed = true
	if ps.files == nil {
		ps.files, ps.where, ps.bad = map[string]*packFile{}, map[BlobID]packLoc{}, map[string]error{}
	}
	changed := false
	fi, err := s.dir.Lstat(midxFile)
	if err != nil {
		changed = ps.midx != nil || ps.midxAt != nil
		ps.closeMidx()
		ps.midxAt, ps.midxBad = nil, nil
	} else if ps.midxAt == nil || !sameFile(fi, ps.midxAt) {
		ps.closeMidx()
		ps.midx, ps.midxF, ps.midxBad = s.openMidx()
		ps.midxAt = fi
		changed = true
	}
	list, _ := storefs.Names(s.dir, "packs")
	ps.present = map[string]bool{}
	for _, n := range list {
		if strings.HasSuffix(n, ".pack") && !strings.HasPrefix(n, ".tmp-") {
			ps.present[n] = true
		}
	}
	ps.loadUncovered(s, changed)
}

// dropMidx stops using packs.idx, found damaged by a lookup, and loads
// the own index of every pack instead. It stays dropped until the file
// is replaced. Caller holds ps.mu.
func (ps *packSet) dropMidx(s *Store, err error) {
	ps.closeMidx()
	ps.midxBad = err
	ps.loadUncovered(s, true)
}

func (ps *packSet) closeMidx() {
	if ps.midxF != nil {
		ps.midxF.Close()
	}
	ps.midx, ps.midxF = nil, nil
}

// loadUncovered loads the own index of each pack present that packs.idx
// does not cover, forgets packs that are gone, and, when that or the
// index changed, where the uncovered packs' blobs are. Caller holds
// ps.mu.
func (ps *packSet) loadUncovered(s *Store, changed bool) {
	for n := range ps.present {
		if ps.midx.Covers(n) {
			continue
		}
		if p, ok := ps.files[n]; ok && p.ents != nil {
			continue
		}
		if _, ok := ps.bad[n]; ok {
			continue
		}
		p, err := openPack(s.dir, n)
		if err != nil {
			ps.bad[n] = err
			continue
		}
		if old := ps.files[n]; old != nil {
			old.f.Close()
		}
		ps.files[n] = p
		changed = true
	}
	for n, p := range ps.files {
		if !ps.present[n] {
			p.f.Close()
			delete(ps.files, n)
			changed = true
		}
	}
	for n := range ps.bad {
		if !ps.present[n] {
			delete(ps.bad, n)
		}
	}
	if changed {
		ps.where = map[BlobID]packLoc{}
		for _, p := range ps.files {
			if ps.midx.Covers(p.name) {
				continue
			}
			for _, e := range p.ents {
				ps.where[e.Sum] = packLoc{p, e}
			}
		}
	}
}

// sameFile reports whether two stats of packs.idx are of the same file, as
// it was: replaced by a rename, it has another inode.
func sameFile(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// forget drops what is known of packs, after prune rewrote them.
func (ps *packSet) forget() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.closeLocked()
}

func (ps *packSet) closeLocked() {
	for _, p := range ps.files {
		p.f.Close()
	}
	ps.files, ps.where, ps.bad, ps.listed = nil, nil, nil, false
	ps.closeMidx()
	ps.midxAt, ps.midxBad, ps.present = nil, nil, nil
}

func (ps *packSet) close() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.closeLocked()
}

// openPack opens packs/name and reads its index, checking the header, the
// trailer, the index's checksum and that every frame lies inside the file.
func openPack(dir storefs.Root, name string) (*packFile, error) {
	f, size, err := openRegular(dir, "packs/"+name)
	if err != nil {
		return nil, err
	}
	ents, err := pack.ReadIndex(f, size)
	if err != nil {
		f.Close()
		return nil, errf("pack %s: %w", name, err)
	}
	if ents == nil {
		ents = []pack.Entry{}
	}
	return &packFile{name: name, f: f, size: size, ents: ents}, nil
}

// writeback writes to f and has the kernel start writing each chunk to
// the disk at once, so the batch's barrier finds little left to write.
type writeback struct {
	f   *os.File
	off int64
}

func (w *writeback) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	storefs.StartWriteback(w.f, w.off, int64(n))
	w.off += int64(n)
	return n, err
}

// packWriter gathers a batch's new blobs into one pack. Frames are
// compressed by the callers, in parallel, and appended here under a
// mutex; commit writes the index and renames the pack into place. Until
// then the pack has a temporary name that no reader looks at.
type packWriter struct {
	s    *Store
	fp   *failpoint
	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	pw   *pack.Writer
	tmp  string
	name string // packs/<id>.pack, once committed
	have map[BlobID]bool
	err  error
}

func (s *Store) newPackWriter(fp *failpoint) *packWriter {
	return &packWriter{s: s, fp: fp, have: map[BlobID]bool{}}
}

// add appends one compressed blob.
func (w *packWriter) add(sum BlobID, z []byte, size int64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil || w.have[sum] {
		return w.err
	}
	if w.f == nil {
		if err := w.s.dir.Mkdir("packs", 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			w.err = errf("create %s: %w", w.s.path("packs"), err)
			return w.err
		}
		w.tmp = "packs/.tmp-" + storefs.RandHex(8) + ".pack"
		f, err := w.s.dir.OpenFile(w.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			w.err = errf("create pack %s: %w", w.s.path(w.tmp), err)
			return w.err
		}
		w.fp.hit()
		w.f, w.w = f, bufio.NewWriterSize(&writeback{f: f}, 1<<20)
		w.pw = pack.NewWriter(w.w)
	}
	if err := w.pw.Add(sum, z, size); err != nil {
		w.err = errf("write pack %s: %w", w.s.path(w.tmp), err)
		return w.err
	}
	w.have[sum] = true
	return nil
}

// commit writes the index and trailer and renames the pack into place,
// named by the hash of its index. It does not sync: the caller's barrier
// for the batch does, before any record names a blob of it.
func (w *packWriter) commit() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return w.err
	}
	if w.err != nil {
		w.abortLocked()
		return w.err
	}
	name, err := w.pw.Finish()
	if err == nil {
		err = w.w.Flush()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	if err != nil {
		_ = w.s.dir.Remove(w.tmp)
		return errf("write pack %s: %w", w.s.path(w.tmp), err)
	}
	w.fp.hit()
	name = "packs/" + name
	if err := w.s.dir.Rename(w.tmp, name); err != nil {
		_ = w.s.dir.Remove(w.tmp)
		return errf("write pack %s: %w", w.s.path(name), err)
	}
	w.name = name
	w.fp.hit()
	return nil
}

func (w *packWriter) abort() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.abortLocked()
}

func (w *packWriter) abortLocked() {
	if w.f != nil {
		w.f.Close()
		w.f = nil
		_ = w.s.dir.Remove(w.tmp)
	}
}

// has reports whether the batch's pack holds sum already (false for a
// nil writer).
func (w *packWriter) has(sum BlobID) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.have[sum]
}

// used reports whether the batch wrote a pack.
func (w *packWriter) used() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pw != nil && w.pw.Len() > 0
}
