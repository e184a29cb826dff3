package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"runtime"
	"syscall"
	"time"
)

// Apply carries out a plan's kind and target under the store's lock,
// recomputing the plan there (the disk or the store may have moved since
// it was shown). It keeps the current bytes of every path first, logs the
// operation, then changes the folder; a crash part-way is finished by the
// next Open. progress, if not nil, is called after each path.
func (s *Store) Apply(p *Plan, progress func(done, total int)) (*Result, error) {
	if err := s.ensureDirs(); err != nil {
		return nil, err
	}
	// Captures in flight hold blobs.lock shared from before they read the
	// files until their records are written: waiting for it exclusively
	// lets them finish, so the plan sees their turns.
	unlock, err := s.lockAll()
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Another process may have been killed mid-operation since this store
	// was opened: finish that first, so nothing is applied over it.
	if err := s.recoverLocked(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	var q *Plan
	switch p.Kind {
	case KindRewind:
		q, err = s.planRewind(v, p.Target)
	case KindUndo:
		q, err = s.planUndo(v, p.Force)
	case KindRedo:
		q, err = s.planRedo(v, p.Force)
	default:
		err = errf("apply: unknown operation %q", p.Kind)
	}
	if err != nil {
		return nil, err
	}
	if q.Kind == KindUndo || q.Kind == KindRedo {
		if want := p.Target; want != "" && want != q.Target {
			return nil, errf("%s: the store changed since the plan (%s is now next, not %s)", q.Kind, q.Target, want)
		}
	}
	fp := newFailpoint("apply")
	var last OpID
	for _, o := range v.ops {
		last = max(last, o.n)
	}
	id := last.Next().String()
	recs, bytesOf, err := s.prepare(q, fp)
	if err != nil {
		return nil, errf("%s: %w", q.Kind, err)
	}
	rmdirs := s.rmdirs(v, q)
	var had, mkdirs []string
	for _, d := range rmdirs {
		if fi, err := s.root.Lstat(d); err == nil && fi.IsDir() {
			had = append(had, d)
		}
	}
	if q.Kind == KindUndo {
		// Undo gives back the folders the operation it undoes removed.
		mkdirs = v.undo[len(v.undo)-1].via.had
	}
	var buf []byte
	for i := range recs {
		buf = appendRecord(buf, &recs[i])
	}
	stepsName := "ops/" + id + ".steps"
	if err := writeFileAtomic(s.dir, stepsName, buf, 0o600, false); err != nil {
		return nil, errf("%s: write %s: %w", q.Kind, s.path(stepsName), err)
	}
	fp.hit()
	// One barrier makes the kept bytes and the steps durable before the
	// operation is logged; from then on it can always be finished.
	if err := syncFS(s.dir); err != nil {
		return nil, errf("%s: sync %s: %w", q.Kind, s.path("."), err)
	}
	if err := s.cutTorn("ops.log"); err != nil {
		return nil, errf("%s: %w", q.Kind, err)
	}
	at := s.clock().UnixNano()
	op := appendRecord(nil, &record{R: "op", V: formatVersion, ID: id, Kind: q.Kind, Target: q.Target, Turns: q.Turns, Steps: len(recs), Rmdirs: rmdirs, Had: had, Mkdirs: mkdirs, At: at, N: s.nextSeq(at)})
	if err := appendDurable(s.dir, "ops.log", op); err != nil {
		return nil, errf("%s: append to %s: %w", q.Kind, s.path("ops.log"), err)
	}
	fp.hit()
	res := &Result{Op: id, Restored: []string{}, Deleted: []string{}, Failed: []Failure{}, HandEdited: []string{}, Applied: true}
	errs := s.execute(recs, bytesOf, rmdirs, mkdirs, true, fp, progress)
	var failed []string
	for i, r := range recs {
		if errs[i] != nil {
			failed = append(failed, r.Path)
		}
	}
	for i, r := range recs {
		err := errs[i]
		switch {
		case err != nil:
			res.Failed = append(res.Failed, Failure{Path: r.Path, Reason: err.Error()})
		case r.Do == ActFail:
			res.Failed = append(res.Failed, Failure{Path: r.Path, Reason: r.Why})
		case r.Do == ActRestore:
			res.Restored = append(res.Restored, r.Path)
		case r.Do == ActDelete:
			res.Deleted = append(res.Deleted, r.Path)
		}
		if r.Hand {
			res.HandEdited = append(res.HandEdited, r.Path)
		}
	}
	if err := s.finish(&record{R: "done", ID: id, Failed: failed}); err != nil {
		return res, err
	}
	fp.hit()
	return res, nil
}

// prepare turns a plan into step records, keeping first the current bytes
// of every path it will touch (at any size: a rewind must never lose a
// byte) and checking the bytes it will write against their hashes. A
// path whose kept bytes are damaged becomes a failed step.
func (s *Store) prepare(p *Plan, fp *failpoint) ([]record, map[string][]byte, error) {
	bytesOf := map[string][]byte{}
	var recs []record
	var budget int64 = 256 << 20
	var nowPaths []string
	for _, st := range p.Steps {
		if st.Do == ActRestore || st.Do == ActDelete {
			nowPaths = append(nowPaths, st.Path)
		}
	}
	nows, err := s.look(nowPaths, true, fp)
	if err != nil {
		return nil, nil, err
	}
	nowOf := map[string]Image{}
	for _, c := range nows {
		nowOf[c.rel] = c.img
	}
	for _, st := range p.Steps {
		now := st.Now
		if img, ok := nowOf[st.Path]; ok {
			now = img
		}
		want := st.Want
		r := record{R: "step", Path: st.Path, Img: &now, Want: &want, Do: st.Do, Why: st.Reason, Hand: st.HandEdited}
		// A blob too big to hold is checked as it streams into place.
		if st.Do == ActRestore && want.Kind == ImageContent && !sameBytes(now, want) && want.Size <= inMemMax {
			data, err := s.readBlob(want.SHA256, want.Size)
			if err != nil {
				r.Do, r.Why = ActFail, "not restored: "+err.Error()
			} else if int64(len(data)) <= budget {
				budget -= int64(len(data))
				bytesOf[st.Path] = data
			}
		}
		if r.Do == ActRestore {
			r.Dirs = s.missingDirs(st.Path)
		}
		recs = append(recs, r)
	}
	return recs, bytesOf, nil
}

// execute changes the folder as the steps say, in an order that lets a
// file replace a folder and a folder replace a file: deletions, then the
// folders left empty, then restores, then the folders an undo gives back.
// Within a phase paths are independent, so they run on several
// goroutines (small-file writes wait on the disk more than the CPU).
// Progress is reported from the calling goroutine.
func (s *Store) execute(recs []record, bytesOf map[string][]byte, rmdirs, mkdirs []string, fresh bool, fp *failpoint, progress func(done, total int)) []error {
	errs := make([]error, len(recs))
	n := 0
	phase := func(do func(Action) bool) {
		var idx []int
		for i, r := range recs {
			if do(r.Do) {
				idx = append(idx, i)
			}
		}
		// Folders are opened once per phase: one removed between phases
		// must not be written through a stale handle.
		dirs := newDirCache(s.root)
		defer dirs.close()
		work := make(chan int)
		done := make(chan struct{})
		workers := min(4*runtime.GOMAXPROCS(0), len(idx))
		for w := 0; w < workers; w++ {
			go func() {
				for i := range work {
					errs[i] = guarded(func() error { return s.applyStep(recs[i], bytesOf[recs[i].Path], dirs, fresh, fp) })
					done <- struct{}{}
				}
			}()
		}
		go func() {
			for _, i := range idx {
				work <- i
			}
			close(work)
		}()
		for range idx {
			<-done
			n++
			if progress != nil {
				progress(n, len(recs))
			}
		}
	}
	phase(func(a Action) bool { return a == ActDelete })
	s.removeDirs(rmdirs, fp)
	phase(func(a Action) bool { return a != ActDelete })
	s.makeDirs(mkdirs, fp)
	return errs
}

func (s *Store) removeDirs(dirs []string, fp *failpoint) {
	for _, d := range dirs {
		if rel, err := s.Rel(d); err == nil {
			// Only a real folder (a link standing there was never kept),
			// and Remove refuses one that is not empty, which is the point.
			if fi, err := s.root.Lstat(rel); err == nil && fi.IsDir() && s.root.Remove(rel) == nil {
				fp.hit()
			}
		}
	}
}

func (s *Store) makeDirs(dirs []string, fp *failpoint) {
	for _, d := range dirs {
		if rel, err := s.Rel(d); err == nil {
			if _, err := s.root.Lstat(rel); errors.Is(err, fs.ErrNotExist) && s.root.MkdirAll(rel, 0o755) == nil {
				fp.hit()
			}
		}
	}
}

// applyStep puts one path in its wanted state. It is idempotent: a
// recovery runs it again over a folder a killed process left part-way.
// fresh says r.Img is what the path holds now (the operation looked
// under the lock a moment ago); a recovery looks again.
//
// A file is rewritten in place rather than through a new file renamed
// over it: the operation's log, not the rename, is what makes a rewind
// all-or-nothing, and a new inode per file costs more than the write on a
// big rewind. A link in the way is removed first, never written through.
func (s *Store) applyStep(r record, data []byte, dirs *dirCache, fresh bool, fp *failpoint) error {
	if r.Do != ActRestore && r.Do != ActDelete {
		return nil
	}
	rel, err := s.Rel(r.Path)
	if err != nil {
		return err
	}
	var now Image
	// A folder in the way may have been removed by the phase before.
	if fresh && r.Img != nil && r.Img.Kind != ImageOther {
		now = *r.Img
	} else if now, _, err = dirs.read(rel); err != nil {
		return err
	}
	want := *r.Want
	if now.Kind == ImageOther {
		return errf("not touched: it %s now", now.Reason)
	}
	switch {
	case r.Do == ActDelete:
		if now.Kind == ImageAbsent {
			return nil
		}
		dr, name := dirs.in(rel)
		if err := dr.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errf("delete: %w", err)
		}
		fp.hit()
		return nil
	case want.Kind == ImageContent && sameBytes(now, want):
		if want.Mode != 0 && now.Mode != want.Mode {
			dr, name := dirs.in(rel)
			if err := dr.Chmod(name, fs.FileMode(want.Mode)); err != nil {
				return errf("set mode: %w", err)
			}
			fp.hit()
		}
		return nil
	case want.Kind == ImageLink && sameBytes(now, want):
		return nil
	}
	if d := path.Dir(rel); d != "." && now.Kind == ImageAbsent {
		if err := s.root.MkdirAll(d, 0o755); err != nil {
			return errf("create folder %s: %w", d, err)
		}
	}
	dr, name := dirs.in(rel)
	if now.Kind == ImageLink || (want.Kind == ImageLink && now.Kind != ImageAbsent) {
		if err := dr.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errf("restore: remove what is there: %w", err)
		}
		fp.hit()
	}
	switch want.Kind {
	case ImageLink:
		if err := dr.Symlink(want.Link, name); err != nil {
			return errf("restore link: %w", err)
		}
	case ImageContent:
		perm := fs.FileMode(want.Mode)
		if perm == 0 {
			perm = 0o644
			if now.Kind == ImageContent && now.Mode != 0 {
				perm = fs.FileMode(now.Mode)
			}
		}
		if data == nil && want.Size > inMemMax {
			if err := s.restoreStream(dr, name, want, perm); err != nil {
				return errf("not restored: %w", err)
			}
			break
		}
		if data == nil {
			if data, err = s.readBlob(want.SHA256, want.Size); err != nil {
				return errf("not restored: %w", err)
			}
		}
		done, err := writeInPlace(dr, name, data, perm)
		if err != nil {
			return errf("restore: %w", err)
		}
		if !done {
			if err := writeReplace(dr, name, data, perm); err != nil {
				return errf("restore: %w", err)
			}
		}
	default:
		return errf("not restored: nothing kept for kind %q", want.Kind)
	}
	fp.hit()
	return nil
}

// writeInPlace rewrites an existing file's bytes without making a new
// file: only a regular file with no other hard link (writing through one
// would change a file elsewhere, maybe outside the root) that opens for
// writing as the very file looked at. It reports false, having written
// nothing, when the file does not qualify. It writes over the old bytes
// and then cuts the file to length, rather than truncating it to zero
// first: ext4 flushes a file truncated to zero when it is closed.
func writeInPlace(r *os.Root, name string, data []byte, perm fs.FileMode) (bool, error) {
	fi, err := r.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || links(fi) != 1 {
		return false, nil
	}
	f, err := r.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return false, nil // read-only, say: a new file renamed over it will do
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil || !os.SameFile(fi, ofi) || links(ofi) != 1 {
		return false, nil
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return true, err
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return true, err
	}
	if err := f.Chmod(perm); err != nil {
		return true, err
	}
	return true, f.Close()
}

func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}

// writeReplace writes a new file beside name and renames it over name,
// which replaces a link or a read-only file without writing through it.
// The temporary name is fixed per path, so a recovery removes a leftover.
func writeReplace(r *os.Root, name string, data []byte, perm fs.FileMode) error {
	h := sha256.Sum256([]byte(name))
	tmp := path.Join(path.Dir(name), ".ckpt-tmp-"+hex.EncodeToString(h[:8]))
	r.Remove(tmp)
	return writeVia(r, tmp, name, data, perm, false, true)
}

// finish makes the folder's changes durable and logs the operation done.
func (s *Store) finish(done *record) error {
	if err := syncFS(s.root); err != nil {
		return errf("sync %s: %w", s.rootPath, err)
	}
	done.At = time.Now().UnixNano()
	if err := appendDurable(s.dir, "ops.log", appendRecord(nil, done)); err != nil {
		return errf("append to %s: %w", s.path("ops.log"), err)
	}
	return nil
}

// cutTorn cuts a torn last record off a record file before an append, so
// the new record never ends up glued to half of an old one. Caller holds
// the lock.
func (s *Store) cutTorn(name string) error {
	data, err := s.dir.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return errf("read %s: %w", s.path(name), err)
	}
	res := decodeEach(data, func(*record) {})
	if !res.torn {
		return nil
	}
	if err := truncateDurably(s.dir, name, res.good); err != nil {
		return errf("cut the torn record at the end of %s: %w", s.path(name), err)
	}
	s.LogError("cut a torn last record (%d bytes) off %s", int64(len(data))-res.good, s.path(name))
	return nil
}
