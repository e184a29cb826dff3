package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// expectation is what the last committed step left at a path.
type expectation struct {
	img Image
	seq int64 // record.order of that step
}

// expected maps each path to its expected bytes: the newest seal of an
// active turn, or the newest rewind, undo or redo that wrote it. Caller
// holds s.mu.
func (s *Store) expected(v *view) map[string]expectation {
	exp := map[string]expectation{}
	put := func(p string, img Image, seq int64) {
		if e, ok := exp[p]; !ok || seq >= e.seq {
			exp[p] = expectation{img, seq}
		}
	}
	for _, t := range v.turns {
		if v.rewound[t.id] {
			continue
		}
		for _, f := range t.files {
			if f.post != nil && f.refused == "" {
				put(f.path, *f.post, f.postSeq)
			}
		}
	}
	for _, o := range v.ops {
		if !o.done || o.abandoned {
			continue
		}
		steps, err := s.steps(o.id)
		if err != nil {
			continue
		}
		for _, st := range steps {
			if st.Want != nil && st.Do != ActFail && !o.failed[st.Path] {
				put(st.Path, *st.Want, o.seq)
			}
		}
	}
	return exp
}

// statusRun holds what one Log or Files call learns while it compares
// turns with the disk: each path is looked at once, folders are opened
// once, and the blob folder is listed once when many files are asked about.
type statusRun struct {
	s     *Store
	exp   map[string]expectation
	disk  map[string]Image
	dirs  *dirCache
	blobs map[string]bool
	// noBlobs skips the missing-blob check: the log counts only files
	// changed since the agent, and listing a big blob folder is slow.
	noBlobs bool
}

// newStatusRun starts a comparison of about n files. Caller holds s.mu and
// calls done.
func (s *Store) newStatusRun(v *view, n int) *statusRun {
	r := &statusRun{s: s, exp: s.expected(v), disk: map[string]Image{}, dirs: newDirCache(s.root)}
	if n > 256 {
		r.blobs = s.blobNames()
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

// blobProblem says what is wrong with the blob named sum, or "" when it
// is there and matches its name. Each blob is read once per Store: a
// status that promises a rewind can restore the file checks the bytes.
func (r *statusRun) blobProblem(sum string, size int64) string {
	if !isHex64(sum) {
		return fmt.Sprintf("blob name %q is not 64 hex digits", sum)
	}
	if r.blobs != nil && !r.blobs[sum] {
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
	e, ok := r.exp[f.path]
	return ok && !sameBytes(r.diskOf(f.path), e.img)
}

// status tells how one path of a turn stands against the disk now.
func (r *statusRun) status(f *tfile) (Status, string, Image) {
	if f.refused != "" {
		return StatusRefused, f.refused, Image{}
	}
	if f.pre.Kind == ImageSkipped {
		return StatusSkipped, "not kept: " + f.pre.Reason, Image{}
	}
	exp := r.exp
	disk := r.diskOf(f.path)
	if f.pre.Kind == ImageContent && !r.noBlobs {
		if why := r.blobProblem(f.pre.SHA256, blobSize(f.pre)); why != "" {
			return StatusMissingBlob, why, disk
		}
	}
	if e, ok := exp[f.path]; ok && !sameBytes(disk, e.img) {
		return StatusHandEdited, "changed since the agent wrote it", disk
	}
	switch {
	case f.pre.Kind == ImageAbsent && disk.Kind != ImageAbsent:
		return StatusCreated, "", disk
	case f.pre.Kind != ImageAbsent && disk.Kind == ImageAbsent:
		return StatusDeleted, "", disk
	case !sameBytes(disk, f.pre):
		return StatusModified, "", disk
	}
	return StatusUnchanged, "", disk
}

// Log lists turns and operations, newest first. withStatus compares the
// disk (through the stat cache) to fill HandEdited; otherwise it is -1, so
// a screen can show the log at once and the counts when they are ready.
func (s *Store) Log(withStatus bool) ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	var run *statusRun
	if withStatus {
		n := 0
		for _, t := range v.turns {
			n += len(t.files)
		}
		run = s.newStatusRun(v, 0)
		run.noBlobs = true
		defer run.done()
	}
	var out []Entry
	var seq []int64 // each entry's place in the order of commits
	for _, t := range v.turns {
		e := Entry{ID: t.id, Kind: KindAgent, Label: t.label, At: time.Unix(0, t.at), State: v.state(t),
			Files: len(t.files), HandEdited: -1, Source: t.source, Head: t.head}
		if withStatus {
			e.HandEdited = 0
			for _, f := range t.files {
				if run.handEdited(f) {
					e.HandEdited++
				}
			}
		}
		out = append(out, e)
		seq = append(seq, t.seq)
	}
	for _, o := range v.ops {
		state := v.opState[o.id]
		if !o.done {
			state = StateActive
		}
		if state == "" {
			state = StateActive
		}
		e := Entry{ID: o.id, Kind: o.kind, At: time.Unix(0, o.at), State: state, Files: o.steps,
			Target: o.target, Turns: o.turns, Label: opLabel(o)}
		if withStatus {
			e.HandEdited = 0
		} else {
			e.HandEdited = -1
		}
		out = append(out, e)
		seq = append(seq, o.seq)
	}
	// Newest first by the order of commits, not by At: the wall clock can
	// step back between two turns.
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return seq[idx[i]] > seq[idx[j]] })
	sorted := make([]Entry, len(out))
	for i, k := range idx {
		sorted[i] = out[k]
	}
	return sorted, nil
}

func opLabel(o *opRec) string {
	n := len(o.turns)
	plural := "s"
	if n == 1 {
		plural = ""
	}
	switch o.kind {
	case KindRewind:
		return fmt.Sprintf("rewound %d turn%s to before %s", n, plural, o.target)
	case KindUndo:
		return fmt.Sprintf("undid %s: %d turn%s back", o.target, n, plural)
	case KindRedo:
		return fmt.Sprintf("redid %s: %d turn%s rewound again", o.target, n, plural)
	}
	return string(o.kind)
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
	t := v.byID[id]
	if t == nil {
		if o := v.opByID[id]; o != nil {
			return s.opFiles(o, withStatus)
		}
		return nil, errf("%q: %w", id, ErrUnknownTurn)
	}
	var run *statusRun
	if withStatus {
		run = s.newStatusRun(v, len(t.files))
		defer run.done()
	}
	out := make([]File, 0, len(t.files))
	for _, f := range t.files {
		ff := File{Path: f.path, Pre: f.pre, Post: f.post, Shell: f.cmd}
		if withStatus {
			ff.Status, ff.Reason, ff.Disk = run.status(f)
			ff.HandEdited = run.handEdited(f)
		} else if f.refused != "" {
			ff.Status, ff.Reason = StatusRefused, f.refused
		}
		out = append(out, ff)
	}
	return out, nil
}

func (s *Store) opFiles(o *opRec, withStatus bool) ([]File, error) {
	steps, err := s.steps(o.id)
	if err != nil {
		return nil, err
	}
	dirs := newDirCache(s.root)
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
		if st.Do == ActFail {
			f.Status, f.Reason = StatusSkipped, st.Why
		} else if withStatus {
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
		return s.readBlob(img.SHA256, blobSize(img))
	case ImageLink:
		return []byte(img.Link), nil
	case ImageAbsent:
		return nil, nil
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

// Watch sends on the returned channel (signals merge while the reader is
// busy) whenever the store, or a folder holding a path a turn touched, may
// have changed, until ctx ends. It watches with fsnotify and polls where
// that fails.
func (s *Store) Watch(ctx context.Context) (<-chan struct{}, error) {
	s.mu.Lock()
	v, err := s.load()
	seen := map[string]bool{}
	var dirs []string
	for i := len(v.turns) - 1; err == nil && i >= 0 && len(dirs) < maxWatchedDirs; i-- {
		for _, f := range v.turns[i].files {
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
		return nil, err
	}
	return watchPaths(ctx, time.Second, []string{filepath.Join(s.rootPath, storeDir)}, dirs)
}
