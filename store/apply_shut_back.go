package store

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/ckpt-dev/ckpt/store/internal/format"
)

// Giving an opened folder its mode back can fail (a folder made
// immutable meanwhile, say). The note then keeps that folder, marked with
// the commands that tried, and the next command tries again, until
// shutTriesMax commands have: a folder that can never be given its mode
// makes no command fail, and the error log names it when the first try
// fails and when ckpt gives up.

// shutTriesMax bounds the commands that try to give one folder its mode
// back; past it the folder is left open and the note forgets it.
const shutTriesMax = 8

// triedBack holds the paths (after their root) whose failed try this
// process has counted: a command that opens the store many times (doctor
// does, once per agent) is one try, not one per Open.
var triedBack sync.Map

// chmodBack gives the folder rel the permission bits mode.
func (s *Store) chmodBack(rel string, mode uint32) error {
	if failChmodBack() {
		return &fs.PathError{Op: "chmod", Path: rel, Err: fs.ErrPermission}
	}
	return s.root.Chmod(rel, permOnly(mode))
}

// giveBack gives w its mode back if it is still a folder as it was
// opened (gave); one removed, or given another mode, is left as it is.
func (s *Store) giveBack(w shutWay) (gave bool, err error) {
	rel, ok := s.wayRel(w.path)
	if !ok {
		return false, nil
	}
	fi, err := s.root.Lstat(rel)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != permOnly(w.mode)|0o700 {
		return false, nil
	}
	if err := s.chmodBack(rel, w.mode); err != nil {
		return false, err
	}
	return true, nil
}

// failedBack counts a failed try to give w its mode back and reports
// whether the note should keep it for the next command.
func (s *Store) failedBack(w *shutWay, err error) bool {
	if _, again := triedBack.LoadOrStore(s.rootPath+"\x00"+w.path, true); again && w.tries > 0 {
		return true // this command counted its try already
	}
	w.tries++
	w.back = true // whoever logged the operation, nothing else gives it back
	switch {
	case w.tries >= shutTriesMax:
		s.LogError("gave up giving %s back its mode %03o after %d tries (%v): it is left open to its owner", w.path, w.mode, w.tries, err)
		return false
	case w.tries == 1:
		s.LogError("give %s back its mode %03o: %v; the next commands try again", w.path, w.mode, err)
	}
	return true
}

// dropShutNote removes the note once the folders it names are the
// operation's steps' (it is logged) or have their modes back.
func (s *Store) dropShutNote() {
	if err := s.dir.Remove(shutNote); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.LogError("remove %s: %v", s.path(shutNote), err)
	}
}

// closeShut gives the folders openShut opened their modes back, the
// deepest first. A folder the operation removed, or gave another mode,
// is left as it is. The note then keeps only the folders whose mode could
// not be given back.
func (s *Store) closeShut(opened []shutWay) {
	var left []shutWay
	for _, w := range slices.Backward(opened) {
		if _, err := s.giveBack(w); err != nil && s.failedBack(&w, err) {
			left = append(left, w)
		}
	}
	if len(left) == 0 {
		s.dropShutNote()
		return
	}
	op := "?"
	if n, err := s.readShutNote(); err == nil && n != nil && n.Op != "" {
		op = n.Op
	}
	slices.Reverse(left) // outermost first
	if err := s.writeShutNote(op, left); err != nil {
		s.LogError("%v", err)
	}
}

// leaveShut ends an operation that opened folders: one that returns
// before it is logged gives them their modes back (closeShut); once it
// is logged, its steps give theirs, and it gives back only those no step
// names.
func (s *Store) leaveShut(opened []shutWay, logged bool) {
	if logged {
		opened = slices.DeleteFunc(slices.Clone(opened), func(w shutWay) bool { return !w.back })
	}
	s.closeShut(opened)
}

// hasShutNote says whether a killed operation may have left folders
// open.
func (s *Store) hasShutNote() bool {
	_, err := s.dir.Lstat(shutNote)
	return err == nil
}

// readShutNote reads the note; nil when there is none.
func (s *Store) readShutNote() (*shutNoteJSON, error) {
	var n shutNoteJSON
	if ok, err := s.readNote(shutNote, &n); !ok {
		return nil, err
	}
	return &n, nil
}

// withLeft adds to todo the folders the note keeps because their modes
// could not be given back (closeShut, recoverShut), with the modes they
// had, so that the note of this operation keeps them and its end tries
// again.
func (s *Store) withLeft(todo []shutWay) []shutWay {
	n, err := s.readShutNote()
	if err != nil || n == nil {
		return todo
	}
	for _, f := range n.Folders {
		if f.Tries == 0 {
			continue
		}
		w := shutWay{path: f.Path, mode: f.Mode, back: true, tries: f.Tries}
		if i := slices.IndexFunc(todo, func(t shutWay) bool { return t.path == f.Path }); i >= 0 {
			todo[i] = w
		} else {
			todo = append(todo, w)
		}
	}
	return todo
}

// recoverShut gives the folders a killed operation opened (shutNote)
// their modes back, the deepest first, when the operation was never
// logged (or was abandoned): nothing else would. A logged operation's
// steps gave them theirs. A folder whose mode is no longer the one it
// was opened to is left as it is; one whose mode cannot be given back
// stays in the note for the next command (failedBack). Caller holds both
// locks, after the logged operations were finished.
func (s *Store) recoverShut() error {
	n, err := s.readShutNote()
	if n == nil && err == nil {
		return nil
	}
	if err == nil {
		if verr := format.CheckVersion(s.path(shutNote), "note", n.V, shutNoteVersion); verr != nil {
			return verr
		}
	}
	if err != nil || n.Op == "" {
		s.LogError("%s cannot be read (%v); the folders it names are left as they are", s.path(shutNote), err)
		s.dropShutNote()
		return nil
	}
	s.mu.Lock()
	ops, err := s.readOps()
	s.mu.Unlock()
	if err != nil {
		return err
	}
	logged := false
	for _, o := range ops {
		logged = logged || o.id == n.Op && !o.abandoned
	}
	var back, again []string
	var left []shutWay
	for _, f := range slices.Backward(n.Folders) {
		if logged && !f.Back {
			continue // its step gave it its mode
		}
		w := shutWay{path: f.Path, mode: f.Mode, back: f.Back, tries: f.Tries}
		gave, err := s.giveBack(w)
		switch {
		case err != nil:
			if s.failedBack(&w, err) {
				left = append(left, w)
			}
		case gave && f.Tries > 0:
			again = append(again, fmt.Sprintf("%s %03o", f.Path, f.Mode))
		case gave:
			back = append(back, fmt.Sprintf("%s %03o", f.Path, f.Mode))
		}
	}
	if len(left) > 0 {
		slices.Reverse(left)
		if err := s.writeShutNote(n.Op, left); err != nil {
			return err
		}
	} else if err := s.dir.Remove(shutNote); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errf("remove %s: %w", s.path(shutNote), err)
	}
	if len(back) > 0 {
		s.tell(fmt.Sprintf("%s was interrupted: gave back the modes of the folders it had opened to change what is in them (%s)", n.Op, strings.Join(back, ", ")))
	}
	if len(again) > 0 {
		s.tell(fmt.Sprintf("gave back the modes of the folders %s could not give back when it ended (%s)", n.Op, strings.Join(again, ", ")))
	}
	return nil
}

// tell writes msg to the error log and through Options.Notify.
func (s *Store) tell(msg string) {
	s.LogError("%s", msg)
	if s.notify != nil {
		s.notify(msg)
	}
}

// LeftOpen is a folder, or a file, that ckpt opened to its owner and
// has not given its mode back yet: one whose mode could not be given
// back (made immutable meanwhile, say), which later commands try again.
type LeftOpen struct {
	Path string      // relative to the root; "." the root itself
	File bool        // a file opened to be read; else a folder
	Mode fs.FileMode // the permission bits it gets back
	Op   string      // the operation that opened a folder
	// Tries counts the commands that failed to give it its mode back;
	// Left, those that will still try before ckpt gives up.
	Tries, Left int
}

// LeftOpen lists the folders and files the store's notes (shut-folders,
// shut-files) say are still open to their owner. Open gives back what a
// killed ckpt left, so what is left is what could not be given back.
func (s *Store) LeftOpen() ([]LeftOpen, error) {
	var out []LeftOpen
	n, err := s.readShutNote()
	if err != nil {
		return nil, errf("read %s: %w", s.path(shutNote), err)
	}
	if n != nil {
		for _, f := range n.Folders {
			out = append(out, LeftOpen{Path: f.Path, Mode: permOnly(f.Mode), Op: n.Op, Tries: f.Tries, Left: max(shutTriesMax-f.Tries, 0)})
		}
	}
	u, err := s.readUnreadNote()
	if err != nil {
		return nil, errf("read %s: %w", s.path(unreadNote), err)
	}
	if u != nil {
		for _, f := range u.Files {
			out = append(out, LeftOpen{Path: f.Path, File: true, Mode: permOnly(f.Mode), Tries: f.Tries, Left: max(shutTriesMax-f.Tries, 0)})
		}
	}
	return out, nil
}
