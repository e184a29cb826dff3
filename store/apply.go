package store

import (
	"errors"
	"io/fs"
	"path"
	"runtime"
	"strings"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// Apply carries out exactly the plan p under the store's lock. It makes
// the plan again there, from the store and the disk as they are now, and
// goes ahead only if that is the same plan (the same ID): otherwise it
// changes nothing and returns an error wrapping ErrPlanChanged that says
// what moved (a turn arrived, an operation ran, a file changed). A plan
// without an ID (made by hand, not by a Plan method) is made afresh.
//
// It keeps the current bytes of every path first, logs the operation, then
// changes the folder; a crash part-way is finished by the next Open.
// progress, if not nil, is called after each path. Paths that could not
// be put back are in Result.Failed with the reason, stay failed in the
// store (Store.Failures; File.Status StatusFailed) and are retried by
// planning the same command again; an operation all of whose steps failed
// changed nothing and stands for nothing (its state is StateFailed), but
// its paths are failed all the same.
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
	defer s.saveStats()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	q, err := s.replan(v, p)
	if err != nil {
		if p.ID != "" {
			return nil, errf("%w: %w", ErrPlanChanged, err)
		}
		return nil, err
	}
	if p.ID != "" && q.ID != p.ID {
		return nil, errf("%s %s: %w (nothing was changed): %s", p.Kind, p.Target, ErrPlanChanged, planChanges(p, q))
	}
	fp := newFailpoint("apply")
	var last OpID
	for _, o := range v.ops {
		last = max(last, o.n)
	}
	id := last.Next().String()
	if err := s.keepMerged(q); err != nil {
		return nil, errf("%s: %w", q.Kind, err)
	}
	recs, bytesOf, err := s.prepare(q, s.handRule(v), fp)
	if err != nil {
		return nil, errf("%s: %w", q.Kind, err)
	}
	files := filesPut(recs) // as recorded: decided again under the lock
	rmdirs := s.keptFolders(v, s.rmdirs(v, q), q, files)
	var had, mkdirs []string
	var hadModes, mkdirModes []uint32
	for _, d := range rmdirs {
		if fi, err := s.root.Lstat(d); err == nil && fi.IsDir() {
			had = append(had, d)
			hadModes = append(hadModes, uint32(fi.Mode().Perm()))
		}
	}
	if q.Kind == KindUndo && q.Retry == "" {
		// Undo gives back the folders the operation it undoes removed,
		// with their modes, but none where it puts a file back.
		via := v.undo[len(v.undo)-1].via
		mkdirs, mkdirModes = offFiles(files, via.had, via.hadModes)
	}
	var buf []byte
	for i := range recs {
		buf = record.Append(buf, &recs[i])
	}
	stepsName := "ops/" + id + ".steps"
	if err := storefs.WriteAtomic(s.dir, stepsName, buf, 0o600, false); err != nil {
		return nil, errf("%s: write %s: %w", q.Kind, s.path(stepsName), err)
	}
	fp.hit()
	// One barrier makes the kept bytes and the steps durable before the
	// operation is logged; from then on it can always be finished.
	if err := storefs.SyncFS(s.dir); err != nil {
		return nil, errf("%s: sync %s: %w", q.Kind, s.path("."), err)
	}
	if err := s.cutTorn("ops.log"); err != nil {
		return nil, errf("%s: %w", q.Kind, err)
	}
	// git's index is written under git's index.lock, taken now: if git
	// holds it, nothing is changed.
	indexWas, indexSet, commitIndex, err := s.takeIndex(id, q, fp)
	if err != nil {
		return nil, errf("%s: %w", q.Kind, err)
	}
	at := s.clock().UnixNano()
	op := record.Append(nil, &record.Line{R: "op", Turn: record.Turn{V: formatVersion, ID: id}, Op: record.Op{Kind: q.Kind, Target: q.Target, Turns: q.Turns, Retry: q.Retry, Sess: q.Session, Steps: len(recs),
		Rmdirs: rmdirs, Had: had, HadModes: hadModes, Mkdirs: mkdirs, MkdirModes: mkdirModes, IndexWas: indexWas, IndexSet: indexSet}, At: at, N: s.nextSeq(at)})
	if err := storefs.AppendDurable(s.dir, "ops.log", op); err != nil {
		_ = commitIndex(false)
		return nil, errf("%s: append to %s: %w", q.Kind, s.path("ops.log"), err)
	}
	if q.Index != nil {
		fp.hit() // logged, holding index.lock: the next Open renames it
	}
	if err := commitIndex(true); err != nil {
		s.LogError("%s %s: %v", q.Kind, id, err)
	}
	fp.hit()
	errs := s.execute(recs, bytesOf, rmdirs, mkdirs, mkdirModes, true, fp, progress)
	res, none := outcome(recs, errs)
	res.Op, res.Plan, res.Applied = id, q.ID, true
	q.revertResult(res)
	if err := s.finish(doneRecord(id, res, none, false)); err != nil {
		return res, err
	}
	fp.hit()
	return res, nil
}

// outcome says what the steps did, given each one's error from execute.
// none reports that the steps that failed were all there was: no path was
// put as wanted (left alone as asked does not count either way).
func outcome(recs []record.Line, errs []error) (res *Result, none bool) {
	good := 0
	res = &Result{Restored: []string{}, Deleted: []string{}, Kept: []string{}, Failed: []Failure{}, HandEdited: []string{}}
	for i, r := range recs {
		switch {
		case errs[i] != nil:
			res.Failed = append(res.Failed, Failure{Path: r.Path, Reason: strings.TrimPrefix(errs[i].Error(), "store: ")})
		case r.Do == ActFail:
			res.Failed = append(res.Failed, Failure{Path: r.Path, Reason: r.Why})
		case r.Do == ActRestore:
			res.Restored = append(res.Restored, r.Path)
			good++
		case r.Do == ActDelete:
			res.Deleted = append(res.Deleted, r.Path)
			good++
		case r.Do == ActKeep:
			good++
		case r.Do == ActLeave:
			res.Kept = append(res.Kept, r.Path)
		}
		if r.Hand {
			res.HandEdited = append(res.HandEdited, r.Path)
		}
	}
	return res, len(res.Failed) > 0 && good == 0
}

// doneRecord logs how an operation ended (see outcome for none).
func doneRecord(id string, res *Result, none, recovered bool) *record.Line {
	d := &record.Line{R: "done", Turn: record.Turn{ID: id}, Done: record.Done{Recovered: recovered, Fails: res.Failed, None: none}}
	for _, f := range res.Failed {
		d.Failed = append(d.Failed, f.Path)
	}
	return d
}

// prepare turns a plan into step records, keeping first the current bytes
// of every path it will touch (at any size: a rewind must never lose a
// byte) and checking the bytes it will write against their hashes. A
// path whose kept bytes are damaged becomes a failed step.
//
// Every path is read here, under the lock, including those the plan would
// leave alone: the plan looked through the stat cache, and a cache that
// vouched for bytes a file no longer holds (racy, or tampered with) may
// cost a read, never a skipped restore. Such a step is decided again from
// what the file holds, toward the same want, and the cache entry dropped.
func (s *Store) prepare(p *Plan, hand func(string, Image) bool, fp *failpoint) ([]record.Line, map[string][]byte, error) {
	bytesOf := map[string][]byte{}
	var recs []record.Line
	var budget int64 = 256 << 20
	dirs := newDirCache(s.root)
	defer dirs.close()
	var nowPaths []string
	for _, st := range p.Steps {
		if st.Do == ActRestore || st.Do == ActDelete || st.Do == ActKeep {
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
		img, read := nowOf[st.Path]
		if read {
			now = img
		}
		want := st.Want
		r := record.Line{R: "step", File: record.File{Path: st.Path, Img: &now, Want: &want, Do: st.Do, Why: st.Reason, Hand: st.HandEdited}}
		// Only a path read here is decided again: a failed step (a
		// refused path among them) keeps the plan's reason.
		if read && now.Kind != ImageOther && st.Now.Kind != ImageOther && (!sameBytes(now, st.Now) || now.Mode != st.Now.Mode) {
			r.Do, r.Why = s.decide(now, want)
			r.Hand = hand(st.Path, now)
			s.loadStats()
			delete(s.stats.entries, st.Path)
			s.stats.dirty = true
		}
		if img, ok := p.asIf[st.Path]; ok && (sameBytes(now, want) || now.Kind == ImageAbsent) {
			r.Back = &img
		}
		// A blob too big to hold is checked as it streams into place.
		if r.Do == ActRestore && want.Kind == ImageContent && !sameBytes(now, want) && want.Size <= inMemMax {
			data, err := s.readBlobOf(want)
			if err != nil {
				r.Do, r.Why = ActFail, "not restored: "+err.Error()
			} else if int64(len(data)) <= budget {
				budget -= int64(len(data))
				bytesOf[st.Path] = data
			}
		}
		if r.Do == ActRestore {
			r.Dirs = s.missingDirsIn(st.Path, dirs)
			if want.Kind == ImageDir && now.Kind != ImageDir {
				// The folder itself is the operation's: its undo removes
				// it (once emptied) to put back what stood there.
				r.Dirs = append(r.Dirs, st.Path)
			}
		}
		recs = append(recs, r)
	}
	return recs, bytesOf, nil
}

// execute changes the folder as the steps say, in an order that lets a
// file replace a folder and a folder replace a file: deletions, then the
// folders left empty, then folders restored where a file or link stood,
// then the folders an undo gives back (before the files in them, so each
// folder gets its own mode), then restores.
// Within a phase paths are independent, so they run on several
// goroutines (small-file writes wait on the disk more than the CPU).
// Progress is reported from the calling goroutine.
func (s *Store) execute(recs []record.Line, bytesOf map[string][]byte, rmdirs, mkdirs []string, mkdirModes []uint32, fresh bool, fp *failpoint, progress func(done, total int)) []error {
	errs := make([]error, len(recs))
	n := 0
	phase := func(do func(record.Line) bool) {
		var idx []int
		for i, r := range recs {
			if do(r) {
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
	phase(func(r record.Line) bool { return r.Do == ActDelete })
	// An operation that can put no path as wanted changes nothing, not
	// even the folders its turns made, nor (an undo whose every path was
	// purged) those the operation it undoes removed.
	hope := false
	for i, r := range recs {
		hope = hope || r.Do == ActKeep || r.Do == ActRestore || r.Do == ActDelete && errs[i] == nil
	}
	if hope {
		s.removeDirs(rmdirs, fp)
	}
	// Folders a command turned into files or links come back next, one at
	// a time and parents first (recs are sorted by path), so the files in
	// them are written into a real folder, never through what stood there.
	dirs := newDirCache(s.root)
	for i, r := range recs {
		if r.Do == ActRestore && r.Want != nil && r.Want.Kind == ImageDir {
			errs[i] = guarded(func() error { return s.applyStep(r, nil, dirs, fresh, fp) })
			n++
			if progress != nil {
				progress(n, len(recs))
			}
		}
	}
	dirs.close()
	// The folders an undo gives back, once those a command turned into
	// files or links are folders again (one may stand in their way).
	if hope {
		s.makeDirs(mkdirs, mkdirModes, fp)
	}
	phase(func(r record.Line) bool {
		return r.Do != ActDelete && (r.Do != ActRestore || r.Want == nil || r.Want.Kind != ImageDir)
	})
	return errs
}

func (s *Store) removeDirs(dirs []string, fp *failpoint) {
	for _, d := range dirs {
		if rel, err := s.Rel(d); err == nil {
			// Only a real folder (a link standing there was never kept),
			// and Remove refuses one that is not empty, which is the point.
			if fi, err := s.root.Lstat(rel); err == nil && fi.IsDir() && s.wayIsFolders(d) && s.root.Remove(rel) == nil {
				fp.hit()
			}
		}
	}
}

// makeDirs gives back folders an operation removed. dirs come deepest
// first (as rmdirs lists them), so they are made in reverse: a parent
// before its children, each with its own mode. modes runs parallel to
// dirs; a store written before folder modes were kept has none, and the
// folders come back 0755.
func (s *Store) makeDirs(dirs []string, modes []uint32, fp *failpoint) {
	for i := len(dirs) - 1; i >= 0; i-- {
		rel, err := s.Rel(dirs[i])
		if err != nil {
			continue
		}
		mode := fs.FileMode(0o755)
		if len(modes) == len(dirs) && modes[i]&0o700 != 0 {
			mode = permOnly(modes[i])
		}
		if _, err := s.root.Lstat(rel); errors.Is(err, fs.ErrNotExist) && s.wayIsFolders(dirs[i]) && s.root.MkdirAll(rel, mode) == nil {
			// The umask must not change a kept mode.
			_ = s.root.Chmod(rel, mode)
			fp.hit()
		}
	}
}

// permOnly keeps a recorded mode's permission bits: a record (which anyone
// who can write the store can forge) never makes a setuid, setgid or
// sticky file.
func permOnly(mode uint32) fs.FileMode { return fs.FileMode(mode) & fs.ModePerm }

// applyStep puts one path in its wanted state. It is idempotent: a
// recovery runs it again over a folder a killed process left part-way.
// fresh says r.Img is what the path holds now (the operation looked
// under the lock a moment ago); a recovery looks again.
//
// No write cut short leaves a torn file to be kept as a state to return
// to: a file is rewritten in place only once its bytes are sure to fit
// (a full disk fails before a byte is written), and put back whole if the
// write fails anyway (an I/O error); otherwise it is written beside its
// path and renamed over it, which leaves the old bytes whole. A hard link
// or a link in the way is replaced, never written through.
func (s *Store) applyStep(r record.Line, data []byte, dirs *dirCache, fresh bool, fp *failpoint) error {
	if r.Do != ActRestore && r.Do != ActDelete {
		return nil
	}
	if s.restoreFault != nil {
		if err := s.restoreFault(r.Path); err != nil {
			return errf("not restored: %w", err)
		}
	}
	rel, err := dirs.rel(s, r.Path)
	if err != nil {
		return err
	}
	// Looked at as the record names it: rel has the link followed.
	if r.Do == ActRestore && !path.IsAbs(r.Path) && dirs.behindLink(path.Clean(r.Path)) {
		return errf("not restored: a symbolic link stands where one of its folders was")
	}
	now, err := s.stepFinds(r, rel, dirs, fresh)
	if err != nil {
		return err
	}
	if done, err := s.stepSettled(r, rel, now, dirs, fp); done {
		return err
	}
	return s.writeStep(rel, now, *r.Want, data, dirs, fp)
}

// stepFinds is what the path of step r holds now, or why the step must
// not touch it: something that is no file there, or, in a recovery, bytes
// that are neither what the step found nor what it writes.
func (s *Store) stepFinds(r record.Line, rel string, dirs *dirCache, fresh bool) (Image, error) {
	var now Image
	var nowData []byte
	var err error
	// A folder in the way may have been removed by the phase before.
	if fresh && r.Img != nil && !notFile(*r.Img) {
		now = *r.Img
	} else if now, nowData, err = dirs.read(rel); err != nil {
		return now, err
	}
	want := *r.Want
	if now.Kind == ImageOther || now.Kind == ImageDir && want.Kind != ImageDir {
		return now, errf("not touched: it %s now", otherReason(now))
	}
	if !fresh {
		// A recovery finds the folder as the kill left it, and perhaps
		// edited since: a path holding neither what the step found nor
		// what it writes holds bytes no record has, and is left alone.
		dr, name := dirs.in(rel)
		dr.Remove(storefs.ReplaceTmp(name)) // a write the kill cut short
		if !reached(r.Do, now, want) && !holdsBefore(now, r.Img) && !removedFirst(now, r.Img, want) && !s.cutShort(now, nowData, r.Img, want) {
			return now, errf("left as it is: it changed after the interrupted operation began")
		}
	}
	return now, nil
}

// stepSettled does what step r needs that writes no file's bytes: a
// folder, a delete, a mode, or nothing when the path holds what it wants.
// done is false when the bytes are still to be written.
func (s *Store) stepSettled(r record.Line, rel string, now Image, dirs *dirCache, fp *failpoint) (done bool, err error) {
	want := *r.Want
	switch {
	case want.Kind == ImageDir:
		return true, s.restoreDir(rel, now, want, dirs, fp)
	case r.Do == ActDelete:
		if now.Kind == ImageAbsent {
			return true, nil
		}
		dr, name := dirs.in(rel)
		if err := dr.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return true, errf("delete: %w", err)
		}
		fp.hit()
		return true, nil
	case want.Kind == ImageContent && sameBytes(now, want):
		if want.Mode != 0 && now.Mode != want.Mode {
			dr, name := dirs.in(rel)
			if fi, err := dr.Lstat(name); err == nil && links(fi) > 1 {
				// A hard link (perhaps to a file outside the root): a
				// chmod would change every name of it. The bytes go into
				// a file of their own, with the mode, renamed over it.
				return false, nil
			}
			if err := dr.Chmod(name, permOnly(want.Mode)); err != nil {
				return true, errf("set mode: %w", err)
			}
			fp.hit()
			return true, nil
		}
		return true, nil
	case want.Kind == ImageLink && sameBytes(now, want):
		return true, nil
	}
	return false, nil
}

// writeStep writes want's bytes (data, when read already) or link at rel,
// which holds now: in place when they are sure to fit, else beside it and
// renamed over.
func (s *Store) writeStep(rel string, now, want Image, data []byte, dirs *dirCache, fp *failpoint) error {

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
		perm := permOnly(want.Mode)
		if perm == 0 {
			perm = 0o644
			if now.Kind == ImageContent && now.Mode != 0 {
				perm = permOnly(now.Mode)
			}
		}
		if data == nil && want.Size > inMemMax {
			if err := s.restoreStream(dr, name, want, perm); err != nil {
				return errf("not restored: %w", tmpErr(err))
			}
			break
		}
		if data == nil {
			var err error
			if data, err = s.readBlobOf(want); err != nil {
				return errf("not restored: %w", err)
			}
		}
		done, err := writeInPlace(dr, name, data, perm, fp)
		if done && err != nil {
			// Cut short (an I/O error): put back whole what was there, so
			// no torn file stays to be kept as a state.
			s.putBack(dr, name, now)
			return errf("not restored: %w", err)
		}
		if !done {
			if err := writeReplace(dr, name, data, perm); err != nil {
				return errf("not restored: %w", tmpErr(err))
			}
		}
	default:
		return errf("not restored: nothing kept for kind %q", want.Kind)
	}
	fp.hit()
	return nil
}

// reached reports whether now is already what a step doing do wants.
func reached(do Action, now, want Image) bool {
	if do == ActDelete {
		return now.Kind == ImageAbsent
	}
	return sameBytes(now, want)
}

// finish makes the folder's changes durable and logs the operation done.
func (s *Store) finish(done *record.Line) error {
	var err error
	if s.rootFd != nil {
		err = storefs.SyncOpen(s.rootFd) // opened before the folder was changed: see storefs.SyncFS
	} else {
		err = storefs.SyncFS(s.root)
	}
	if err != nil {
		return errf("sync %s: %w", s.rootPath, err)
	}
	done.At = time.Now().UnixNano()
	if err := storefs.AppendDurable(s.dir, "ops.log", record.Append(nil, done)); err != nil {
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
	res := record.Each(data, func(*record.Line) {})
	if !res.Torn {
		return nil
	}
	if err := storefs.TruncateDurably(s.dir, name, res.Good); err != nil {
		return errf("cut the torn record at the end of %s: %w", s.path(name), err)
	}
	s.LogError("cut a torn last record (%d bytes) off %s", int64(len(data))-res.Good, s.path(name))
	return nil
}

// removedFirst reports whether now is the state a step leaves half-way
// when it removes what stands at the path before making what it wants
// there (a folder where a file or link was, a link where anything was):
// the path is empty, and what stood there is kept, so the step goes on.
func removedFirst(now Image, before *Image, want Image) bool {
	return now.Kind == ImageAbsent && before != nil && before.Kind != ImageAbsent &&
		(want.Kind == ImageDir || want.Kind == ImageLink || before.Kind == ImageLink)
}
