package store

import (
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
// it, and its mode before.
type shutWay struct {
	path string
	mode uint32
}

// openShut opens the folders of p's steps that opens names, outermost
// first, to their owner: until the operation is logged, closeShut gives
// them their modes back; once it is, their steps do.
func (s *Store) openShut(steps []Step) ([]shutWay, error) {
	var opened []shutWay
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
		if err := s.root.Chmod(rel, fi.Mode().Perm()|0o700); err != nil {
			s.closeShut(opened)
			return nil, errf("open %s to read what is in it: %w", st.Path, err)
		}
		opened = append(opened, shutWay{st.Path, uint32(fi.Mode().Perm())})
	}
	return opened, nil
}

// closeShut gives the folders openShut opened their modes back, the
// deepest first.
func (s *Store) closeShut(opened []shutWay) {
	for _, w := range slices.Backward(opened) {
		if rel, err := s.Rel(w.path); err == nil {
			if err := s.root.Chmod(rel, permOnly(w.mode)); err != nil {
				s.LogError("give %s back its mode %03o: %v", w.path, w.mode, err)
			}
		}
	}
}

// prepareOpen is prepare with the folders that shut ckpt out of what the
// plan changes in them opened first (openShut), so what is in them is
// kept; on an error they are closed again.
func (s *Store) prepareOpen(p *Plan, hand func(string, Image) bool, fp *failpoint) ([]record.Line, map[string][]byte, []shutWay, error) {
	opened, err := s.openShut(p.Steps)
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
