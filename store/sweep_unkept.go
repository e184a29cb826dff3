package store

import "github.com/ckpt-dev/ckpt/store/internal/record"

// Paths a sweep could not read or keep before a command: what they held
// is unknown, so a change of them is never recorded against a guessed
// pre-image. A folder that could not be listed stays in the baseline as
// unread (baseUnknown, its mode marked unlistedDir), so a path a later
// sweep finds in it is one that may have been there all along, not one
// the command made, which a rewind would delete.

// notKeptBefore says why what c's path held before the command was
// never kept: it could not be read (or found no room), or it is new in
// a folder that could not be listed, where it may well have been. ""
// when it was kept.
func notKeptBefore(c sweepChange, old *baseline) string {
	if c.old != nil {
		if c.old.kind == baseUnknown {
			return "it could not be read or kept before the command"
		}
		return ""
	}
	for _, d := range parents(c.now.path) {
		if e := old.find(d); e != nil && e.kind == baseUnknown {
			return "its folder " + d + " could not be read before the command"
		}
	}
	return ""
}

// unkeptRec is the record of a path whose bytes before the command were
// never kept (why): a turn holds it as not kept, so a rewind reports it
// as not restored instead of deleting what may have been there, and
// what the command left is its post. false when nothing moved.
func unkeptRec(c sweepChange, rel, why string, imgs map[string]Image) (shellRec, bool) {
	if c.old != nil && c.now != nil && c.old.mode == c.now.mode && c.old.size == c.now.size &&
		c.old.mtime == c.now.mtime && c.old.ctime == c.now.ctime && c.old.ino == c.now.ino {
		return shellRec{}, false // still as it was, unread
	}
	if c.old != nil && c.old.mode&unlistedDir != 0 && c.now != nil && (c.now.kind == baseDir || c.now.mode&unlistedDir != 0) {
		// A folder that could not be listed is one still: its mode was
		// known, what it held was not (its paths say so).
		was, is := c.old.mode&^unlistedDir, c.now.mode&^unlistedDir
		return shellRec{path: rel, pre: Image{Kind: ImageDir, Mode: record.PermMode(was)}, post: Image{Kind: ImageDir, Mode: record.PermMode(is)}}, was != is
	}
	r := shellRec{path: rel, pre: Image{Kind: ImageSkipped, Reason: why}}
	switch {
	case c.now == nil:
		r.post = Image{Kind: ImageAbsent}
	case c.now.kind == baseDir:
		r.post = Image{Kind: ImageDir, Mode: record.PermMode(c.now.mode)}
	case c.now.kind == baseUnknown:
		r.noPost = true
	case c.now.kind == 0:
		return shellRec{}, false // no longer a file, link or folder
	default:
		img, ok := imgs[rel]
		if !ok {
			r.noPost = true
		}
		r.post = img
	}
	return r, true
}
