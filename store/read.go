package store

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// expectation is what the agent last left at a path.
type expectation struct {
	img Image
	seq int64 // record.order of the seal, or of the capture when writing
	// writing: an active turn captured the path after its newest seal and
	// has not sealed it yet. The path is being written, and nothing is
	// expected of it until the seal.
	writing bool
	// purged: nothing is expected because the newest seal's bytes were
	// purged, not because the agent is writing.
	purged bool
}

// changedSince reports whether disk differs from what the agent left:
// the path was changed outside ckpt.
func (e expectation) changedSince(disk Image) bool {
	return !e.writing && !sameBytes(disk, e.img)
}

// expected maps each path to its expected bytes: the post image of the
// newest active turn that sealed it (CONTRACT.md, "Changed outside
// ckpt"). Operations never change them, so a hand edit a rewind kept and
// its undo brought back is still a hand edit. Caller holds s.mu.
func (s *Store) expected(v *view) map[string]expectation {
	for {
		if exp, ok := s.expectedAll(v, nil); ok {
			return exp
		}
	}
}

// expectedAll is expected, reading each turn's paths once: each, when
// not nil, is also given every usable path of every turn (rewound ones
// too), turn by turn, with the turn's index in v.turns and the path's
// number k (0 for the first path met, 1 for the next new one, and so
// on: a caller can keep what it learns of each path in a slice). ok is
// false when a turn's summarized paths turned out damaged on the way:
// that turn now has them from its records, and the caller starts over.
//
// Paths are numbered as they are met, and what is known of each kept by
// number: a store of 20,000 turns has 100,000 paths in them, and a map
// of the few distinct ones is looked up once a path, not once for each
// question asked of it.
func (s *Store) expectedAll(v *view, each func(i int, p string, k int)) (_ map[string]expectation, ok bool) {
	nums := map[string]int{}
	var paths []string
	// What the turns say of each path, by number.
	type known struct {
		seal     expectation // the newest seal's, when sealed
		sealed   bool
		captured int64 // the newest capture's seq (0 before one)
		capture  bool
	}
	var of []known
	for i, t := range v.turns {
		rewound := v.rewound[t.id]
		if rewound && each == nil {
			continue
		}
		ok := t.scanOnce(func(f *tfile) {
			if f.refused != "" {
				return
			}
			k, seen := nums[f.path]
			if !seen {
				k = len(paths)
				nums[f.path] = k
				paths, of = append(paths, f.path), append(of, known{})
			}
			if each != nil {
				each(i, f.path, k)
			}
			switch e := &of[k]; {
			case rewound:
			case f.post != nil:
				if !e.sealed || f.postSeq >= e.seal.seq {
					// What a purged seal left is not known: nothing is
					// expected of the path (writing), as for an unsealed one.
					e.seal, e.sealed = expectation{img: *f.post, seq: f.postSeq, writing: f.post.Purged(), purged: f.post.Purged()}, true
				}
			case t.seed:
				// A seed store records no seals: its captures are not
				// being written.
			case f.preSeq >= e.captured:
				e.captured, e.capture = f.preSeq, true
			}
		})
		if !ok {
			return nil, false
		}
	}
	exp := make(map[string]expectation, len(paths))
	for k, e := range of {
		if e.sealed {
			exp[paths[k]] = e.seal
		}
	}
	s.revertExpected(v, exp)
	// A capture after the newest seal, or with no seal at all, is being
	// written: the agent has not said it is done with the path.
	for k, e := range of {
		if !e.capture {
			continue
		}
		if x, ok := exp[paths[k]]; !ok || e.captured > x.seq {
			exp[paths[k]] = expectation{seq: e.captured, writing: true}
		}
	}
	return exp, true
}

// beingWritten reports whether an active turn has captured p and not
// sealed it since p's newest seal.
func (r *statusRun) beingWritten(p string) bool {
	e := r.exp[p]
	return e.writing && !e.purged
}

// failures maps each path still failed to its newest failure. A failure
// is outstanding until a later operation puts the path as wanted (or
// undoes the failing one: see replay), or a newer capture of the path
// starts it afresh. Caller holds s.mu.
func (s *Store) failures(v *view) map[string]PathFailure {
	out := map[string]PathFailure{}
	if len(v.fails) == 0 {
		return out
	}
	var later []*opRec // done operations, in order (one that changed nothing may have failed paths too)
	for _, o := range v.ops {
		if o.done && !o.abandoned {
			later = append(later, o)
		}
	}
	paths := map[string]bool{}
	for _, o := range later {
		for _, f := range v.fails[o.id] {
			paths[f.Path] = true
		}
	}
	captured := newestCaptures(v, paths)
	for i, o := range later {
		for _, f := range v.fails[o.id] {
			if s.putSince(v, later[i+1:], f.Path) || captured[f.Path] > o.seq {
				continue
			}
			out[f.Path] = PathFailure{Path: f.Path, Reason: f.Reason, Op: o.id, Kind: o.kind}
		}
	}
	return out
}

// putSince reports whether one of ops put p as it wanted and p still
// holds it: an operation whose work was taken back does not count, nor
// does an undo, which puts p back as it was before what it undid (so
// failed again, where an operation before that failed it).
func (s *Store) putSince(v *view, ops []*opRec, p string) bool {
	for _, o := range ops {
		if v.takenBack[o.id] || o.kind == KindUndo {
			continue
		}
		recs, err := s.steps(o.id)
		if err != nil {
			continue
		}
		for _, r := range recs {
			if r.Path == p && (r.Do == ActRestore || r.Do == ActDelete || r.Do == ActKeep) && !slices.ContainsFunc(o.fails, func(f Failure) bool { return f.Path == p }) {
				return true
			}
		}
	}
	return false
}

// newestCaptures maps each of paths to the order of its newest capture
// in a turn not rewound: one pass over the turns for every failed path.
func newestCaptures(v *view, paths map[string]bool) map[string]int64 {
	out := make(map[string]int64, len(paths))
	for _, t := range v.turns {
		if v.rewound[t.id] {
			continue
		}
		t.scan(func(f *tfile) {
			// A path's first entry is its only one (apply keeps the first
			// pre); a refused entry names no path.
			if f.refused == "" && paths[f.path] && f.preSeq > out[f.path] {
				out[f.path] = f.preSeq
			}
		})
	}
	return out
}

// Failures lists the paths operations could not put back that are still
// failed, sorted by path, each with the reason and the operation. Running
// that operation's command again (rewinding the same turn, undo, redo)
// plans a retry of them (Plan.Retry).
func (s *Store) Failures() ([]PathFailure, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	m := s.failures(v)
	out := make([]PathFailure, 0, len(m))
	for _, f := range m {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// statusRun holds what one Log or Files call learns while it compares
// turns with the disk: each path is looked at once, folders are opened
// once, and the packs are listed once when many files are asked about.
type statusRun struct {
	s      *Store
	exp    map[string]expectation
	failed map[string]PathFailure
	disk   map[string]Image
	edited map[string]bool // handEdited's answers
	dirs   *dirCache
	// indexed: the packs were listed once, so a blob's absence is one
	// lookup and a stat, not a read of it.
	indexed bool
	// noBlobs skips the missing-blob check: the log counts only files
	// changed since the agent, and listing a big blob folder is slow.
	noBlobs bool
}

// newStatusRun starts a comparison of about n files. Caller holds s.mu and
// calls done.
func (s *Store) newStatusRun(v *view, n int) *statusRun {
	return s.newStatusRunExp(v, n, s.expected(v))
}

// newStatusRunExp is newStatusRun given what is expected (expected).
func (s *Store) newStatusRunExp(v *view, n int, exp map[string]expectation) *statusRun {
	r := &statusRun{s: s, exp: exp, failed: s.failures(v), disk: map[string]Image{}, edited: map[string]bool{}, dirs: newDirCache(s)}
	if n > 256 {
		s.packs.ensure(s)
		r.indexed = true
	}
	return r
}

func (r *statusRun) done() {
	r.dirs.close()
	r.s.saveStats()
}

func (r *statusRun) diskOf(rel string) Image {
	img, ok := r.disk[rel]
	if !ok {
		img = r.s.diskState(rel, r.dirs)
		r.disk[rel] = img
	}
	return img
}

// blobProblem says what is wrong with the blob a record names, or ""
// when it is there and matches its name. Each blob is read once per
// Store: a status that promises a rewind can restore the file checks the
// bytes.
func (r *statusRun) blobProblem(f *tfile, size int64) string {
	sum, err := blobOf(f.pre)
	if err != nil {
		return badBlobWhy(f.badBlob)
	}
	if r.indexed && !r.s.hasBlobNear(sum) {
		return "its kept bytes are missing from the store"
	}
	if why, ok := r.s.checked[sum]; ok {
		return why
	}
	why := ""
	if err := r.s.checkBlob(sum, size); errors.Is(err, fs.ErrNotExist) {
		why = "its kept bytes are missing from the store"
	} else if err != nil {
		why = "its kept bytes are damaged: " + strings.TrimPrefix(err.Error(), "store: ")
	}
	r.s.checked[sum] = why
	return why
}

// handEdited reports whether f's path was changed since the last step
// that wrote it — whatever status comes first for it (a skipped file can
// be changed since the agent too, and every view says so).
func (r *statusRun) handEdited(f *tfile) bool {
	if f.refused != "" {
		return false
	}
	if v, ok := r.edited[f.path]; ok {
		return v // the log asks of a path once per turn that has it
	}
	v := false
	if _, failed := r.failed[f.path]; !failed {
		// A path an operation failed to put back is failed, not changed
		// since the agent.
		e, ok := r.exp[f.path]
		v = ok && e.changedSince(r.diskOf(f.path))
	}
	r.edited[f.path] = v
	return v
}

// status tells how one path of a turn stands against the disk now.
func (r *statusRun) status(f *tfile) (Status, string, Image) {
	if f.refused != "" {
		return StatusRefused, f.refused, Image{}
	}
	if f.pre.Purged() {
		return StatusPurged, PurgedReason, Image{}
	}
	if f.pre.Kind == ImageSkipped {
		return StatusSkipped, "not kept: " + f.pre.Reason, Image{}
	}
	exp := r.exp
	disk := r.diskOf(f.path)
	if f.pre.Kind == ImageContent && !r.noBlobs {
		if why := r.blobProblem(f, blobSize(f.pre)); why != "" {
			return StatusMissingBlob, why, disk
		}
	}
	if fl, ok := r.failed[f.path]; ok {
		return StatusFailed, fl.Reason, disk
	}
	if e, ok := exp[f.path]; ok && e.changedSince(disk) {
		return StatusHandEdited, "changed since the agent wrote it", disk
	}
	switch {
	case f.pre.Kind == ImageAbsent && disk.Kind != ImageAbsent:
		return StatusCreated, "", disk
	case f.pre.Kind != ImageAbsent && disk.Kind == ImageAbsent:
		return StatusDeleted, "", disk
	case !sameBytes(disk, f.pre), modeMoved(f.pre, disk):
		return StatusModified, "", disk
	}
	return StatusUnchanged, "", disk
}

// Files lists a turn's paths in the order they were first captured;
// withStatus compares each with the disk. For an operation id it lists
// the paths the operation touched, with what each held before it.
func (s *Store) Files(id string, withStatus bool) ([]File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	files, _, _, err := s.filesOf(v, id, withStatus)
	return files, err
}

// filesOf is Files of turn or operation id in v, and which it is: t for
// a turn, o for an operation. Caller holds s.mu.
func (s *Store) filesOf(v *view, id string, withStatus bool) (files []File, t *turn, o *opRec, err error) {
	if t = v.byID[id]; t == nil {
		if o = v.opByID[id]; o == nil {
			return nil, nil, nil, errf("%q: %w", id, ErrUnknownTurn)
		}
		files, err = s.opFiles(o, withStatus)
		return files, nil, o, err
	}
	var run *statusRun
	if withStatus {
		run = s.newStatusRun(v, len(t.list()))
		defer run.done()
	}
	return s.turnFiles(v, t, run), t, nil, nil
}

func (s *Store) opFiles(o *opRec, withStatus bool) ([]File, error) {
	steps, err := s.steps(o.id)
	if err != nil {
		return nil, err
	}
	dirs := newDirCache(s)
	defer dirs.close()
	defer s.saveStats()
	var out []File
	for _, st := range steps {
		f := File{Path: st.Path}
		if st.Img != nil {
			f.Pre = *st.Img
		}
		if st.Want != nil {
			w := *st.Want
			f.Post = &w
		}
		fl := slices.IndexFunc(o.fails, func(f Failure) bool { return f.Path == st.Path })
		switch {
		case fl >= 0:
			f.Status, f.Reason = StatusFailed, o.fails[fl].Reason
		case st.Do == ActFail:
			f.Status, f.Reason = StatusSkipped, st.Why
		case withStatus:
			f.Disk = s.diskState(st.Path, dirs)
			// An operation's paths read against what it left there.
			if f.Post != nil && sameBytes(f.Disk, *f.Post) {
				f.Status = StatusUnchanged
			} else {
				f.Status, f.Reason = StatusModified, "changed since the operation"
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// ReadImage returns the kept bytes of img, checked against their hash: a
// file's content, a link's target, nothing for an absent file.
func (s *Store) ReadImage(img Image) ([]byte, error) {
	switch img.Kind {
	case ImageContent:
		if b := s.plannedBytes(img); b != nil {
			return b, nil
		}
		return s.readBlobOf(img)
	case ImageLink:
		return []byte(img.Link), nil
	case ImageAbsent, ImageDir, ImageFifo, ImageSocket, ImageDevice:
		return nil, nil // a folder, a pipe, a socket or a device holds no bytes of its own
	case ImageSkipped:
		return nil, errf("not kept: %s", img.Reason)
	}
	return nil, errf("nothing kept for a %q image", img.Kind)
}

// Size is the bytes the store's files occupy (their lengths, not blocks).
func (s *Store) Size() (int64, error) {
	var n int64
	err := fs.WalkDir(s.dir.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	if err != nil {
		return n, errf("size of %s: %w", s.path("."), err)
	}
	return n, nil
}

// maxWatchedDirs bounds the project folders Watch follows for disk
// changes; beyond it the UI's periodic refresh catches them.
const maxWatchedDirs = 512

// WatchTargets are the folders whose changes may change what the store
// shows: the store's own folder (a tree) and the project folders holding
// paths the newest turns touched (up to maxWatchedDirs). Package watch
// watches them for the UI.
func (s *Store) WatchTargets() (tree string, dirs []string, err error) {
	s.mu.Lock()
	v, err := s.load()
	seen := map[string]bool{}
	for i := len(v.turns) - 1; err == nil && i >= 0 && len(dirs) < maxWatchedDirs; i-- {
		for _, f := range v.turns[i].list() {
			d := path.Dir(f.path)
			if f.refused != "" || seen[d] {
				continue
			}
			seen[d] = true
			dirs = append(dirs, filepath.Join(s.rootPath, filepath.FromSlash(d)))
		}
	}
	s.mu.Unlock()
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(s.rootPath, storeDir), dirs, nil
}

// QuietFile reports a store file whose changes say nothing about turns or
// the disk: the stat cache and the summary (rewritten by reads, so a
// reader watching them would wake itself in a loop), temporary files
// before their rename, lock files.
func QuietFile(p string) bool {
	base := filepath.Base(p)
	return base == statCacheFile || base == summaryFile || strings.HasPrefix(base, ".tmp-") ||
		base == "lock" || base == "blobs.lock"
}

// AddOnlyDir reports a store folder that is only ever added to, whose own
// modification time moves when it is: blobs are content-addressed and
// written before the record that names them.
func AddOnlyDir(name string) bool { return name == "blobs" || name == "packs" }

// modeMoved reports whether a file holds the same kind of thing as was
// but with other permission bits (chmod +x): a change, shown as such.
func modeMoved(was, now Image) bool {
	return was.Kind == now.Kind && (was.Kind == ImageContent || was.Kind == ImageDir) &&
		was.Mode != 0 && now.Mode != 0 && was.Mode&0o7777 != now.Mode&0o7777
}
