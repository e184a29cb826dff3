package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
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
	Mode  uint32 `json:"mode"` // permission, setuid, setgid and sticky bits (as Go's fs.FileMode) before it was opened
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
	left := s.giveBackUnread() // what a killed process left, or a give-back that failed before
	mode := uint32(fi.Mode() & keptMode)
	e := unreadNoteEntry{Path: rel, Mode: mode, Ino: ino}
	if err := s.writeUnreadNote(append(left, e)); err != nil {
		s.LogError("%v", err)
		return nil, denied
	}
	fp := newFailpoint("open-unread")
	fp.hit()
	// Opened to its owner only while it is still the file fi was: the
	// chmod goes by name, and a file renamed over it since is not ours
	// to open up.
	if now, err := r.Lstat(name); err != nil || !os.SameFile(now, fi) || now.Mode() != fi.Mode() {
		s.keepUnreadNote(left)
		return nil, denied
	}
	if err := r.Chmod(name, fs.FileMode(mode|0o400)); err != nil {
		s.keepUnreadNote(left)
		return nil, denied
	}
	fp.hit()
	f, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err == nil {
		if got, serr := f.Stat(); serr != nil || !os.SameFile(got, fi) {
			_ = f.Close() // another file came in its place between the chmod and the open
			f, err = nil, denied
		}
	}
	fp.hit()
	var back error
	switch {
	case failChmodBack():
		back = &fs.PathError{Op: "chmod", Path: name, Err: fs.ErrPermission}
	case f != nil:
		back = f.Chmod(fs.FileMode(mode)) // the file opened, whatever its name holds now
		if back == nil {
			s.noteGrant(rel, fi, f)
		}
	default:
		_, back = s.giveUnreadBack(e)
	}
	if back != nil {
		w := shutWay{path: rel, mode: mode}
		if s.failedBack(&w, back) {
			e.Tries = w.tries
			left = append(left, e)
		}
	}
	s.keepUnreadNote(left)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// A read by openUnread moves the file's ctime twice, with its two
// chmods, after the sweep's listing took the stat the baseline keeps:
// the next sweep would find it changed, and read it (and move it)
// again. So a sweep's read notes the ctime the file has once its mode is
// back, and the sweep's baseline takes it, when the file is the one the
// listing saw. That ctime, ckpt's own, is the one ctime a racy entry's
// stat may leave out; the baseline says which are its own by leaving
// them out of its recheck list (see racy).

// grant is a file's stat around its read by openUnread: its inode,
// size and mtime, the same before and after, its ctime before it was
// opened to its owner and once its mode was back.
type grant struct {
	ino           uint64
	size, mtime   int64
	before, after int64
}

// grants holds, by path, the last grant of each file a sweep under way
// read, and the ctimes it settled. Only a sweep's own reads can settle:
// one made before its listing left a ctime the listing saw. So grants
// are noted only while a sweep runs, and dropped when it ends: what is
// held is bounded by one sweep's reads. It is safe for concurrent use.
type grants struct {
	mu       sync.Mutex
	sweeping int
	by       map[string]grant
	settled  map[string]int64 // path: the ctime the entry took
}

// begin starts a sweep's noting of grants; end ends it.
func (gs *grants) begin() {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	gs.sweeping++
}

func (gs *grants) end() {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if gs.sweeping--; gs.sweeping == 0 {
		gs.by, gs.settled = nil, nil
	}
}

func (gs *grants) note(rel string, g grant) {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if gs.sweeping == 0 {
		return
	}
	if gs.by == nil {
		gs.by = map[string]grant{}
	}
	gs.by[rel] = g
}

// settle gives e, the entry of a file a sweep just read, the ctime its
// read left, when that read was a grant that began from e's own stat:
// the same inode, size, mtime and ctime. A file changed between the
// listing and the read keeps the listing's ctime, and is read again.
func (gs *grants) settle(e *baseEntry) {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	g, ok := gs.by[e.path]
	delete(gs.by, e.path)
	if ok && e.ino == g.ino && e.size == g.size && e.mtime == g.mtime && e.ctime == g.before {
		e.ctime = g.after
		if gs.settled == nil {
			gs.settled = map[string]int64{}
		}
		gs.settled[e.path] = g.after
	}
}

// own reports whether the sweep under way gave e the ctime it has.
func (gs *grants) own(e *baseEntry) bool {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	c, ok := gs.settled[e.path]
	return ok && c == e.ctime
}

// ownCtimes says of an entry of the sweep's next baseline whether its
// ctime is ckpt's own read's: one the sweep's grants settled, or old's
// own as old has it still.
func (s *Store) ownCtimes(old *baseline) func(*baseEntry) bool {
	return func(e *baseEntry) bool {
		if e.kind == baseDir || e.mode&0o400 != 0 {
			return false
		}
		if s.grants.own(e) {
			return true
		}
		if old == nil {
			return false
		}
		o := old.find(e.path)
		return o != nil && o.sameStat(e) && o.sum == e.sum && old.ownCtime(o)
	}
}

// noteGrant notes the grant of rel, the file fi that f opened, now that
// its mode is back, when it is still fi: the same file (device and
// inode), size, mtime and mode.
func (s *Store) noteGrant(rel string, fi fs.FileInfo, f *os.File) {
	now, err := f.Stat()
	if err != nil || !os.SameFile(now, fi) || now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) || now.Mode() != fi.Mode() {
		return
	}
	st, ok1 := fi.Sys().(*syscall.Stat_t)
	nst, ok2 := now.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 {
		return
	}
	s.grants.note(rel, grant{ino: uint64(st.Ino), size: fi.Size(), mtime: fi.ModTime().UnixNano(), before: ctimeOf(st), after: ctimeOf(nst)})
}

// keptMode is the part of a file's mode a read given by openUnread gives
// back: its permission bits, and setuid, setgid and sticky.
const keptMode = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// keepUnreadNote leaves in the note the files in left, or removes it.
func (s *Store) keepUnreadNote(left []unreadNoteEntry) {
	if len(left) == 0 {
		s.dropUnreadNote()
		return
	}
	if err := s.writeUnreadNote(left); err != nil {
		s.LogError("%v", err)
	}
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
// cannot be given back stays in the note, up to shutTriesMax commands:
// those are left. Caller holds unreadLock.
func (s *Store) giveBackUnread() (left []unreadNoteEntry) {
	n, err := s.readUnreadNote()
	if n == nil && err == nil {
		return nil
	}
	if err != nil {
		s.LogError("%s cannot be read (%v); the files it names are left as they are", s.path(unreadNote), err)
		if !errors.Is(err, format.ErrNewerFormat) {
			s.dropUnreadNote()
		}
		return nil
	}
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
			back = append(back, fmt.Sprintf("%s %03o", e.Path, permOnly(e.Mode)))
		}
	}
	s.keepUnreadNote(left)
	if len(back) > 0 {
		s.tell(fmt.Sprintf("gave back the modes of the files ckpt had opened to read them (%s)", strings.Join(back, ", ")))
	}
	return left
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
	if failChmodBack() {
		return false, &fs.PathError{Op: "chmod", Path: rel, Err: fs.ErrPermission}
	}
	if err := s.root.Chmod(rel, fs.FileMode(e.Mode)&keptMode); err != nil {
		return false, err
	}
	return true, nil
}
