package store

import (
	"errors"
	"fmt"
	"os"
	"path"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
	"golang.org/x/sys/unix"
)

// captured is what one path held when a capture or seal looked at it.
type captured struct {
	rel  string
	img  Image
	dirs []string
	err  error
}

// rels maps caller paths to root-relative ones, in order, without
// duplicates. A path that cannot be used is left out and listed in bad;
// the others stand on their own.
func (s *Store) rels(paths []string) (out []string, bad []PathError) {
	seen := map[string]bool{}
	memo := map[string]string{}
	for _, p := range paths {
		rel, err := s.rel(p, memo)
		if err != nil {
			// rel's error names p already.
			if pe := (*PathError)(nil); errors.As(err, &pe) {
				bad = append(bad, *pe)
			} else {
				bad = append(bad, PathError{Path: p, Err: err})
			}
			continue
		}
		if !seen[rel] {
			seen[rel] = true
			out = append(out, rel)
		}
	}
	return out, bad
}

// look is lookEach for a caller that needs every path: the first path
// that could not be read is the error.
func (s *Store) look(rels []string, keepAll bool, fp *failpoint) ([]captured, error) {
	out, err := s.lookEach(rels, keepAll, fp)
	if err != nil {
		return nil, err
	}
	for _, c := range out {
		if c.err != nil {
			return nil, c.err
		}
	}
	return out, nil
}

// usable splits what lookEach found into the paths read and the ones
// that could not be, added to bad.
func usable(seen []captured, bad []PathError) ([]captured, []PathError) {
	ok := make([]captured, 0, len(seen))
	for _, c := range seen {
		if c.err != nil {
			if pe := (*PathError)(nil); errors.As(c.err, &pe) && pe.Path == c.rel {
				bad = append(bad, *pe) // it names the path already
			} else {
				bad = append(bad, PathError{Path: c.rel, Err: c.err})
			}
			continue
		}
		ok = append(ok, c)
	}
	return ok, bad
}

// lookEach reads each path's current state and keeps its bytes as a blob
// when under the size limit (any size when keepAll), using every core. A
// batch of more than looseMax paths writes its new blobs into one pack, a
// smaller one as loose files; files larger than inMemMax stream into loose
// blobs. It then makes the new blobs durable with one barrier for a batch,
// or an fsync per blob for a few. A path that cannot be read carries its error
// in its captured; the error returned is the barrier's.
func (s *Store) lookEach(rels []string, keepAll bool, fp *failpoint) ([]captured, error) {
	out, b, err := s.lookUnsynced(rels, keepAll, fp)
	if err != nil {
		return nil, err
	}
	if err := s.syncBlobs(b.wrote, b.packed); err != nil {
		return nil, err
	}
	if len(b.wrote) > 0 {
		fp.hit()
	}
	return out, nil
}

// blobBatch is what a look wrote: blobs not yet known durable, and
// whether they went into a pack.
type blobBatch struct {
	wrote  []BlobID
	packed bool
}

// lookUnsynced is lookEach without the barrier: the caller makes the
// blobs durable, with the records that name them.
func (s *Store) lookUnsynced(rels []string, keepAll bool, fp *failpoint) ([]captured, blobBatch, error) {
	out := make([]captured, len(rels))
	var mu sync.Mutex
	var wrote []BlobID
	var pack *packWriter
	if len(rels) > s.looseMax {
		// One listing of the packs (the multi-pack index and the few
		// packs it does not cover) answers for the whole batch; a loose
		// blob costs a stat, so blobs/ is never listed.
		s.packs.ensure(s)
		pack = s.newPackWriter(fp)
	}
	loose := 0
	big := func(f *os.File, size int64) (Image, error) {
		if size > s.maxBlob && !keepAll {
			return hashOnly(f, size)
		}
		sum, n, err := s.putBlobStream(f)
		return Image{Kind: ImageContent, SHA256: sum, Size: n, Kept: err == nil}, err
	}
	dirs := newDirCache(s)
	defer dirs.close()
	// Workers take the next path by counting, not from a channel: a
	// batch of thousands would otherwise hand each one over with a wake-up.
	var next atomic.Int64
	// Reading and writing small files waits on the disk more than on the
	// CPU: more workers than cores keep both busy.
	workers := min(4*runtime.GOMAXPROCS(0), len(rels))
	// Each worker reads and compresses into buffers of its own, reused
	// from file to file.
	run := s.copying.Load().of(rels) // a first sweep's batch under a CopyControl, or nil
	work := func() {
		var buf, z []byte
		for {
			i := int(next.Add(1) - 1)
			if i >= len(rels) || !run.goOn() {
				return
			}
			if err := guarded(func() error {
				c := captured{rel: rels[i]}
				img, data, err := dirs.readInto(c.rel, big, buf)
				defer func() {
					if data != nil {
						buf = keepBuf(data[:0])
					}
				}()
				switch {
				case err != nil && keepAll && dirs.behindLink(c.rel):
					// An operation's path, recorded when it was resolved:
					// behind a link now, wherever it leads, it is gone.
					img = Image{Kind: ImageAbsent}
				case err != nil:
					c.err = err
				case img.Kind == ImageContent && img.Size > s.maxBlob && !keepAll:
					img.Kind, img.Kept = ImageSkipped, false
					img.Reason = fmt.Sprintf("%s over the %s limit", humanBytes(img.Size), humanBytes(s.maxBlob))
				case img.Kind == ImageContent:
					sum, _ := blobOf(img) // hashed just now
					if data != nil || !img.Kept {
						var isNew bool
						isNew, c.err = s.putBlob(sum, data, pack, &z)
						img.Kept = c.err == nil
						if isNew {
							mu.Lock()
							loose++
							mu.Unlock()
						}
					} else {
						mu.Lock()
						loose++
						mu.Unlock()
					}
					// A blob found already there may be another capture's,
					// not yet durable: it is synced like a new one. One
					// that could not be written (a full disk) is not
					// synced: its path carries the reason.
					if c.err == nil {
						mu.Lock()
						wrote = append(wrote, sum)
						mu.Unlock()
					}
				case img.Kind == ImageAbsent:
					c.dirs = s.missingDirs(c.rel)
				case notFile(img) && !keepAll:
					c.err = &PathError{Path: c.rel, Err: errf("it %s", otherReason(img))}
				}
				c.img = img
				out[i] = c
				run.read(img.Size)
				return nil
			}); err != nil {
				out[i] = captured{rel: rels[i], err: err}
			}
		}
	}
	runWorkers(workers, work)
	for range loose {
		fp.hit()
	}
	packed := false
	if pack != nil {
		packed = pack.used()
		if err := pack.commit(); err != nil {
			return nil, blobBatch{}, err
		}
	}
	if err := run.err(); err != nil {
		// Stopped between files: what was read is kept, and durable, so
		// the next first sweep need not write it again.
		_ = s.syncBlobs(wrote, packed) // nothing names these blobs yet; a lost one is written again
		return nil, blobBatch{}, err
	}
	return out, blobBatch{wrote, packed}, nil
}

// runWorkers runs work on n goroutines and waits for them to return; with
// n 1 (a hook's one path) on the caller's own, as a goroutine would only
// wake a second thread.
func runWorkers(n int, work func()) {
	if n == 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	for range n {
		wg.Go(work)
	}
	wg.Wait()
}

// syncBlobs makes freshly written blobs durable before any record names
// them: one barrier for a batch or a pack, else an fsync per blob (found
// loose or in a pack) and of the folders.
func (s *Store) syncBlobs(sums []BlobID, packed bool) error {
	if len(sums) == 0 && !packed {
		return nil
	}
	if packed || len(sums) > s.looseMax {
		if err := storefs.SyncFS(s.dir); err != nil {
			return errf("sync %s: %w", s.path("blobs"), err)
		}
		return nil
	}
	inPack := false
	for _, sum := range sums {
		src, err := s.locate(sum)
		if err == nil {
			err = src.f.Sync()
			if src.close {
				src.f.Close()
			} else {
				inPack = true
			}
		}
		if err != nil {
			return errf("sync blob %s: %w", sum.Short(), err)
		}
	}
	if inPack {
		if err := storefs.SyncDir(s.dir, "packs"); err != nil {
			return errf("sync %s: %w", s.path("packs"), err)
		}
	}
	return storefs.SyncDir(s.dir, "blobs")
}

// missingDirs lists the folders above rel that do not exist yet, outermost
// first: a rewind removes them again if they are left empty.
func (s *Store) missingDirs(rel string) []string {
	var dirs []string
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		fi, err := s.root.Lstat(d)
		if err == nil && fi.IsDir() {
			break
		}
		// Missing, or a file or link where the folder is to be (the
		// operation removes it first): either way not a folder yet.
		dirs = append([]string{d}, dirs...)
		if err == nil {
			break
		}
	}
	return dirs
}

// missingDirsIn is missingDirs through a batch's open folders: a file
// whose folder is open costs no call at all.
//
// A folder on rel's way that is a link now counts as missing, and so does
// every one beneath it: the operation removes the link first, and the
// folders it makes then are its own.
func (s *Store) missingDirsIn(rel string, dirs *dirCache) []string {
	var out []string
	for d := path.Dir(rel); d != "." && !dirs.exists(d); d = path.Dir(d) {
		out = append(out, d)
	}
	slices.Reverse(out)
	return out
}

// humanBytes says a size in the reason a skipped file's image records
// ("12.0 MiB over the 8.0 MiB limit"). It is not present.Bytes: the
// words are written into records, which older and newer ckpts show as
// they are, so they must not change when present's do; and the store
// links nothing of terminals, which present does.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Capture keeps the current bytes of paths before an agent writes them,
// for turn (a new turn starts if none has that id). The first capture of a
// path in a turn wins; later ones are ignored. It returns the turn id used:
// T.2 (then T.3 …) when T was already rewound, recorded as the open turn
// of meta.Session when one is named. It reads and writes only
// that turn's records, so it costs the same whatever the store's size.
//
// Each path stands alone: one that cannot be captured (outside the root,
// unreadable, a folder) is left out, and the error is a *BatchError naming
// it, while the others are captured.
func (s *Store) Capture(turn TurnID, meta TurnMeta, paths []string) (TurnID, error) {
	if err := turn.check(); err != nil {
		return "", errf("capture: %w", err)
	}
	rels, bad := s.rels(paths)
	used, err := s.capture(string(turn), meta, rels, &bad)
	id := TurnID(used)
	if ferr := s.followed(meta, turn, id); ferr != nil {
		return id, ferr
	}
	if err != nil {
		return id, err
	}
	return id, batchError("capture", bad)
}

func (s *Store) capture(turn string, meta TurnMeta, rels []string, bad *[]PathError) (string, error) {
	if err := s.ensureDirs(); err != nil {
		return "", err
	}
	fp := newFailpoint("capture")
	bl, err := s.flock("blobs.lock", unix.LOCK_SH)
	if err != nil {
		return "", err
	}
	defer bl.unlock()
	rels = append(rels, s.linkedNames(rels)...)
	asked := rels
	// Skip paths the turn already holds before doing the expensive part;
	// the check is repeated under the lock.
	if guess, err := s.incarnation(turn); err == nil {
		tp, err := s.openTurnPaths(guess, false)
		if errors.Is(err, ErrNewerFormat) {
			return "", err // refused before a blob is written
		}
		if err == nil {
			rels = slices.DeleteFunc(slices.Clone(rels), tp.has) // the caller's slice stays as it is
			tp.close()
		}
	}
	readAt := time.Now().UnixNano() // the sweeps' clock: see record.File.Seen
	seen, batch, err := s.lookUnsynced(rels, false, fp)
	if err != nil {
		return "", errf("capture: %w", err)
	}
	seen, *bad = usable(seen, *bad)
	l, id, tp, err := s.lockTurnPaths(turn)
	if err != nil {
		return "", err
	}
	defer l.unlock()
	defer tp.close()
	exists := tp.exists
	if !exists && len(seen) == 0 && len(*bad) > 0 {
		// Every path failed: no turn is started for nothing.
		return id, nil
	}
	now := s.clock().UnixNano()
	n := s.nextSeq(now, turnFileName(id))
	// A file's record takes about 250 bytes: room for all of them at once.
	buf := make([]byte, 0, 256*len(seen)+512)
	if !exists {
		buf = s.turnHeader(buf, turn, id, meta, now, n)
	}
	for _, c := range seen {
		if tp.has(c.rel) {
			continue
		}
		img := c.img
		buf = tp.appendPre(buf, c.rel, &record.Line{R: "pre", File: record.File{Path: c.rel, Img: &img, Dirs: c.dirs, Seen: readAt}, At: now, N: n})
	}
	if len(buf) > 0 {
		if err := s.appendTurnSynced(id, buf, fp); err != nil {
			return "", err
		}
		tp.appended(buf, true)
	} else if err := s.syncBatch(batch, fp); err != nil {
		return id, err
	}
	// Noted whatever runs now: a command may begin before the seal.
	at := time.Now().UnixNano()
	s.noteEdits(id, captureNotes(asked, tp), at, s.othersRunning(id, at))
	return id, nil
}

// syncBatch makes a look's blobs durable when no record follows them.
func (s *Store) syncBatch(b blobBatch, fp *failpoint) error {
	if err := s.syncBlobs(b.wrote, b.packed); err != nil {
		return err
	}
	if len(b.wrote) > 0 {
		fp.hit()
	}
	return nil
}

// appendTurnSynced appends records naming the blobs a look just wrote and
// makes both durable with one barrier (syncfs of the store's file system) instead of
// an fsync per blob, per folder and per record file. Until it returns,
// the caller (a capture before the agent's write) has not let the write
// happen, so a crash before the barrier can at worst lose a record or
// keep a record whose blob was lost while the file still holds those very
// bytes; a rewind keeps a file whose bytes already match, and verify
// reports the blob.
func (s *Store) appendTurnSynced(id string, buf []byte, fp *failpoint) error {
	name := turnFileName(id)
	if err := storefs.Append(s.dir, name, buf); err != nil {
		return errf("append to %s: %w", s.path(name), err)
	}
	fp.hit()
	if err := storefs.SyncFS(s.dir); err != nil {
		return errf("sync %s: %w", s.path("."), err)
	}
	fp.hit()
	return nil
}

// Seal records what the agent left at paths after its write: the hash,
// and the bytes as a blob when under the size limit. Each path must have
// been captured in the turn. As for Capture, each path stands alone: the
// error is a *BatchError naming those that could not be sealed.
func (s *Store) Seal(turn TurnID, paths []string) error {
	if err := turn.check(); err != nil {
		return errf("seal: %w", err)
	}
	rels, bad := s.rels(paths)
	if err := s.seal(string(turn), rels, &bad); err != nil {
		return err
	}
	return batchError("seal", bad)
}

func (s *Store) seal(turn string, rels []string, bad *[]PathError) error {
	if len(rels) == 0 {
		return nil
	}
	if err := s.ensureDirs(); err != nil {
		return err
	}
	bl, err := s.flock("blobs.lock", unix.LOCK_SH)
	if err != nil {
		return err
	}
	defer bl.unlock()
	fp := newFailpoint("seal")
	// The other names of a file written through a hard link were captured
	// with it: they are sealed with it too.
	linked := set(s.linkedNames(rels))
	for p := range linked {
		rels = append(rels, p)
	}
	seen, batch, err := s.lookUnsynced(rels, false, fp)
	if err != nil {
		return errf("seal: %w", err)
	}
	seen, *bad = usable(seen, *bad)
	l, id, tp, err := s.lockTurnPaths(turn)
	if err != nil {
		return err
	}
	defer l.unlock()
	defer tp.close()
	now := s.clock().UnixNano()
	n := s.nextSeq(now, turnFileName(id))
	buf := make([]byte, 0, 256*len(seen)+512)
	created := !tp.exists
	// The seal is noted for the sweeps (see edits.go), with what the
	// turn held of each path before: it closes the capture noted.
	noteAt := time.Now().UnixNano() // the sweeps' clock, not the records'
	was := map[string]Image{}
	var sealed []captured
	for _, c := range seen {
		if !tp.sure(c.rel) {
			// Captured in a turn a rewind undid between the capture and
			// this seal: what the operation left is this continuation's
			// pre-image (that capture's, unless it went further back).
			f := s.earlierCapture(turn, id, c.rel)
			if f == nil && linked[c.rel] {
				continue // not captured with it: nothing to seal
			}
			if f == nil {
				*bad = append(*bad, PathError{Path: c.rel, Err: errf("not captured in turn %s", id)})
				continue
			}
			if created {
				buf = s.appendTurnRecord(buf, id, f.label, f.source, now, n)
				created = false
			}
			pre := f.file.pre
			if img, ok := s.opLeftSince(f.file.preSeq, c.rel); ok {
				pre = img
			}
			// Seen now, though taken earlier: as in turn order, last.
			buf = tp.appendPre(buf, c.rel, &record.Line{R: "pre", File: record.File{Path: c.rel, Img: &pre, Dirs: f.file.dirs, Seen: noteAt}, At: now, N: n})
			was[c.rel] = pre
		}
		if _, ok := was[c.rel]; !ok {
			was[c.rel] = tp.held(c.rel)
		}
		img := c.img
		buf = record.Append(buf, &record.Line{R: "post", File: record.File{Path: c.rel, Img: &img}, At: now, N: n})
		sealed = append(sealed, c)
	}
	if len(buf) == 0 {
		return s.syncBatch(batch, fp)
	}
	if err := s.appendTurnSynced(id, buf, fp); err != nil {
		return err
	}
	tp.appended(buf, true)
	notes := make([]editNote, len(sealed))
	for i, c := range sealed {
		w, left := was[c.rel], c.img
		notes[i] = editNote{Path: c.rel, Was: &w, Left: &left}
	}
	s.noteEdits(id, notes, noteAt, s.othersRunning(id, noteAt))
	return nil
}

// earlier is a path's capture in an earlier incarnation of a turn.
type earlier struct {
	file   *tfile
	label  string
	source *Source
}

// earlierCapture finds rel's capture in the newest incarnation of turn
// before id (turn, turn.2, …). Caller holds the lock.
func (s *Store) earlierCapture(turn, id, rel string) *earlier {
	var found *earlier
	for k := 1; ; k++ {
		cand := turn
		if k > 1 {
			cand = turn + "." + strconv.Itoa(k)
		}
		if cand == id || k > 1000 {
			return found
		}
		if t, ok, _ := s.readTurnFile(cand, false); ok {
			if f := t.recorded(rel); f != nil {
				found = &earlier{f, t.label, t.source}
			}
		}
	}
}
