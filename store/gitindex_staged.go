package store

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
	"github.com/ckpt-dev/ckpt/store/internal/gitindex"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// What git's index stages, digested. The sweep after every shell command
// asks whether git moved, and `git status` rewrites the whole index (35
// MB at 300,000 files) only to refresh the stat data git caches in it,
// which is no change of a turn's. So the question is asked of a digest of
// what the index stages (gitindex.Staged: a stream over the file, no
// copy of it, no hash of its bytes), noted with the index's stat: a
// command that left the index alone costs a stat, one that rewrote it a
// digest, and only one that staged or unstaged something a copy.

// sameStat says whether two notes are of the same index file: git
// writes a new file (a new inode) each time.
func (k gitIndexState) sameStat(o gitIndexState) bool {
	return k.Size == o.Size && k.MTime == o.MTime && k.Ino == o.Ino
}

// indexNote reads the note in name (gitIndexStateFile, gitIndexSeenFile).
func (s *Store) indexNote(name string) (gitIndexState, bool) {
	var k gitIndexState
	b, err := s.dir.ReadFile(name)
	return k, err == nil && json.Unmarshal(b, &k) == nil
}

// indexStaged is git's index file's stat and the digest of what it
// stages (Staged), from the store's notes when they know that stat, else
// read from the file and noted in git-index-seen. An index the digest
// cannot read (a split index, a version to come) is digested by its
// bytes: any rewrite of it then counts as a change, as before digests.
func (s *Store) indexStaged(g gitRepo) (gitIndexState, error) {
	f, err := g.open("index")
	if err != nil {
		return gitIndexState{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return gitIndexState{}, err
	}
	key := statKey(fi)
	for _, name := range []string{gitIndexStateFile, gitIndexSeenFile} {
		if k, ok := s.indexNote(name); ok && k.sameStat(key) && k.Staged != "" {
			return k, nil
		}
	}
	if d, err := gitindex.Staged(f, fi.Size()); err == nil {
		key.Staged = d.String()
	} else {
		data, err := io.ReadAll(io.NewSectionReader(f, 0, fi.Size()))
		if err != nil {
			return gitIndexState{}, err
		}
		key.Image = Image{Kind: ImageContent, SHA256: blob.Of(data), Size: int64(len(data))}
		key.Staged = "bytes:" + key.Image.SHA256.String()
	}
	if seen, ok := s.indexNote(gitIndexSeenFile); ok && seen.sameStat(key) && key.Image.SHA256.IsZero() {
		key.Image = seen.Image // hashed already (indexNow): keep it
	}
	if b, err := json.Marshal(key); err == nil {
		_ = storefs.WriteAtomic(s.dir, gitIndexSeenFile, b, 0o600, false)
	}
	return key, nil
}

// stagedOf is the digest of what the index img names stages: from the
// store's notes, or (with read) digested from its kept copy; "" when
// not known.
func (s *Store) stagedOf(img *Image, read bool) string {
	if img == nil || img.SHA256.IsZero() {
		return ""
	}
	for _, name := range []string{gitIndexStateFile, gitIndexSeenFile} {
		if k, ok := s.indexNote(name); ok && k.Image.SHA256 == img.SHA256 && k.Staged != "" {
			return k.Staged
		}
	}
	if !read {
		return ""
	}
	data, err := s.readBlobOf(*img)
	if err != nil {
		return ""
	}
	if d, err := gitindex.Staged(bytes.NewReader(data), int64(len(data))); err == nil {
		return d.String()
	}
	return "bytes:" + img.SHA256.String()
}
