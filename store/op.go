package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// inFlightWindow is how recent an unsealed capture must be for a plan to
// warn that the agent may be writing right now.
const inFlightWindow = 2 * time.Minute

// PlanRewind plans putting the folder back as it was before turn: the turn
// and every later active turn are undone, each path getting its oldest
// pre-image among them.
func (s *Store) PlanRewind(turn string) (*Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	return s.planRewind(v, turn)
}

// PlanUndo plans undoing the newest rewind not yet undone. It fails with
// ErrNewerTurn, naming the turn, when a newer active turn wrote one of its
// paths, unless force.
func (s *Store) PlanUndo(force bool) (*Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	return s.planUndo(v, force)
}

// PlanRedo plans re-applying the most recently undone rewind, with the
// same refusal as PlanUndo.
func (s *Store) PlanRedo(force bool) (*Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	return s.planRedo(v, force)
}

// wanted is one path's goal while a plan is built.
type wanted struct {
	path    string
	img     Image
	refused string
	dirs    []string
}

func (s *Store) planRewind(v *view, id string) (*Plan, error) {
	t := v.byID[id]
	if t == nil {
		return nil, errf("rewind %q: %w", id, ErrUnknownTurn)
	}
	if v.rewound[id] {
		by := ""
		for i := len(v.undo) - 1; i >= 0; i-- {
			if contains(v.undo[i].rewind.turns, id) {
				by = fmt.Sprintf(" by %s; `ckpt undo` brings it back", v.undo[i].rewind.id)
				break
			}
		}
		return nil, errf("turn %s is already rewound%s: %w", id, by, ErrRewound)
	}
	p := &Plan{Kind: KindRewind, Target: id}
	var goals []wanted
	seen := map[string]bool{}
	start := 0
	for i, tt := range v.turns {
		if tt == t {
			start = i
		}
	}
	for _, tt := range v.turns[start:] {
		if tt != t && v.rewound[tt.id] {
			continue
		}
		p.Turns = append(p.Turns, tt.id)
		for _, f := range tt.files {
			if f.refused != "" {
				goals = append(goals, wanted{path: f.path, refused: f.refused})
				continue
			}
			if seen[f.path] {
				continue
			}
			seen[f.path] = true
			goals = append(goals, wanted{path: f.path, img: f.pre, dirs: f.dirs})
		}
	}
	p.Steps = s.stepsFor(v, goals, set(s.rmdirs(v, p)))
	p.Warnings = s.warnings(v, t)
	return p, nil
}

// stepsFor turns goals into steps against the disk now.
// Folders in gone are to be removed by the operation (if left empty), so
// a folder standing where a file is wanted does not fail the step.
func (s *Store) stepsFor(v *view, goals []wanted, gone map[string]bool) []Step {
	exp := s.expected(v)
	// The stat cache spares hashing files that did not change; Apply
	// reads every file it touches anyway, under the lock, before it acts.
	dirs := newDirCache(s.root)
	defer dirs.close()
	defer s.saveStats()
	var steps []Step
	for _, g := range goals {
		st := Step{Path: g.path, Want: g.img}
		if g.refused != "" {
			st.Do, st.Reason = ActFail, g.refused
			steps = append(steps, st)
			continue
		}
		now := s.diskState(g.path, dirs)
		st.Now = now
		if e, ok := exp[g.path]; ok && !sameBytes(now, e.img) {
			st.HandEdited = true
		}
		if now.Kind == ImageOther && gone[g.path] {
			now = Image{Kind: ImageAbsent}
		}
		st.Do, st.Reason = s.decide(now, g.img)
		steps = append(steps, st)
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Path < steps[j].Path })
	return steps
}

// decide says what to do to turn now into want.
func (s *Store) decide(now, want Image) (Action, string) {
	if now.Kind == ImageOther {
		return ActFail, "not touched: it " + now.Reason + " now"
	}
	switch want.Kind {
	case ImageSkipped:
		return ActFail, "not restored: its bytes were not kept (" + want.Reason + ")"
	case ImageAbsent:
		if now.Kind == ImageAbsent {
			return ActKeep, ""
		}
		return ActDelete, ""
	case ImageLink:
		if sameBytes(now, want) {
			return ActKeep, ""
		}
		return ActRestore, ""
	case ImageContent:
		if !isHex64(want.SHA256) {
			return ActFail, fmt.Sprintf("not restored: blob name %q is not 64 hex digits", want.SHA256)
		}
		if sameBytes(now, want) {
			if want.Mode != 0 && now.Mode != want.Mode {
				return ActRestore, ""
			}
			return ActKeep, ""
		}
		if !s.hasBlob(want.SHA256) {
			return ActFail, "not restored: its kept bytes (blob " + want.SHA256[:12] + ") are missing from the store"
		}
		return ActRestore, ""
	}
	return ActFail, fmt.Sprintf("not restored: unknown kind %q", want.Kind)
}

func (s *Store) warnings(v *view, t *turn) []string {
	var w []string
	if t.head != "" {
		if now := gitHead(s.root); now != "" && now != t.head {
			w = append(w, fmt.Sprintf("git HEAD moved since turn %s (%s → %s)", t.id, short(t.head), short(now)))
		}
	}
	cut := time.Now().Add(-inFlightWindow).UnixNano()
	for _, tt := range v.turns {
		if v.rewound[tt.id] {
			continue
		}
		for _, f := range tt.files {
			if f.post == nil && f.preAt > cut && f.refused == "" {
				w = append(w, fmt.Sprintf("turn %s captured %s but has not sealed it: the agent may be writing right now", tt.id, f.path))
				return w
			}
		}
	}
	return w
}

func short(sha string) string {
	if len(sha) > 8 {
		return sha[:8]
	}
	return sha
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (s *Store) planUndo(v *view, force bool) (*Plan, error) {
	if len(v.undo) == 0 {
		return nil, ErrNothingToUndo
	}
	a := v.undo[len(v.undo)-1]
	recs, err := s.steps(a.via.id)
	if err != nil {
		return nil, errf("undo %s: %w", a.rewind.id, err)
	}
	var goals []wanted
	for _, r := range recs {
		if r.Img == nil || r.Do == ActFail {
			continue
		}
		goals = append(goals, wanted{path: r.Path, img: *r.Img})
	}
	if err := newerTurn(v, a.via, goals, force, "undo"); err != nil {
		return nil, err
	}
	p := &Plan{Kind: KindUndo, Target: a.rewind.id, Turns: a.rewind.turns, Force: force}
	p.Steps = s.stepsFor(v, goals, set(s.rmdirs(v, p)))
	return p, nil
}

func (s *Store) planRedo(v *view, force bool) (*Plan, error) {
	if len(v.redo) == 0 {
		return nil, ErrNothingToRedo
	}
	a := v.redo[len(v.redo)-1]
	recs, err := s.steps(a.rewind.id)
	if err != nil {
		return nil, errf("redo %s: %w", a.rewind.id, err)
	}
	var goals []wanted
	for _, r := range recs {
		if r.Want == nil || r.Do == ActFail {
			continue
		}
		goals = append(goals, wanted{path: r.Path, img: *r.Want})
	}
	if err := newerTurn(v, a.via, goals, force, "redo"); err != nil {
		return nil, err
	}
	p := &Plan{Kind: KindRedo, Target: a.rewind.id, Turns: a.rewind.turns, Force: force}
	p.Steps = s.stepsFor(v, goals, set(s.rmdirs(v, p)))
	return p, nil
}

// newerTurn refuses an undo or redo that would overwrite what an active
// turn newer than op wrote.
func newerTurn(v *view, op *opRec, goals []wanted, force bool, what string) error {
	if force {
		return nil
	}
	for _, t := range v.turns {
		if v.rewound[t.id] {
			continue
		}
		// By when each path was written, not when the turn began: a turn
		// older than the operation may still have written after it.
		for _, g := range goals {
			if f, ok := t.byPath[g.path]; ok && (t.at > op.at || f.preAt > op.at || f.postAt > op.at) {
				return errf("%s %s: turn %s wrote %s after it (--force to %s anyway): %w", what, op.id, t.id, g.path, what, ErrNewerTurn)
			}
		}
	}
	return nil
}

// Result is what the plan would do, for a dry run or a declined prompt.
func (p *Plan) Result() *Result {
	r := &Result{Restored: []string{}, Deleted: []string{}, Failed: []Failure{}, HandEdited: []string{}}
	for _, st := range p.Steps {
		switch st.Do {
		case ActRestore:
			r.Restored = append(r.Restored, st.Path)
		case ActDelete:
			r.Deleted = append(r.Deleted, st.Path)
		case ActFail:
			r.Failed = append(r.Failed, Failure{Path: st.Path, Reason: st.Reason})
		}
		if st.HandEdited {
			r.HandEdited = append(r.HandEdited, st.Path)
		}
	}
	return r
}

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
	n := 0
	for _, o := range v.ops {
		n = max(n, o.n)
	}
	id := "op-" + strconv.Itoa(n+1)
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
	at := time.Now().UnixNano()
	op := appendRecord(nil, &record{R: "op", V: formatVersion, ID: id, Kind: q.Kind, Target: q.Target, Turns: q.Turns, Steps: len(recs), Rmdirs: rmdirs, Had: had, Mkdirs: mkdirs, At: at})
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

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, x := range list {
		m[x] = true
	}
	return m
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

// rmdirs lists the folders to remove, if left empty, after p: those the
// rewound turns created, or those the operation being undone created.
func (s *Store) rmdirs(v *view, p *Plan) []string {
	set := map[string]bool{}
	switch p.Kind {
	case KindRewind:
		for _, id := range p.Turns {
			for _, f := range v.byID[id].files {
				for _, d := range f.dirs {
					set[d] = true
				}
			}
		}
	case KindUndo:
		if len(v.undo) > 0 {
			if recs, err := s.steps(v.undo[len(v.undo)-1].via.id); err == nil {
				for _, r := range recs {
					for _, d := range r.Dirs {
						set[d] = true
					}
				}
			}
		}
	case KindRedo:
		if len(v.redo) > 0 {
			set2 := v.redo[len(v.redo)-1].rewind.rmdirs
			for _, d := range set2 {
				set[d] = true
			}
		}
	}
	var out []string
	for d := range set {
		out = append(out, d)
	}
	// Deepest first, so a parent is tried after its children.
	sort.Slice(out, func(i, j int) bool {
		di, dj := strings.Count(out[i], "/"), strings.Count(out[j], "/")
		if di != dj {
			return di > dj
		}
		return out[i] > out[j]
	})
	return out
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

// recover finishes an operation that a killed process left logged but not
// done. The steps and every byte they need were made durable before the
// operation was logged, so it can always be carried forward; the folder
// ends wholly as after the operation.
func (s *Store) recover() error {
	ops, err := s.readOps()
	if err != nil || allDone(ops) {
		return err
	}
	// Another process may be applying it right now: the locks wait for it
	// (and, as for any operation, for captures in flight).
	unlock, err := s.lockAll()
	if err != nil {
		return err
	}
	defer unlock()
	return s.recoverLocked()
}

func allDone(ops []*opRec) bool {
	for _, o := range ops {
		if !o.done {
			return false
		}
	}
	return true
}

// recoverLocked finishes every operation logged but not done. One with a
// finished operation after it was overtaken (a store that never recovered
// it): carrying it forward now would write over newer work, so it is
// marked abandoned, and the one after it stands. Caller holds both locks.
func (s *Store) recoverLocked() error {
	s.mu.Lock()
	ops, err := s.readOps()
	s.mu.Unlock()
	if err != nil || allDone(ops) {
		return err
	}
	if err := s.cutTorn("ops.log"); err != nil {
		return err
	}
	for i, o := range ops {
		if o.done {
			continue
		}
		later := false
		for _, x := range ops[i+1:] {
			later = later || x.done
		}
		s.mu.Lock()
		recs, err := s.steps(o.id)
		s.mu.Unlock()
		if later || err != nil {
			why := "a later operation overtook it"
			if err != nil {
				why = "its steps cannot be read: " + err.Error()
			}
			if err := s.finish(&record{R: "done", ID: o.id, Recovered: true, Abandoned: true}); err != nil {
				return errf("mark interrupted %s %s abandoned: %w", o.kind, o.id, err)
			}
			msg := fmt.Sprintf("%s %s was interrupted and is abandoned (%s); the paths it had already changed stay as they are", o.kind, o.id, why)
			s.LogError("%s", msg)
			if s.notify != nil {
				s.notify(msg)
			}
			continue
		}
		var failed, paths []string
		for i, err := range s.execute(recs, nil, o.rmdirs, o.mkdirs, false, &failpoint{}, nil) {
			if err != nil {
				failed = append(failed, recs[i].Path+": "+err.Error())
				paths = append(paths, recs[i].Path)
			}
		}
		if err := s.finish(&record{R: "done", ID: o.id, Recovered: true, Failed: paths}); err != nil {
			return errf("finish interrupted %s %s: %w", o.kind, o.id, err)
		}
		msg := fmt.Sprintf("finished %s %s, which was interrupted: the folder is now as after it", o.kind, o.id)
		if len(failed) > 0 {
			msg += fmt.Sprintf(" (%d paths could not be restored: %s)", len(failed), strings.Join(failed, "; "))
		}
		s.LogError("%s", msg)
		if s.notify != nil {
			s.notify(msg)
		}
	}
	return nil
}
