package store

import (
	"errors"
	"io/fs"
	"runtime"
	"slices"
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
	// Until the operation is logged, a return gives the folders opened
	// to keep what is in them their modes back.
	recs, bytesOf, opened, err := s.prepareOpen(id, q, s.handRule(v), fp)
	if err != nil {
		return nil, errf("%s: %w", q.Kind, err)
	}
	logged := false
	defer func() { s.leaveShut(opened, logged) }()
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
	except := q.revertKept()
	op := record.Append(nil, &record.Line{R: "op", Turn: record.Turn{V: formatVersion, ID: id}, Op: record.Op{Kind: q.Kind, Target: q.Target, Turns: q.Turns, Retry: q.Retry, Sess: q.Session, Except: except, Steps: len(recs),
		Rmdirs: rmdirs, Had: had, HadModes: hadModes, Mkdirs: mkdirs, MkdirModes: mkdirModes, IndexWas: indexWas, IndexSet: indexSet}, At: at, N: s.nextSeq(at, "")})
	if err := storefs.AppendDurable(s.dir, "ops.log", op); err != nil {
		_ = commitIndex(false)
		return nil, errf("%s: append to %s: %w", q.Kind, s.path("ops.log"), err)
	}
	logged = true
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
	dirs := newDirCache(s)
	defer dirs.close()
	var nowPaths []string
	behind := map[string]bool{}
	for _, st := range p.Steps {
		switch {
		case opens(st):
			// Opened already (openShut): its Now is its mode before.
		case st.Do == ActRestore || st.Do == ActDelete || st.Do == ActKeep:
			nowPaths = append(nowPaths, st.Path)
			behind[st.Path] = st.Now.Kind == ImageOther // see planBehindShut
		}
	}
	nows, err := s.lookEach(nowPaths, true, fp)
	if err != nil {
		return nil, nil, err
	}
	nowOf, unread := map[string]Image{}, map[string]string{}
	for _, c := range nows {
		switch {
		case c.err == nil:
			nowOf[c.rel] = c.img
		case behind[c.rel]:
			unread[c.rel] = "not touched: it " + reasonOf(c.err) + " now"
		default:
			return nil, nil, c.err
		}
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
		if why, ok := unread[st.Path]; ok {
			r.Do, r.Why = ActFail, why
		}
		if read && now.Kind != ImageOther && (st.Now.Kind != ImageOther || behind[st.Path]) && (!sameBytes(now, st.Now) || now.Mode != st.Now.Mode) {
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
// folder gets its own mode), then restores, and last the modes of the
// folders that shut their owner out (lockDirs). Folders of the steps that
// shut their owner out of what the steps change in them are opened first
// (openSteps) and given their modes back at the end (closeSteps).
// Within a phase paths are independent, so they run on several
// goroutines (small-file writes wait on the disk more than the CPU).
// Progress is reported from the calling goroutine.
func (s *Store) execute(recs []record.Line, bytesOf map[string][]byte, rmdirs, mkdirs []string, mkdirModes []uint32, fresh bool, fp *failpoint, progress func(done, total int)) []error {
	errs := make([]error, len(recs))
	n := 0
	opened := s.openSteps(recs, fp)
	phase := func(do func(record.Line) bool) {
		var idx []int
		for i, r := range recs {
			if do(r) {
				idx = append(idx, i)
			}
		}
		// Folders are opened once per phase: one removed between phases
		// must not be written through a stale handle.
		dirs := newDirCache(s)
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
	dirs := newDirCache(s)
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
	// Last, the folders whose mode shuts their owner out get it, now
	// that nothing more is written in them.
	s.closeSteps(recs, opened)
	s.lockDirs(recs, errs, fp)
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
// before its children, each with its own mode (000 too: hadm holds the
// permission bits as they were). modes runs parallel to dirs; a store
// written before folder modes were kept has none, and the folders come
// back 0755. A mode that shuts the owner out is set once the folders
// under it are made, deepest first.
func (s *Store) makeDirs(dirs []string, modes []uint32, fp *failpoint) {
	var locked []int
	for i := len(dirs) - 1; i >= 0; i-- {
		rel, err := s.Rel(dirs[i])
		if err != nil {
			continue
		}
		mode := fs.FileMode(dirMode)
		if len(modes) == len(dirs) {
			mode = permOnly(modes[i])
		}
		if _, err := s.root.Lstat(rel); errors.Is(err, fs.ErrNotExist) && s.wayIsFolders(dirs[i]) && s.root.MkdirAll(rel, mode|0o700) == nil {
			// The umask must not change a kept mode.
			_ = s.root.Chmod(rel, mode|0o700)
			if mode&0o700 != 0o700 {
				locked = append(locked, i)
			}
			fp.hit()
		}
	}
	for _, i := range slices.Backward(locked) {
		if rel, err := s.Rel(dirs[i]); err == nil && s.wayIsFolders(dirs[i]) {
			_ = s.root.Chmod(rel, permOnly(modes[i]))
		}
	}
}

// permOnly keeps a recorded mode's permission bits: a record (which anyone
// who can write the store can forge) never makes a setuid, setgid or
// sticky file.
func permOnly(mode uint32) fs.FileMode { return fs.FileMode(mode) & fs.ModePerm }

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
