package store

import "github.com/ckpt-dev/ckpt/store/internal/record"

// A folder a command shut (`chmod 000 d`, `chmod 300 d`: its owner can
// no longer list it) after the last sweep listed it. What its files hold
// now cannot be seen, but what they held before is known: the baseline
// has each one's bytes kept. So the sweep records the folder's mode
// change, and each file and link the baseline knew in it with its
// pre-image and no post (what the command left is unknown): a rewind
// opens the folder, keeps what the files hold then, puts their bytes
// back and gives the folder its mode, and its undo gives back both. In
// the next baseline they are unread (baseUnknown, their stat kept), so
// once the folder opens again a file whose stat moved is one whose
// bytes before were never kept, and one whose stat did not is as it was.
// What the command made in the folder is not known, and the sweep says
// so.

// shutIn marks the old entry o (index i) in a folder the walk could not
// open any more: the change keeps a copy as it was, with its image, and
// the entry stands in the next baseline as unread.
func (m *sweepMerge) shutIn(o *baseEntry, i int) {
	was := *o
	m.changes = append(m.changes, sweepChange{old: &was, shut: true})
	o.kind, o.sum, o.link = baseUnknown, BlobID{}, ""
	m.touched = append(m.touched, int32(i))
}

// shutRec is the record of c, a path in a folder the command shut: its
// pre-image and no post.
func (s *Store) shutRec(c sweepChange) shellRec {
	return shellRec{path: c.old.path, pre: c.old.image(s.maxBlob), noPost: true}
}

// shutDirPost is the post-image of a folder that could not be listed
// after the command, and whether it has none: one the last sweep listed
// keeps its mode (the stat says it), and its files are recorded beside
// it (shutRec); one that was unread before has none.
func shutDirPost(c sweepChange, rel string, res *SweepResult) (Image, bool) {
	if c.old == nil || c.old.kind != baseDir {
		res.Problems = append(res.Problems, rel+": could not be listed after the command: what changed in it is not recorded")
		return Image{}, true
	}
	res.Problems = append(res.Problems, rel+": could not be listed after the command: its mode and what the files the last sweep saw in it held are recorded, which a rewind puts back, but not what the command made in it")
	return Image{Kind: ImageDir, Mode: record.PermMode(c.now.mode &^ unlistedDir)}, false
}
