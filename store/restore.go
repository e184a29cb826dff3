package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// restoreDir makes rel a folder with want's mode. A file or link standing
// there (kept by the operation before it began) is removed first, so the
// files the folder held are written into it, never through a link. A mode
// that would lock ckpt out of the folder (000, 0500: no writing or no
// listing by its owner) is set in full only once the files in it are
// written (lockDirs); until then the folder is also its owner's to
// read, write and list.
func (s *Store) restoreDir(rel string, now, want Image, dirs *dirCache, fp *failpoint) error {
	dr, name := dirs.in(rel)
	perm := permOnly(want.Mode)
	if want.Mode == 0 {
		perm = dirMode // unknown
	}
	perm |= 0o700
	if now.Kind != ImageDir {
		if now.Kind != ImageAbsent {
			if err := dr.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return errf("restore folder: remove what is there: %w", err)
			}
			fp.hit()
		}
		if d := path.Dir(rel); d != "." {
			if err := s.root.MkdirAll(d, 0o755); err != nil {
				return errf("create folder %s: %w", d, err)
			}
		}
		if err := s.root.Mkdir(rel, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return errf("restore folder: %w", err)
		}
	}
	// The umask must not change a kept mode.
	if err := s.root.Chmod(rel, perm); err != nil {
		return errf("set mode: %w", err)
	}
	fp.hit()
	return nil
}

// locksOut reports whether a folder of mode want is one its owner cannot
// write into or list: restoreDir leaves it open until lockDirs.
func locksOut(want Image) bool {
	return want.Kind == ImageDir && want.Mode != 0 && permOnly(want.Mode)&0o700 != 0o700
}

// lockDirs gives the folders an operation made or restored with a mode
// that locks their owner out (locksOut) that mode, once everything in
// them is written: the deepest first, so each is still reached through
// its parents. recs are sorted by path; a step that failed (errs) is
// left as it is, and an error here becomes its step's.
func (s *Store) lockDirs(recs []record.Line, errs []error, fp *failpoint) {
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if r.Do != ActRestore || r.Want == nil || !locksOut(*r.Want) || errs[i] != nil {
			continue
		}
		rel, err := s.Rel(r.Path)
		if err != nil {
			continue // refused when the step ran
		}
		if fi, err := s.root.Lstat(rel); err != nil || !fi.IsDir() || !s.wayIsFolders(r.Path) {
			continue
		}
		if err := s.root.Chmod(rel, permOnly(r.Want.Mode)); err != nil {
			errs[i] = errf("set mode: %w", err)
			continue
		}
		fp.hit()
	}
}

// writeInPlace rewrites an existing file's bytes without making a new
// file, which on ext4 spares the flush a rename over a file forces: only a
// regular file with no other hard link (writing through one would change a
// file elsewhere, maybe outside the root) that opens for writing as the
// very file looked at, and only once reserve has made sure the bytes fit.
// It reports false, having written nothing, when the file does not
// qualify. It writes over the old bytes and then cuts the file to length,
// rather than truncating it to zero first: ext4 flushes a file truncated
// to zero when it is closed.
//
// The bytes go down in two writes with a failpoint between them, so the
// crash tests also kill a rewrite half-way, the state cutShort recognises.
func writeInPlace(r *os.Root, name string, data []byte, perm fs.FileMode, fp *failpoint) (bool, error) {
	if storefs.HasHole(data) {
		return false, nil // written anew, its holes left as holes
	}
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
	if err != nil || !os.SameFile(fi, ofi) || links(ofi) != 1 || !storefs.Reserve(f, int64(len(data))) {
		return false, nil
	}
	if storefs.WriteFault != nil {
		if err := storefs.WriteFault(name); err != nil {
			_, _ = f.WriteAt(data[:len(data)/2], 0)
			return true, &fs.PathError{Op: "write", Path: name, Err: err}
		}
	}
	// One write; in two halves only where a crash test kills the process
	// between them, to leave the torn file a recovery must finish.
	half := len(data)
	if fp.armed() {
		half /= 2
	}
	if _, err := f.WriteAt(data[:half], 0); err != nil {
		return true, err
	}
	if half < len(data) {
		fp.hit()
		if _, err := f.WriteAt(data[half:], int64(half)); err != nil {
			return true, err
		}
	}
	// The file is at least as long as data now: it is cut only if it is
	// longer (it was, or it grew since), and its mode set only if it
	// differs, each a journal entry saved on most files of a rewind.
	if now, err := f.Stat(); err != nil || now.Size() != int64(len(data)) {
		if err := f.Truncate(int64(len(data))); err != nil {
			return true, err
		}
	}
	if ofi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != perm {
		if err := f.Chmod(perm); err != nil {
			return true, err
		}
	}
	return true, f.Close()
}

func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}

// putBack writes was (what the step found, kept as a blob before anything
// changed) back at name, beside it and renamed over it.
func (s *Store) putBack(r *os.Root, name string, was Image) {
	if was.Kind != ImageContent {
		return
	}
	perm := permOnly(was.Mode)
	if was.Mode == 0 {
		perm = 0o644
	}
	if was.Size > inMemMax {
		_ = s.restoreStream(r, name, was, perm) // best effort: the caller reports the write that failed
		return
	}
	if data, err := s.readBlobOf(was); err == nil {
		_ = writeReplace(r, name, data, perm) // best effort, as above
	}
}

// writeReplace writes a new file beside name and renames it over name,
// which replaces a link or a read-only file without writing through it.
// The temporary name is fixed per path, so a recovery removes a leftover.
func writeReplace(r *os.Root, name string, data []byte, perm fs.FileMode) error {
	if storefs.HasHole(data) {
		// A sparse file (a disk image, a preallocated database) comes
		// back taking the room it took, not its whole length.
		return storefs.WriteReplaceFrom(r, name, bytes.NewReader(data), perm)
	}
	tmp := storefs.ReplaceTmp(name)
	err := storefs.WriteVia(r, tmp, name, data, perm, false, true)
	if errors.Is(err, fs.ErrExist) {
		// A leftover of a write cut short: the create is exclusive, so
		// nothing is written through whatever stands there.
		r.Remove(tmp)
		err = storefs.WriteVia(r, tmp, name, data, perm, false, true)
	}
	return err
}

// tmpErr drops the temporary file's name from a write error: the reason
// (a full disk, an I/O error) is about the path being restored, which the
// caller names.
func tmpErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Path, ".ckpt-tmp-") {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// cutShort reports whether a file holds what a rewrite in place that was
// killed part-way leaves: writeInPlace writes want's bytes over before's
// from the start and cuts the file to length last, so such a file is a
// prefix of want's bytes followed by the rest of before's, at least as long
// as before. Both are kept as blobs, so finishing the write loses nothing;
// bytes of any other shape were written by someone else, and are left
// alone. data is the file's bytes (nil when too big to have been written in
// place).
func (s *Store) cutShort(now Image, data []byte, before *Image, want Image) bool {
	if before == nil || before.Kind != ImageContent || want.Kind != ImageContent ||
		now.Kind != ImageContent || data == nil || want.Size > inMemMax ||
		now.Size < before.Size || now.Size > max(before.Size, want.Size) {
		return false
	}
	a, err := s.readBlobOf(want)
	if err != nil {
		return false
	}
	b, err := s.readBlobOf(*before)
	if err != nil {
		return false
	}
	return tornMix(data, a, b)
}

// tornMix reports whether d is a[:k] followed by b[k:len(d)] for some k,
// with len(d) the larger of len(b) and k: the bytes of a write of a over b
// in place, cut short after k bytes.
func tornMix(d, a, b []byte) bool {
	if len(d) < len(b) {
		return false
	}
	k := 0 // the longest prefix of d that a holds
	for k < len(d) && k < len(a) && d[k] == a[k] {
		k++
	}
	if len(d) > len(b) {
		return k == len(d) // written past b's end: all of d is a's
	}
	j := len(d) // the start of the longest suffix of d that b holds
	for j > 0 && d[j-1] == b[j-1] {
		j--
	}
	return j <= k
}

// holdsBefore reports whether now is what the step found before it acted
// (a folder it found in the way counts as gone: the operation removes it).
func holdsBefore(now Image, before *Image) bool {
	if before == nil {
		return true
	}
	return sameBytes(now, *before) || notFile(*before) && now.Kind == ImageAbsent
}

// mkfifoIn makes a named pipe at name inside r, which is abs, with
// want's mode (0644 when unknown), whatever the umask.
func mkfifoIn(r *os.Root, name, abs string, want Image) error {
	perm := permOnly(want.Mode)
	if want.Mode == 0 {
		perm = 0o644
	}
	dir, base := path.Split(name)
	if dir = strings.TrimSuffix(dir, "/"); dir == "" {
		dir = "."
	}
	d, err := r.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := mkfifoat(d, base, abs, uint32(perm)); err != nil {
		return &fs.PathError{Op: "mkfifo", Path: name, Err: err}
	}
	return r.Chmod(name, perm)
}

// specialGone says why a special file of kind k is not made again.
func specialGone(k ImageKind) string {
	if k == ImageSocket {
		return "it was a socket, which only the program listening on it can make again"
	}
	return "it was a device node, which ckpt does not make again"
}
