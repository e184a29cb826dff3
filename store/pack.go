package store

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
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
type packFile struct {
	name string
	f    *os.File
	ents []pack.Entry
}

// packSet is the store's view of packs/: every pack's index, loaded on
// first use and refreshed when a blob is not found.
type packSet struct {
	mu     sync.Mutex
	listed bool
	files  map[string]*packFile
	where  map[BlobID]packLoc
	bad    map[string]error // packs whose index cannot be read
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
	l, ok := ps.where[sum]
	if !ok {
		return blobSource{}, false
	}
	return l.source(), true
}

// source is where to read the blob l names.
func (l packLoc) source() blobSource {
	return blobSource{f: l.p.f, off: l.e.Off, n: l.e.ZLen, zstd: true, where: "packs/" + l.p.name}
}

// findLoaded is find without loading anything: false when the packs were
// not listed yet. A point lookup (a hook's one blob) tries loose blobs
// before it pays for reading every pack's index.
func (ps *packSet) findLoaded(sum BlobID) (blobSource, bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	l, ok := ps.where[sum] // nil before the packs are listed
	if !ps.listed || !ok {
		return blobSource{}, false
	}
	return l.source(), true
}

// names returns the hash of every packed blob, in a set with room for
// extra more.
func (ps *packSet) names(s *Store, extra int) map[BlobID]bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.refresh(s)
	have := make(map[BlobID]bool, len(ps.where)+extra)
	for sum := range ps.where {
		have[sum] = true
	}
	return have
}

// list returns the packs and the packs that could not be read, by name.
func (ps *packSet) list(s *Store) ([]*packFile, map[string]error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.refresh(s)
	var out []*packFile
	for _, p := range ps.files {
		out = append(out, p)
	}
	bad := map[string]error{}
	for n, err := range ps.bad {
		bad[n] = err
	}
	return out, bad
}

// refresh lists packs/ and loads the index of each pack not yet known,
// forgetting packs that are gone. Caller holds ps.mu.
func (ps *packSet) refresh(s *Store) {
	ps.listed = true
	if ps.files == nil {
		ps.files, ps.where, ps.bad = map[string]*packFile{}, map[BlobID]packLoc{}, map[string]error{}
	}
	list, _ := storefs.Names(s.dir, "packs")
	now := map[string]bool{}
	changed := false
	for _, n := range list {
		if !strings.HasSuffix(n, ".pack") || strings.HasPrefix(n, ".tmp-") {
			continue
		}
		now[n] = true
		if _, ok := ps.files[n]; ok {
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
		ps.files[n] = p
		changed = true
	}
	for n, p := range ps.files {
		if !now[n] {
			p.f.Close()
			delete(ps.files, n)
			changed = true
		}
	}
	for n := range ps.bad {
		if !now[n] {
			delete(ps.bad, n)
		}
	}
	if changed {
		n := 0
		for _, p := range ps.files {
			n += len(p.ents)
		}
		ps.where = make(map[BlobID]packLoc, n)
		for _, p := range ps.files {
			for _, e := range p.ents {
				ps.where[e.Sum] = packLoc{p, e}
			}
		}
	}
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
	return &packFile{name: name, f: f, ents: ents}, nil
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
		w.s.dir.Remove(w.tmp)
		return errf("write pack %s: %w", w.s.path(w.tmp), err)
	}
	w.fp.hit()
	name = "packs/" + name
	if err := w.s.dir.Rename(w.tmp, name); err != nil {
		w.s.dir.Remove(w.tmp)
		return errf("write pack %s: %w", w.s.path(name), err)
	}
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
		w.s.dir.Remove(w.tmp)
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
