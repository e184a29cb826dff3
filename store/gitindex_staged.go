package store

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

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
// store's notes, or (with read) from git-index-staged or digested from
// its kept copy, and noted there; "" when not known.
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
	if d := s.digests.get(s, img.SHA256); d != "" {
		return d
	}
	indexCopyReads.Add(1)
	data, err := s.readBlobOf(*img)
	if err != nil {
		// No copy: git's index as it is now (a plan's or the log's
		// image of it), if the file still holds those bytes.
		if g, ok := openGit(s.root); ok {
			if k, err := s.indexStaged(g); err == nil && k.Image.SHA256 == img.SHA256 {
				return k.Staged
			}
		}
		return ""
	}
	d := "bytes:" + img.SHA256.String()
	if sd, err := gitindex.Staged(bytes.NewReader(data), int64(len(data))); err == nil {
		d = sd.String()
	}
	s.digests.put(s, img.SHA256, d)
	return d
}

// indexCopyReads counts the kept copies of git's index stagedOf read
// to digest: what TestUpgradedNotesReadIndexCopyOnce holds to once per
// copy, not once per hook.
var indexCopyReads atomic.Int64

// digestsFile holds, a line each, "<blob> <digest>": what each kept copy
// of git's index stages, so that the log, which asks of every turn that
// ran git whether it changed what the index stages, reads no copy twice
// (two 35 MB copies a turn at 300,000 files). A cache: lines are
// appended, a torn or unknown one is passed over, and past
// digestsMax lines the newest half is kept.
const (
	digestsFile = "git-index-staged"
	digestsMax  = 4096
)

// indexDigests is digestsFile as read, once per Store.
type indexDigests struct {
	mu     sync.Mutex
	loaded bool
	m      map[BlobID]string
	lines  []string // in the file's order
}

func (c *indexDigests) load(s *Store) {
	if c.loaded {
		return
	}
	c.loaded, c.m = true, map[BlobID]string{}
	b, err := s.dir.ReadFile(digestsFile)
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		id, d, ok := strings.Cut(line, " ")
		sum, err := ParseBlobID(id)
		if !ok || err != nil || !validDigest(d) {
			continue
		}
		c.m[sum] = d
		c.lines = append(c.lines, line)
	}
}

// validDigest says whether d is a digest stagedOf writes.
func validDigest(d string) bool {
	d = strings.TrimPrefix(d, "bytes:")
	_, err := hex.DecodeString(d)
	return len(d) == 64 && err == nil
}

func (c *indexDigests) get(s *Store, sum BlobID) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load(s)
	return c.m[sum]
}

func (c *indexDigests) put(s *Store, sum BlobID, d string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load(s)
	if c.m[sum] == d {
		return
	}
	c.m[sum] = d
	line := sum.String() + " " + d
	c.lines = append(c.lines, line)
	if len(c.lines) > digestsMax {
		c.lines = c.lines[len(c.lines)-digestsMax/2:]
		_ = storefs.WriteAtomic(s.dir, digestsFile, []byte(strings.Join(c.lines, "\n")+"\n"), 0o600, false)
		return
	}
	if f, err := s.dir.OpenFile(digestsFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err == nil {
		_, _ = f.Write([]byte(line + "\n")) // one write: whole beside another process's
		f.Close()
	}
}
