package store

import (
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// Paths in a folder that shuts its owner out now (mode 000, 0300: no
// listing, searching or writing), which the operation gives another mode:
// a command that edited files in a folder and then shut it, say (see
// sweep_shut.go). The plan cannot read them, but the operation opens the
// folder before it keeps what they hold, so they are planned toward what
// they want, and decided again once read. The folder's own step then
// gives it its mode (lockDirs, if that mode shuts it again).

// permDenied is how reasonOf words a path the file system will not let
// ckpt look at.
const permDenied = "cannot be read (permission denied)"

// opens reports whether st is a folder the operation opens before it
// reads what is in it: one it restores, whose mode now keeps its owner
// from listing, searching or writing it.
func opens(st Step) bool {
	return st.Do == ActRestore && st.Want.Kind == ImageDir && st.Now.Kind == ImageDir && permOnly(st.Now.Mode)&0o700 != 0o700
}

// behindShut reports whether p lies in a folder whose step opens it.
// steps are sorted by path.
func behindShut(steps []Step, p string) bool {
	for _, d := range parents(p) {
		j := sort.Search(len(steps), func(k int) bool { return steps[k].Path >= d })
		if j < len(steps) && steps[j].Path == d && opens(steps[j]) {
			return true
		}
	}
	return false
}

// planBehindShut turns the steps that failed only because a folder on
// their way shuts ckpt out, and that the operation opens, into steps
// toward what they want. Their Now stays what the plan could see.
func (s *Store) planBehindShut(steps []Step) {
	for i := range steps {
		st := &steps[i]
		if st.Do != ActFail || st.Now.Kind != ImageOther || st.Now.Reason != permDenied || !behindShut(steps, st.Path) {
			continue
		}
		if st.Want.Kind == ImageAbsent {
			st.Do, st.Reason = ActDelete, ""
			continue
		}
		st.Do, st.Reason = s.decide(Image{Kind: ImageAbsent}, st.Want)
	}
}

// shutWay is a folder an operation opened to read and change what is in
// it, and its mode before. back: no step of the operation names it (a
// folder read-only for its owner, whose mode no turn changed), so the
// operation gives it its mode back when it ends, logged or not.
type shutWay struct {
	path  string
	mode  uint32
	back  bool
	tries int // commands that failed to give it its mode back
}

// shutNote is the store's note of the folders an operation is opening
// (openShut), written durably before the first is opened: a crash before
// the operation is logged leaves it for recovery, which gives them their
// modes back (recoverShut). Once the operation is logged its steps give
// back the modes of the folders they name, and the note stays only for
// those no step names ("back"), until the operation ends.
const shutNote = "shut-folders"

// shutNoteVersion is the newest version of the note this ckpt reads.
const shutNoteVersion = 1

type shutNoteJSON struct {
	V       int             `json:"v"`
	Op      string          `json:"op"`
	Folders []shutNoteEntry `json:"folders"`
}

type shutNoteEntry struct {
	Path string `json:"path"`
	Mode uint32 `json:"mode"`           // permission bits before it was opened
	Back bool   `json:"back,omitempty"` // given back even once the operation is logged
	// Tries counts the commands that failed to give it its mode back;
	// it is still open, and the next commands try again (shutTriesMax).
	Tries int `json:"tries,omitempty"`
}

// openShut opens the folders of p's steps that opens names, outermost
// first, to their owner, for operation op. They are noted first, durably
// (shutNote), so that a crash cannot leave one open: until the operation
// is logged, closeShut (or recovery) gives them their modes back; once it
// is, their steps do.
func (s *Store) openShut(op string, steps []Step, fp *failpoint) ([]shutWay, error) {
	var todo []shutWay
	for _, st := range steps {
		if !opens(st) {
			continue
		}
		rel, err := s.Rel(st.Path)
		if err != nil || !s.wayIsFolders(st.Path) {
			continue // refused, or to fail when its step runs
		}
		fi, err := s.root.Lstat(rel)
		if err != nil || !fi.IsDir() {
			continue
		}
		todo = append(todo, shutWay{path: st.Path, mode: uint32(fi.Mode().Perm())})
	}
	todo = append(todo, s.readOnlyWays(steps)...)
	// The folders a note keeps open (their modes could not be given
	// back) are this operation's too, whether or not it opens any: its
	// end tries again, with the modes they had before they were opened.
	todo = s.withLeft(todo)
	if len(todo) == 0 {
		return nil, nil
	}
	slices.SortFunc(todo, outerFirst)
	if err := s.writeShutNote(op, todo); err != nil {
		return nil, err
	}
	fp.hit()
	var opened []shutWay
	for _, w := range todo {
		if w.tries > 0 {
			opened = append(opened, w) // still open: its end tries again
			continue
		}
		rel, _ := s.wayRel(w.path)
		if err := s.root.Chmod(rel, fs.FileMode(w.mode)|0o700); err != nil {
			s.closeShut(opened)
			return nil, errf("open %s to read what is in it: %w", w.path, err)
		}
		opened = append(opened, w)
		fp.hit()
	}
	return opened, nil
}

// readOnlyWays are the folders the steps write or delete a path in
// (the nearest folder there, above a path to be made with the folders on
// its way, the project root too) that keep their owner from writing in
// them, and that no step names: their mode is no turn's, so the operation opens them and gives
// them their mode back when it ends.
func (s *Store) readOnlyWays(steps []Step) []shutWay {
	var out []shutWay
	seen := map[string]bool{}
	for _, st := range steps {
		if st.Do != ActRestore && st.Do != ActDelete {
			continue
		}
		ps := append([]string{"."}, parents(st.Path)...)
		for _, d := range slices.Backward(ps) {
			if seen[d] {
				break
			}
			seen[d] = true
			rel, ok := s.wayRel(d)
			if !ok {
				break
			}
			fi, err := s.root.Lstat(rel)
			if err != nil {
				continue // made by the step: the folder above it is written
			}
			if !fi.IsDir() {
				break
			}
			if m := fi.Mode().Perm(); m&0o300 != 0o300 && m&0o100 != 0 && !stepNamed(steps, d) {
				out = append(out, shutWay{path: d, mode: uint32(m), back: true})
			}
			break
		}
	}
	return out
}

// wayRel is the folder p resolved in the root ("." the root itself),
// and whether it is one a folder operation may change: no link on its
// way (Rel, wayIsFolders).
func (s *Store) wayRel(p string) (string, bool) {
	if p == "." {
		return ".", true
	}
	rel, err := s.Rel(p)
	return rel, err == nil && s.wayIsFolders(p)
}

// outerFirst orders folders the root first, then a folder before those
// in it.
func outerFirst(a, b shutWay) int {
	switch {
	case a.path == b.path:
		return 0
	case a.path == ".":
		return -1
	case b.path == ".":
		return 1
	}
	return strings.Compare(a.path, b.path)
}

// stepNamed reports whether steps (sorted by path) have a step for p.
func stepNamed(steps []Step, p string) bool {
	j := sort.Search(len(steps), func(k int) bool { return steps[k].Path >= p })
	return j < len(steps) && steps[j].Path == p
}

// writeShutNote notes, durably, the folders operation op opens.
func (s *Store) writeShutNote(op string, ways []shutWay) error {
	n := shutNoteJSON{V: shutNoteVersion, Op: op}
	for _, w := range ways {
		n.Folders = append(n.Folders, shutNoteEntry{w.path, w.mode, w.back, w.tries})
	}
	if err := s.writeNote(shutNote, n); err != nil {
		return errf("note the folders it opens in %s: %w", s.path(shutNote), err)
	}
	return nil
}

// prepareOpen is prepare with the folders that shut ckpt out of what the
// plan changes in them opened first (openShut), so what is in them is
// kept; on an error they are closed again.
func (s *Store) prepareOpen(op string, p *Plan, hand func(string, Image) bool, fp *failpoint) ([]record.Line, map[string][]byte, []shutWay, error) {
	opened, err := s.openShut(op, p.Steps, fp)
	if err != nil {
		return nil, nil, nil, err
	}
	recs, bytesOf, err := s.prepare(p, hand, fp)
	if err != nil {
		s.closeShut(opened)
		return nil, nil, nil, err
	}
	return recs, bytesOf, opened, nil
}

// openSteps opens to their owner, before the operation changes anything,
// the folders among recs (recorded as folders, Img) whose mode keeps
// their owner from listing, searching or writing them and that hold a
// path the operation writes or deletes: an undo deleting a file in a
// folder of mode 0500, say. It returns their indexes; closeSteps gives
// them their modes back at the end. The modes are the steps', so a
// recovery that runs the steps again does the same.
func (s *Store) openSteps(recs []record.Line, fp *failpoint) []int {
	var opened []int
	for i, r := range recs {
		if r.Img == nil || r.Img.Kind != ImageDir || r.Img.Mode == 0 || permOnly(r.Img.Mode)&0o700 == 0o700 || !changesIn(recs, i) {
			continue
		}
		rel, err := s.Rel(r.Path)
		if err != nil || !s.wayIsFolders(r.Path) {
			continue
		}
		if fi, err := s.root.Lstat(rel); err != nil || !fi.IsDir() {
			continue
		}
		if s.root.Chmod(rel, permOnly(r.Img.Mode)|0o700) == nil {
			opened = append(opened, i)
			fp.hit()
		}
	}
	return opened
}

// changesIn reports whether a step after recs[i] (sorted by path) writes
// or deletes a path in the folder recs[i] names.
func changesIn(recs []record.Line, i int) bool {
	prefix := recs[i].Path + "/"
	for _, r := range recs[i+1:] {
		if !strings.HasPrefix(r.Path, prefix) {
			if r.Path > prefix {
				return false
			}
			continue
		}
		if r.Do == ActRestore || r.Do == ActDelete {
			return true
		}
	}
	return false
}

// closeSteps gives the folders openSteps opened that their own step does
// not make a folder of its mode (restoreDir, lockDirs) their mode back,
// the deepest first, if they are still there.
func (s *Store) closeSteps(recs []record.Line, opened []int) {
	for _, i := range slices.Backward(opened) {
		r := recs[i]
		if r.Do == ActRestore && r.Want != nil && r.Want.Kind == ImageDir {
			continue
		}
		rel, err := s.Rel(r.Path)
		if err != nil || !s.wayIsFolders(r.Path) {
			continue
		}
		if fi, err := s.root.Lstat(rel); err == nil && fi.IsDir() {
			_ = s.root.Chmod(rel, permOnly(r.Img.Mode))
		}
	}
}
