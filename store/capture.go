package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

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
	var ok []captured
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
	wrote  []string
	packed bool
}

// lookUnsynced is lookEach without the barrier: the caller makes the
// blobs durable, with the records that name them.
func (s *Store) lookUnsynced(rels []string, keepAll bool, fp *failpoint) ([]captured, blobBatch, error) {
	out := make([]captured, len(rels))
	var mu sync.Mutex
	var wrote []string
	var known map[string]bool
	var pack *packWriter
	if len(rels) > s.looseMax {
		known = s.blobNames()
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
	dirs := newDirCache(s.root)
	defer dirs.close()
	work := make(chan int)
	var wg sync.WaitGroup
	// Reading and writing small files waits on the disk more than on the
	// CPU: more workers than cores keep both busy.
	workers := min(4*runtime.GOMAXPROCS(0), len(rels))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := guarded(func() error {
					c := captured{rel: rels[i]}
					img, data, err := dirs.readWith(c.rel, big)
					switch {
					case err != nil:
						c.err = err
					case img.Kind == ImageContent && img.Size > s.maxBlob && !keepAll:
						img.Kind, img.Kept = ImageSkipped, false
						img.Reason = fmt.Sprintf("%s over the %s limit", humanBytes(img.Size), humanBytes(s.maxBlob))
					case img.Kind == ImageContent:
						if data != nil || !img.Kept {
							var isNew bool
							isNew, c.err = s.putBlob(img.SHA256, data, known, pack)
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
						// not yet durable: it is synced like a new one.
						mu.Lock()
						wrote = append(wrote, img.SHA256)
						mu.Unlock()
					case img.Kind == ImageAbsent:
						c.dirs = s.missingDirs(c.rel)
					case img.Kind == ImageOther && !keepAll:
						c.err = &PathError{Path: c.rel, Err: errf("it %s", img.Reason)}
					}
					c.img = img
					out[i] = c
					return nil
				}); err != nil {
					out[i] = captured{rel: rels[i], err: err}
				}
			}
		}()
	}
	for i := range rels {
		work <- i
	}
	close(work)
	wg.Wait()
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
	return out, blobBatch{wrote, packed}, nil
}

// syncBlobs makes freshly written blobs durable before any record names
// them: one barrier for a batch or a pack, else an fsync per blob (found
// loose or in a pack) and of the folders.
func (s *Store) syncBlobs(sums []string, packed bool) error {
	if len(sums) == 0 && !packed {
		return nil
	}
	if packed || len(sums) > s.looseMax {
		if err := syncFS(s.dir); err != nil {
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
			return errf("sync blob %s: %w", sum[:12], err)
		}
	}
	if inPack {
		if err := syncDir(s.dir, "packs"); err != nil {
			return errf("sync %s: %w", s.path("packs"), err)
		}
	}
	return syncDir(s.dir, "blobs")
}

// missingDirs lists the folders above rel that do not exist yet, outermost
// first: a rewind removes them again if they are left empty.
func (s *Store) missingDirs(rel string) []string {
	var dirs []string
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if _, err := s.root.Lstat(d); err == nil {
			break
		}
		dirs = append([]string{d}, dirs...)
	}
	return dirs
}

// missingDirsIn is missingDirs through a batch's open folders: a file
// whose folder is open costs no call at all.
func (s *Store) missingDirsIn(rel string, dirs *dirCache) []string {
	if dirs.exists(path.Dir(rel)) {
		return nil
	}
	return s.missingDirs(rel)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// readTurnFile parses one turn file for a writer holding the lock, cutting
// a torn last record so the next append starts on a clean line.
func (s *Store) readTurnFile(id string, cut bool) (*turn, bool, error) {
	name := turnFileName(id)
	data, err := s.dir.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, errf("read %s: %w", s.path(name), err)
	}
	res := decodeRecords(data)
	if res.torn && cut {
		if err := truncateDurably(s.dir, name, res.good); err != nil {
			return nil, false, errf("cut the torn record at the end of %s: %w", s.path(name), err)
		}
	}
	t := newTurn(id)
	for i := range res.recs {
		t.apply(&res.recs[i])
	}
	if t.v > formatVersion {
		return nil, false, errf("%s was written by a newer ckpt (record format v%d): upgrade ckpt", s.path(name), t.v)
	}
	return t, t.at != 0, nil
}

// maxTurnID is the longest turn id, in bytes: its file name (hex-encoded
// when it holds other characters, with room for a ".N" continuation)
// must fit the file system's 255.
const maxTurnID = 100

// ErrBadTurnID means a turn id is empty, too long to name a file, or
// named like an operation (op-N).
var ErrBadTurnID = errors.New("store: not a usable turn id")

// checkTurnID refuses an id no turn file could be named after.
func checkTurnID(id string) error {
	switch {
	case id == "":
		return errf("an empty turn id: %w", ErrBadTurnID)
	case len(id) > maxTurnID:
		return errf("turn id %q… is %d bytes long; at most %d: %w", id[:20], len(id), maxTurnID, ErrBadTurnID)
	}
	if _, err := ParseOpID(id); err == nil {
		return errf("turn id %q names an operation (op-N is theirs): %w", id, ErrBadTurnID)
	}
	return nil
}

// incarnation finds the turn a capture naming id goes to: id itself, or,
// when id was rewound, the first of id.2, id.3, … that is not. Caller
// holds the lock.
func (s *Store) incarnation(id string) (string, error) {
	if err := checkTurnID(id); err != nil {
		return "", err
	}
	s.mu.Lock()
	ops, err := s.readOps()
	v := newView()
	if err == nil {
		v.replay(ops)
	}
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	for k := 1; ; k++ {
		cand := id
		if k > 1 {
			cand = id + "." + strconv.Itoa(k)
		}
		if !v.rewound[cand] {
			return cand, nil
		}
	}
}

// Capture keeps the current bytes of paths before an agent writes them,
// for turn (a new turn starts if none has that id). The first capture of a
// path in a turn wins; later ones are ignored. It returns the turn id used:
// T.2 (then T.3 …) when T was already rewound. It reads and writes only
// that turn's records, so it costs the same whatever the store's size.
//
// Each path stands alone: one that cannot be captured (outside the root,
// unreadable, a folder) is left out, and the error is a *BatchError naming
// it, while the others are captured.
func (s *Store) Capture(turn string, meta TurnMeta, paths []string) (string, error) {
	if err := checkTurnID(turn); err != nil {
		return "", errf("capture: %w", err)
	}
	rels, bad := s.rels(paths)
	id, err := s.capture(turn, meta, rels, &bad)
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
	// Skip paths the turn already holds before doing the expensive part;
	// the check is repeated under the lock.
	if guess, err := s.incarnation(turn); err == nil {
		if t, ok, _ := s.readTurnFile(guess, false); ok {
			rels = without(rels, t.byPath)
		}
	}
	seen, batch, err := s.lookUnsynced(rels, false, fp)
	if err != nil {
		return "", errf("capture: %w", err)
	}
	seen, *bad = usable(seen, *bad)
	l, err := s.lock()
	if err != nil {
		return "", err
	}
	defer l.unlock()
	id, err := s.incarnation(turn)
	if err != nil {
		return "", err
	}
	t, exists, err := s.readTurnFile(id, true)
	if err != nil {
		return "", err
	}
	if !exists && len(seen) == 0 && len(*bad) > 0 {
		// Every path failed: no turn is started for nothing.
		return id, nil
	}
	now := s.clock().UnixNano()
	n := s.nextSeq(now)
	var buf []byte
	if !exists {
		buf = s.turnHeader(buf, turn, id, meta, now, n)
		t = newTurn(id)
	}
	for _, c := range seen {
		if _, ok := t.byPath[c.rel]; ok {
			continue
		}
		img := c.img
		buf = appendRecord(buf, &record{R: "pre", Path: c.rel, Img: &img, Dirs: c.dirs, At: now, N: n})
	}
	if len(buf) == 0 {
		return id, s.syncBatch(batch, fp)
	}
	if err := s.appendTurnSynced(id, buf, fp); err != nil {
		return "", err
	}
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
	if err := appendFile(s.dir, name, buf); err != nil {
		return errf("append to %s: %w", s.path(name), err)
	}
	fp.hit()
	if err := syncFS(s.dir); err != nil {
		return errf("sync %s: %w", s.path("."), err)
	}
	fp.hit()
	return nil
}

func without(rels []string, have map[string]*tfile) []string {
	var out []string
	for _, r := range rels {
		if _, ok := have[r]; !ok {
			out = append(out, r)
		}
	}
	return out
}

func (s *Store) appendTurn(id string, buf []byte, created bool) error {
	name := turnFileName(id)
	if err := appendDurable(s.dir, name, buf); err != nil {
		return errf("append to %s: %w", s.path(name), err)
	}
	if created {
		if err := syncDir(s.dir, "turns"); err != nil {
			return errf("sync %s: %w", s.path("turns"), err)
		}
	}
	return nil
}

// NewTurn starts a turn with the next short numeric id ("1", "2", …).
func (s *Store) NewTurn(meta TurnMeta) (string, error) {
	if err := s.ensureDirs(); err != nil {
		return "", err
	}
	l, err := s.lock()
	if err != nil {
		return "", err
	}
	defer l.unlock()
	n := s.lastNumber()
	for {
		n++
		id := strconv.Itoa(n)
		if _, exists, err := s.readTurnFile(id, true); err != nil || exists {
			continue
		}
		now := s.clock().UnixNano()
		buf := appendRecord(nil, &record{R: "turn", V: formatVersion, ID: id, Label: meta.Label, Source: meta.Source, Head: gitHead(s.root), At: now, N: s.nextSeq(now)})
		writeFileAtomic(s.dir, "seq", []byte(id+"\n"), 0o600, false)
		if err := s.appendTurnSynced(id, buf, &failpoint{}); err != nil {
			return "", err
		}
		return id, nil
	}
}

// clockFile holds the last order number handed out (record.N).
const clockFile = "clock"

// turnHeader appends the record that opens turn id's file, asked for as
// turn: a continuation (T.2) keeps the label and source of T unless new
// ones were given.
func (s *Store) turnHeader(buf []byte, turn, id string, meta TurnMeta, now, n int64) []byte {
	if id != turn && meta.Label == "" && meta.Source == nil {
		if orig, ok, _ := s.readTurnFile(turn, false); ok {
			meta = TurnMeta{Label: orig.label, Source: orig.source}
		}
	}
	return appendRecord(buf, &record{R: "turn", V: formatVersion, ID: id, Label: meta.Label, Source: meta.Source, Head: gitHead(s.root), At: now, N: n})
}

// nextSeq hands out the order number of records committed now: greater
// than every one before it, so turns and operations keep the order in
// which they were committed even when the wall clock steps back (a VM
// resumed, WSL). It is the wall clock while that moves forward, so a lost
// update of the clock file costs nothing unless the clock steps back at
// the same time; hence it is written in place, without a sync (replacing
// it through a rename cost more than the rest of a capture). Caller holds
// the lock.
func (s *Store) nextSeq(now int64) int64 {
	f, err := s.dir.OpenFile(clockFile, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return now
	}
	defer f.Close()
	var buf [24]byte
	k, _ := f.ReadAt(buf[:], 0)
	line, _, _ := strings.Cut(string(buf[:k]), "\n")
	last, _ := strconv.ParseInt(line, 10, 64)
	n := now
	if last < math.MaxInt64 && last+1 > n {
		n = last + 1
	}
	// Fixed width: the number is always the whole file.
	f.WriteAt(fmt.Appendf(nil, "%020d\n", n), 0)
	return n
}

// lastNumber is the highest numeric turn id handed out: from the seq file,
// or, when it is missing, from the turn files and the seed index.
func (s *Store) lastNumber() int {
	if b, err := s.dir.ReadFile("seq"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return n
		}
	}
	n := 0
	list, _ := names(s.dir, "turns")
	for _, name := range list {
		if k, err := strconv.Atoi(strings.TrimSuffix(name, ".log")); err == nil && k > n {
			n = k
		}
	}
	if seed, err := s.parseSeed(); err == nil {
		for _, t := range seed {
			if k, err := strconv.Atoi(t.id); err == nil && k > n {
				n = k
			}
		}
	}
	return n
}

// Seal records what the agent left at paths after its write: the hash,
// and the bytes as a blob when under the size limit. Each path must have
// been captured in the turn. As for Capture, each path stands alone: the
// error is a *BatchError naming those that could not be sealed.
func (s *Store) Seal(turn string, paths []string) error {
	if err := checkTurnID(turn); err != nil {
		return errf("seal: %w", err)
	}
	rels, bad := s.rels(paths)
	if err := s.seal(turn, rels, &bad); err != nil {
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
	seen, batch, err := s.lookUnsynced(rels, false, fp)
	if err != nil {
		return errf("seal: %w", err)
	}
	seen, *bad = usable(seen, *bad)
	l, err := s.lock()
	if err != nil {
		return err
	}
	defer l.unlock()
	id, err := s.incarnation(turn)
	if err != nil {
		return err
	}
	t, exists, err := s.readTurnFile(id, true)
	if err != nil {
		return err
	}
	if !exists {
		t = newTurn(id)
	}
	now := s.clock().UnixNano()
	n := s.nextSeq(now)
	var buf []byte
	created := !exists
	for _, c := range seen {
		if _, ok := t.byPath[c.rel]; !ok {
			// Captured in a turn a rewind undid between the capture and
			// this seal: the rewind put back that capture's pre-image, so
			// it is this continuation's pre-image too.
			f := s.earlierCapture(turn, id, c.rel)
			if f == nil {
				*bad = append(*bad, PathError{Path: c.rel, Err: errf("not captured in turn %s", id)})
				continue
			}
			if created {
				buf = appendRecord(buf, &record{R: "turn", V: formatVersion, ID: id, Label: f.label, Source: f.source, Head: gitHead(s.root), At: now, N: n})
				created = false
			}
			pre := f.file.pre
			buf = appendRecord(buf, &record{R: "pre", Path: c.rel, Img: &pre, Dirs: f.file.dirs, At: now, N: n})
		}
		img := c.img
		buf = appendRecord(buf, &record{R: "post", Path: c.rel, Img: &img, At: now, N: n})
	}
	if len(buf) == 0 {
		return s.syncBatch(batch, fp)
	}
	return s.appendTurnSynced(id, buf, fp)
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
			if f := t.byPath[rel]; f != nil {
				found = &earlier{f, t.label, t.source}
			}
		}
	}
}

// Write captures path, writes data to it (keeping its mode, or 0644 for a
// new file), and seals it. It returns the turn id used.
func (s *Store) Write(turn string, meta TurnMeta, p string, data []byte) (string, error) {
	// Held across capture, write and seal, so a rewind waits for all three
	// rather than landing between them.
	if err := s.ensureDirs(); err != nil {
		return "", err
	}
	bl, err := s.flock("blobs.lock", unix.LOCK_SH)
	if err != nil {
		return "", err
	}
	defer bl.unlock()
	id, err := s.Capture(turn, meta, []string{p})
	if err != nil {
		return "", err
	}
	rel, _ := s.Rel(p)
	perm := os.FileMode(0o644)
	if fi, err := s.root.Lstat(rel); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	if d := path.Dir(rel); d != "." {
		if err := s.root.MkdirAll(d, 0o755); err != nil {
			return id, errf("write %s: %w", rel, err)
		}
	}
	if err := writeFileAtomic(s.root, rel, data, perm, true); err != nil {
		return id, errf("write %s: %w", rel, err)
	}
	s.root.Chmod(rel, perm)
	return id, s.Seal(id, []string{rel})
}

// Remove captures paths, deletes them, and seals them. As for Capture,
// each path stands alone: the error is a *BatchError naming those that
// could not be captured, removed or sealed.
func (s *Store) Remove(turn string, meta TurnMeta, paths []string) (string, error) {
	if err := s.ensureDirs(); err != nil {
		return "", err
	}
	bl, err := s.flock("blobs.lock", unix.LOCK_SH)
	if err != nil {
		return "", err
	}
	defer bl.unlock()
	if err := checkTurnID(turn); err != nil {
		return "", errf("rm: %w", err)
	}
	rels, bad := s.rels(paths)
	id, err := s.capture(turn, meta, rels, &bad)
	if err != nil || id == "" {
		if err == nil {
			err = batchError("rm", bad)
		}
		return id, err
	}
	failed := map[string]bool{}
	for _, b := range bad {
		failed[b.Path] = true
	}
	var gone []string
	for _, rel := range rels {
		if failed[rel] {
			continue
		}
		if err := s.root.Remove(rel); err != nil {
			bad = append(bad, PathError{Path: rel, Err: errf("remove: %w", err)})
		}
		// Sealed either way: the seal records what is there now.
		gone = append(gone, rel)
	}
	if err := s.seal(id, gone, &bad); err != nil {
		return id, err
	}
	return id, batchError("rm", bad)
}

// SessionTurn returns the open turn recorded for an agent session key.
func (s *Store) SessionTurn(key string) (string, bool) {
	b, err := s.dir.ReadFile(sessionFile(key))
	if err != nil {
		return "", false
	}
	id := strings.TrimSpace(string(b))
	return id, id != ""
}

// SetSessionTurn records the open turn for an agent session key.
func (s *Store) SetSessionTurn(key, turn string) error {
	if err := s.dir.Mkdir("sessions", 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return errf("create %s: %w", s.path("sessions"), err)
	}
	if err := writeFileAtomic(s.dir, sessionFile(key), []byte(turn+"\n"), 0o600, false); err != nil {
		return errf("record session turn in %s: %w", s.path(sessionFile(key)), err)
	}
	return nil
}

func sessionFile(key string) string {
	h := sha256.Sum256([]byte(key))
	return "sessions/" + hex.EncodeToString(h[:12])
}

// errLogMax bounds the error log; past it the older half is dropped.
const errLogMax = 256 << 10

// LogError appends a line to the store's bounded error log. Hooks, which
// must stay silent, report through it; `ckpt log` and the UI show it.
func (s *Store) LogError(format string, args ...any) {
	msg := escapeLogLine(strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " "))
	line := time.Now().UTC().Format(time.RFC3339) + " " + msg + "\n"
	f, err := s.dir.OpenFile("errors.log", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	f.Write([]byte(line))
	fi, err := f.Stat()
	f.Close()
	if err == nil && fi.Size() > errLogMax {
		if l, ok, _ := s.tryLock(); ok {
			data, err := s.dir.ReadFile("errors.log")
			if err == nil && len(data) > errLogMax/2 {
				data = data[len(data)-errLogMax/2:]
				if i := strings.IndexByte(string(data), '\n'); i >= 0 {
					data = data[i+1:]
				}
				writeFileAtomic(s.dir, "errors.log", data, 0o600, false)
			}
			l.unlock()
		}
	}
}

// escapeLogLine writes control characters (NUL, escape sequences, C1)
// and bytes that are not UTF-8 as escapes, so a hostile
// path or label can neither split a line of the error log nor paint the
// terminal that shows it.
func escapeLogLine(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Errors returns the error log's lines, oldest first.
func (s *Store) Errors() ([]string, error) {
	f, err := s.dir.Open("errors.log")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errf("read %s: %w", s.path("errors.log"), err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, errf("read %s: %w", s.path("errors.log"), err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// ClearErrors empties the error log (`ckpt log --errors` shows, then
// clears it; the UI's dismiss does the same).
func (s *Store) ClearErrors() error {
	l, err := s.lock()
	if err != nil {
		return err
	}
	defer l.unlock()
	if err := s.dir.Remove("errors.log"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errf("clear %s: %w", s.path("errors.log"), err)
	}
	return nil
}

// dirCache opens each folder of a batch once as an os.Root of its own,
// each through its parent's, so reading a file deep in the tree costs one
// open rather than one per path element, and a folder one open per batch.
// It also remembers how paths resolve (see Store.rel), so symlinks are
// resolved once per folder. It is safe for concurrent use.
type dirCache struct {
	root *os.Root
	mu   sync.Mutex
	subs map[string]*os.Root
	rels map[string]string // memo for Store.rel
}

// maxOpenDirs bounds the folders a dirCache holds open; past it, paths
// are opened through the project root. It leaves most of the process's
// file descriptors to the rest.
var maxOpenDirs = func() int {
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && lim.Cur > 2048 {
		return int(min(lim.Cur/4, 16384))
	}
	return 512
}()

func newDirCache(root *os.Root) *dirCache {
	return &dirCache{root: root, subs: map[string]*os.Root{}, rels: map[string]string{}}
}

// in returns the root to use for rel and rel's name inside it.
func (d *dirCache) in(rel string) (*os.Root, string) {
	dir, base := path.Split(rel)
	if dir == "" {
		return d.root, rel
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if r := d.sub(strings.TrimSuffix(dir, "/")); r != nil {
		return r, base
	}
	return d.root, rel
}

// sub opens dir (through its parent when that is open) or returns nil.
// Caller holds d.mu.
func (d *dirCache) sub(dir string) *os.Root {
	if r, ok := d.subs[dir]; ok {
		return r
	}
	if len(d.subs) >= maxOpenDirs {
		return nil
	}
	parent, base := path.Split(dir)
	var pr *os.Root
	if parent != "" {
		pr = d.sub(strings.TrimSuffix(parent, "/"))
	}
	var r *os.Root
	var err error
	if pr != nil {
		r, err = pr.OpenRoot(base)
	} else {
		r, err = d.root.OpenRoot(dir)
	}
	if err != nil {
		// A missing folder, or a link leading out of its parent: the full
		// path through the project root gives the right answer or error.
		d.subs[dir] = nil
		return nil
	}
	d.subs[dir] = r
	return r
}

// exists reports whether the folder dir ("." for the root) is there, as
// the batch first found it.
func (d *dirCache) exists(dir string) bool {
	if dir == "." {
		return true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sub(dir) != nil {
		return true
	}
	fi, err := d.root.Lstat(dir)
	return err == nil && fi.IsDir()
}

// rel is Store.rel with the batch's memo of resolved folders.
func (d *dirCache) rel(s *Store, p string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return s.rel(p, d.rels)
}

func (d *dirCache) read(rel string) (Image, []byte, error) {
	r, name := d.in(rel)
	return readIn(r, name, rel)
}

func (d *dirCache) readWith(rel string, big bigFile) (Image, []byte, error) {
	r, name := d.in(rel)
	return readInWith(r, name, rel, big)
}

func (d *dirCache) close() {
	for _, r := range d.subs {
		if r != nil {
			r.Close()
		}
	}
}
