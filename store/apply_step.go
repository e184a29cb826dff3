package store

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"

	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// One step of an operation: the path put in its wanted state, whether
// the operation runs it for the first time or a recovery runs it again.

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
	case want.Kind == ImageFifo && now.Kind == ImageFifo:
		if want.Mode != 0 && now.Mode != want.Mode {
			dr, name := dirs.in(rel)
			if err := dr.Chmod(name, permOnly(want.Mode)); err != nil {
				return true, errf("set mode: %w", err)
			}
			fp.hit()
		}
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
	// A link, or a special file, is never written through; a link or a
	// named pipe is made where nothing stands.
	if now.Kind == ImageLink || now.Kind.Special() || (want.Kind == ImageLink || want.Kind == ImageFifo) && now.Kind != ImageAbsent {
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
	case ImageFifo:
		if err := mkfifoIn(dr, name, filepath.Join(s.rootPath, rel), want); err != nil {
			return errf("restore named pipe: %w", err)
		}
	case ImageContent:
		perm := permOnly(want.Mode)
		if want.Mode == 0 { // unknown (ModeZero is a known 000)
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

// removedFirst reports whether now is the state a step leaves half-way
// when it removes what stands at the path before making what it wants
// there (a folder where a file or link was, a link where anything was):
// the path is empty, and what stood there is kept, so the step goes on.
func removedFirst(now Image, before *Image, want Image) bool {
	return now.Kind == ImageAbsent && before != nil && before.Kind != ImageAbsent &&
		(want.Kind == ImageDir || want.Kind == ImageLink || want.Kind == ImageFifo || before.Kind == ImageLink || before.Kind.Special())
}
