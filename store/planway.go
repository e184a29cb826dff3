package store

import (
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// wayBlocked returns a test of the folders on a path's way, for steps
// that write the path: when one of them is a file or a symbolic link now
// (put there since the path was recorded) and the plan does not itself
// put that folder right (a goal there wanting a folder, or nothing), the
// step cannot be done without removing what stands there, which is no
// operation's to remove; nor is a link ever written through. The test
// says why, or "" when the way is clear or made by the plan. Each folder
// is looked at once per plan, from the top down, through the folder above
// it held open in dirs, so a path deep down costs one call per folder, not
// one walk from the root per folder.
func (s *Store) wayBlocked(goals []wanted, dirs *dirCache) func(rel string) string {
	// mend: the plan makes the folder (or clears what stands there);
	// file: the plan puts a file or link there (or fails to, its bytes not
	// kept), so nothing can be in it.
	mend, file := map[string]bool{}, map[string]bool{}
	for _, g := range goals {
		switch {
		case g.refused != "":
		case g.img.Kind == ImageDir || g.img.Kind == ImageAbsent:
			mend[g.path] = true
		case g.img.Kind == ImageContent || g.img.Kind == ImageLink || g.img.Kind == ImageSkipped:
			// A file whose bytes were not kept wins too: its step fails,
			// and no folder is made where the plan's file was.
			file[g.path] = true
		}
	}
	kinds := map[string]fs.FileMode{}
	const absent = fs.ModeIrregular // a marker: nothing there
	return func(rel string) string {
		if path.IsAbs(rel) {
			return ""
		}
		missing := false // a folder above is missing: the rest are made
		for i := 0; ; {
			j := strings.IndexByte(rel[i:], '/')
			if j < 0 {
				return ""
			}
			dir := rel[:i+j]
			i += j + 1
			switch {
			case file[dir]:
				// Turns recorded it a file, and later a folder (a path
				// of an already rewound turn between them): the file wins.
				return "not restored: the operation puts a file where its folder " + dir + " was"
			case mend[dir] || missing:
				continue // its own step puts it right; what is below it is looked at
			}
			m, ok := kinds[dir]
			if !ok {
				m = absent
				if t, ok := dirs.lkind(dir); ok {
					m = t
				}
				kinds[dir] = m
			}
			switch {
			case m == absent:
				missing = true // made as the step writes the path
			case m == fs.ModeDir:
			case m == fs.ModeSymlink:
				return "not restored: a symbolic link stands where its folder " + dir + " was"
			default:
				return "not restored: a file stands where its folder " + dir + " was"
			}
		}
	}
}

// emptiedBy reports whether the folder rel is left empty by an operation
// that deletes the paths in deletes and removes the folders in gone that
// it leaves empty: a folder standing where a file or a link is to be put
// back goes only so, never with something the operation does not take
// away (a file made by hand since, say). Each folder is listed through
// the one above it held open in dirs, so a deep tree costs one open per
// folder, not one walk from the root per folder.
func (s *Store) emptiedBy(rel string, deletes, gone map[string]bool, dirs *dirCache) bool {
	ents, err := dirs.readDir(rel)
	if err != nil {
		return false
	}
	for _, e := range ents {
		p := rel + "/" + e.Name()
		switch {
		case e.IsDir():
			if !gone[p] || !s.emptiedBy(p, deletes, gone, dirs) {
				return false
			}
		case !deletes[p]:
			return false
		}
	}
	return true
}

// wayIsFolders reports whether every folder above rel (a recorded
// name, not resolved through links) is a real folder, or missing (to be
// made): none is a link, which an os.Root would follow to make or remove
// a folder somewhere else, and none is a file. It looks at each folder
// from the one above it, opened in turn, so a path n folders down costs n
// lookups, not n of n folders each.
func (s *Store) wayIsFolders(rel string) bool {
	if path.IsAbs(rel) {
		return false
	}
	r := s.root
	defer func() {
		if r != s.root {
			r.Close()
		}
	}()
	for i := 0; ; {
		j := strings.IndexByte(rel[i:], '/')
		if j < 0 {
			return true
		}
		name := rel[i : i+j]
		pathWalk.Add(int64(len(name)))
		fi, err := r.Lstat(name)
		switch {
		case err != nil:
			return true
		case !fi.IsDir():
			return false
		}
		next, err := r.OpenRoot(name)
		if err != nil {
			// A folder its owner may pass but not list: what is below it
			// is looked at from the top.
			return s.wayIsFoldersFrom(rel, i+j+1)
		}
		if r != s.root {
			r.Close()
		}
		r = next
		i += j + 1
	}
}

// wayIsFoldersFrom is wayIsFolders for the folders of rel from byte i
// on, each looked up from the root.
func (s *Store) wayIsFoldersFrom(rel string, i int) bool {
	for {
		j := strings.IndexByte(rel[i:], '/')
		if j < 0 {
			return true
		}
		pathWalk.Add(int64(i + j))
		fi, err := s.root.Lstat(rel[:i+j])
		switch {
		case err != nil:
			return true
		case !fi.IsDir():
			return false
		}
		i += j + 1
	}
}

// rmdirs lists the folders to remove, if left empty, after p: those the
// rewound turns created, or those the operation being undone created.
func (s *Store) rmdirs(v *view, p *Plan) []string {
	if p.Retry != "" && p.Kind != KindRewind {
		// A retry of an undo or redo finishes its paths; the folders were
		// seen to the first time.
		return nil
	}
	set := map[string]bool{}
	switch p.Kind {
	case KindRewind:
		for _, id := range p.Turns {
			for _, f := range v.byID[id].list() {
				for _, d := range f.dirs {
					set[d] = true
				}
			}
		}
	case KindUndo:
		if len(v.undo) > 0 {
			via := v.undo[len(v.undo)-1].via
			// A step that failed made no folder: the ones it would have
			// made are not the operation's to take away.
			failed := map[string]bool{}
			for _, f := range via.fails {
				failed[f.Path] = true
			}
			if recs, err := s.steps(via.id); err == nil {
				for _, r := range recs {
					if failed[r.Path] {
						continue
					}
					for _, d := range r.Dirs {
						set[d] = true
					}
				}
			}
		}
	case KindRevert:
		for _, d := range revertDirs(v, p) {
			set[d] = true
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

// stillFailed is what operation id failed and has not put back since:
// its own failures, and those of its retries that failed them again
// (which hold them now), each retried in turn.
func (v *view) stillFailed(id string) map[string]bool {
	out := map[string]bool{}
	var add func(id string)
	add = func(id string) {
		for _, f := range v.fails[id] {
			out[f.Path] = true
		}
		for _, r := range v.noneRetries[id] {
			add(r)
		}
		for _, r := range v.retriesOf[id] {
			add(r)
		}
	}
	add(id)
	return out
}

// keptFolders drops from rmdirs the folders p wants as folders: one a
// turn made that was a folder before an older of the turns too (its
// oldest pre-image) stays, empty or not. A retry of a rewind looks at
// what the rewind it retries wanted, back along the retries and through
// a redo to the rewind it redid. Beneath a path in files (filesPut of the
// operation's steps) the file wins: such a folder goes once emptied.
func (s *Store) keptFolders(v *view, rmdirs []string, p *Plan, files map[string]bool) []string {
	want := map[string]bool{}
	for _, st := range p.Steps {
		if st.Want.Kind == ImageDir {
			want[st.Path] = true
		}
	}
	for id, n := p.Retry, 0; id != "" && p.Kind == KindRewind && n < 1000; n++ {
		recs, err := s.steps(id)
		if err != nil {
			break
		}
		for _, r := range recs {
			if r.Want != nil && r.Want.Kind == ImageDir {
				want[r.Path] = true
			}
		}
		o := v.opByID[id]
		if o == nil {
			break
		}
		id = o.retry
		if id == "" && o.kind == KindRedo {
			id = o.target // a redo's steps are what it did again: the rewind wanted the rest
		}
	}
	if len(want) == 0 {
		return rmdirs
	}
	return slices.DeleteFunc(rmdirs, func(d string) bool { return want[d] && !underAny(files, d) })
}

// filesPut is the set of paths an operation's steps put a file or a link
// at: no folder it makes or keeps may stand at or beneath one.
func filesPut(recs []record.Line) map[string]bool {
	files := map[string]bool{}
	for _, r := range recs {
		if r.Do == ActRestore && r.Want != nil && (r.Want.Kind == ImageContent || r.Want.Kind == ImageLink) {
			files[r.Path] = true
		}
	}
	return files
}

// underAny reports whether d, or a folder above it, is in paths.
func underAny(paths map[string]bool, d string) bool {
	for a := d; a != "." && a != "/" && a != ""; a = path.Dir(a) {
		if paths[a] {
			return true
		}
	}
	return false
}

// offFiles drops from dirs, the folders an undo gives back (modes
// running parallel), those at or beneath a path in files (filesPut of
// its steps): the folders are made before the files are written, and
// one there would stand in the way of what the undo gives back.
func offFiles(files map[string]bool, dirs []string, modes []uint32) ([]string, []uint32) {
	if len(files) == 0 {
		return dirs, modes
	}
	parallel := len(modes) == len(dirs)
	var outDirs []string
	var outModes []uint32
	for i, d := range dirs {
		if underAny(files, d) {
			continue
		}
		outDirs = append(outDirs, d)
		if parallel {
			outModes = append(outModes, modes[i])
		}
	}
	return outDirs, outModes
}
