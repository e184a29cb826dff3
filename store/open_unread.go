package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/ckpt-dev/ckpt/store/internal/format"
	"golang.org/x/sys/unix"
)

// A file whose mode keeps its owner from reading it (000, 0200: a
// command that edited a file and then ran `chmod 000` on it). ckpt
// running as that owner may still give it read permission, so a sweep,
// a capture and a rewind read it as any other: the file is noted first,
// durably, in the store's "shut-files" note, opened to its owner for
// reading, opened, and given its mode back at once; its bytes are read
// through the descriptor. The note is only written under
// shut-files.lock, held until the file has its mode back, so an entry
// whoever takes the lock finds is one a killed process left: the next
// command (or the next such read) gives that file its mode back. A file
// its owner is not ckpt's user stays unread, and is reported as such.

// unreadNote names the files whose mode ckpt is giving back.
const unreadNote = "shut-files"

// unreadLock is held by whoever writes unreadNote.
const unreadLock = "shut-files.lock"

// unreadNoteVersion is the newest version of the note this ckpt reads.
const unreadNoteVersion = 1

type unreadNoteJSON struct {
	V     int               `json:"v"`
	Files []unreadNoteEntry `json:"files"`
}

type unreadNoteEntry struct {
	Path  string `json:"path"`
	Mode  uint32 `json:"mode"` // permission bits before it was opened
	Ino   uint64 `json:"ino"`  // given back only while it is that file
	Tries int    `json:"tries,omitempty"`
}

// ownerCannotRead reports whether fi is a regular file this process owns
// (and is not root) whose mode keeps it from reading it.
func ownerCannotRead(fi fs.FileInfo) (ino uint64, ok bool) {
	st, isSt := fi.Sys().(*syscall.Stat_t)
	euid := os.Geteuid()
	if !isSt || euid == 0 || !fi.Mode().IsRegular() || int(st.Uid) != euid || fi.Mode().Perm()&0o400 != 0 {
		return 0, false
	}
	return uint64(st.Ino), true
}

// openUnread opens for reading name in r (rel in the project), the
// regular file fi whose open failed with denied (permission denied),
// when ckpt's user owns it: with read permission given for the open and
// its mode given back before it returns. Otherwise it returns denied.
func (s *Store) openUnread(r *os.Root, name, rel string, fi fs.FileInfo, denied error) (*os.File, error) {
	ino, ok := ownerCannotRead(fi)
	if !ok {
		return nil, denied
	}
	l, err := s.flock(unreadLock, unix.LOCK_EX)
	if err != nil {
		return nil, denied
	}
	defer l.unlock()
	s.giveBackUnread() // what a killed process left
	mode := uint32(fi.Mode().Perm())
	e := unreadNoteEntry{Path: rel, Mode: mode, Ino: ino}
	if err := s.writeUnreadNote([]unreadNoteEntry{e}); err != nil {
		s.LogError("%v", err)
		return nil, denied
	}
	fp := newFailpoint("open-unread")
	fp.hit()
	if err := r.Chmod(name, fs.FileMode(mode|0o400)); err != nil {
		s.dropUnreadNote()
		return nil, denied
	}
	fp.hit()
	f, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	fp.hit()
	var back error
	if failChmodBack() {
		back = &fs.PathError{Op: "chmod", Path: name, Err: fs.ErrPermission}
	} else {
		back = r.Chmod(name, fs.FileMode(mode))
	}
	if back != nil {
		w := shutWay{path: rel, mode: mode}
		if s.failedBack(&w, back) {
			e.Tries = w.tries
			if err := s.writeUnreadNote([]unreadNoteEntry{e}); err != nil {
				s.LogError("%v", err)
			}
		} else {
			s.dropUnreadNote()
		}
	} else {
		s.dropUnreadNote()
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// writeUnreadNote notes, durably, the files whose mode ckpt gives back.
func (s *Store) writeUnreadNote(files []unreadNoteEntry) error {
	if err := s.writeNote(unreadNote, unreadNoteJSON{V: unreadNoteVersion, Files: files}); err != nil {
		return errf("note the files it opens to read in %s: %w", s.path(unreadNote), err)
	}
	return nil
}

func (s *Store) dropUnreadNote() {
	if err := s.dir.Remove(unreadNote); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.LogError("remove %s: %v", s.path(unreadNote), err)
	}
}

// readUnreadNote reads the note; nil when there is none.
func (s *Store) readUnreadNote() (*unreadNoteJSON, error) {
	var n unreadNoteJSON
	if ok, err := s.readNote(unreadNote, &n); !ok {
		return nil, err
	}
	if err := format.CheckVersion(s.path(unreadNote), "note", n.V, unreadNoteVersion); err != nil {
		return nil, err
	}
	return &n, nil
}

// recoverUnread gives the files a killed ckpt left open to read their
// modes back, when the note says there are some.
func (s *Store) recoverUnread() {
	if _, err := s.dir.Lstat(unreadNote); err != nil {
		return
	}
	l, err := s.flock(unreadLock, unix.LOCK_EX)
	if err != nil {
		s.LogError("%v", err)
		return
	}
	defer l.unlock()
	s.giveBackUnread()
}

// giveBackUnread gives each file in the note its mode back, if it is
// still the file opened, with the mode it was opened to; one whose mode
// cannot be given back stays in the note, up to shutTriesMax commands.
// Caller holds unreadLock.
func (s *Store) giveBackUnread() {
	n, err := s.readUnreadNote()
	if n == nil && err == nil {
		return
	}
	if err != nil {
		s.LogError("%s cannot be read (%v); the files it names are left as they are", s.path(unreadNote), err)
		if !errors.Is(err, format.ErrNewerFormat) {
			s.dropUnreadNote()
		}
		return
	}
	var left []unreadNoteEntry
	var back []string
	for _, e := range n.Files {
		gave, err := s.giveUnreadBack(e)
		if err != nil {
			w := shutWay{path: e.Path, mode: e.Mode, tries: e.Tries}
			if s.failedBack(&w, err) {
				e.Tries = w.tries
				left = append(left, e)
			}
			continue
		}
		if gave {
			back = append(back, fmt.Sprintf("%s %03o", e.Path, e.Mode))
		}
	}
	if len(left) > 0 {
		if err := s.writeUnreadNote(left); err != nil {
			s.LogError("%v", err)
		}
	} else {
		s.dropUnreadNote()
	}
	if len(back) > 0 {
		s.tell(fmt.Sprintf("gave back the modes of the files ckpt had opened to read them (%s)", strings.Join(back, ", ")))
	}
}

// giveUnreadBack gives e's file its mode back if it is still the file
// noted, with the mode it was opened to (gave).
func (s *Store) giveUnreadBack(e unreadNoteEntry) (gave bool, err error) {
	rel, err := s.Rel(e.Path)
	if err != nil || !s.wayIsFolders(e.Path) {
		return false, nil
	}
	fi, err := s.root.Lstat(rel)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != permOnly(e.Mode|0o400) {
		return false, nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || uint64(st.Ino) != e.Ino {
		return false, nil
	}
	if err := s.chmodBack(rel, e.Mode); err != nil {
		return false, err
	}
	return true, nil
}
