package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// Git's state around the turns. A turn records, as it begins, where HEAD
// pointed (the commit, and the branch) and git's index file. The index is
// about 100 bytes a tracked file (30 MB at 300,000 files) and `git status`
// rewrites it, so its bytes are kept as a blob only when the file's stat
// changed since the last copy (gitIndexState remembers it); otherwise the
// turn names the last copy. Plans then say what the turns they undo did to
// git (HEAD moved, commits made, the index changed), and a rewind asked
// to (--git-index) puts the index file back under git's own index.lock
// protocol. Refs and objects are never changed: commits stay reachable
// through the reflog, and the plan names the command a person would run.

// GitChange is what the turns a plan undoes did to git, each within
// itself (from its start to its end; see gitturn.go): HEAD moved, commits
// made, the index changed. From and To are where HEAD pointed before the
// first of them and where it points now: what a person would move back.
type GitChange struct {
	FromRef, FromCommit string // "refs/heads/main" ("" detached), the commit
	ToRef, ToCommit     string
	// Commits counts the commits the turns made: for each, those reachable
	// from where HEAD pointed as it ended and not from where it pointed as
	// it began (git rev-list --count); -1 when git could not say.
	Commits      int
	IndexChanged bool     // a turn changed git's index
	MovedHead    bool     // a turn moved HEAD or switched its branch
	Turns        []string // the turns that changed git, oldest first
}

// HeadMoved says whether HEAD names another branch or commit than before
// the turns.
func (g *GitChange) HeadMoved() bool {
	return g != nil && (g.FromRef != g.ToRef || g.FromCommit != g.ToCommit)
}

// IndexStep is a plan's write of git's index file: what it holds now and
// what the plan puts there.
type IndexStep struct {
	Now, Want Image
}

// ErrIndexLocked means git's index.lock exists: git is running, or a git
// command died holding it. Nothing was changed.
var ErrIndexLocked = errors.New("store: git's index is locked (index.lock exists)")

// gitRepo is the project's git folder: where HEAD and the index are.
type gitRepo struct {
	root *os.Root
	dir  string // ".git" (inside the root), or the absolute gitdir of a worktree
}

// openGit finds the project's git folder; ok is false without one.
func openGit(root *os.Root) (gitRepo, bool) {
	fi, err := root.Lstat(".git")
	if err != nil {
		return gitRepo{}, false
	}
	if fi.IsDir() {
		return gitRepo{root: root, dir: ".git"}, true
	}
	b, err := root.ReadFile(".git")
	if err != nil {
		return gitRepo{}, false
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok || !filepath.IsAbs(dir) {
		return gitRepo{}, false
	}
	return gitRepo{root: root, dir: dir}, true
}

func (g gitRepo) inRoot() bool { return !filepath.IsAbs(g.dir) }

func (g gitRepo) name(n string) string { return filepath.Join(g.dir, n) }

func (g gitRepo) readFile(n string) ([]byte, error) {
	if g.inRoot() {
		return g.root.ReadFile(g.name(n))
	}
	return os.ReadFile(g.name(n))
}

func (g gitRepo) open(n string) (*os.File, error) {
	if g.inRoot() {
		return g.root.Open(g.name(n))
	}
	return os.Open(g.name(n))
}

func (g gitRepo) stat(n string) (fs.FileInfo, error) {
	if g.inRoot() {
		return g.root.Lstat(g.name(n))
	}
	return os.Lstat(g.name(n))
}

func (g gitRepo) create(n string) (*os.File, error) {
	flag := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if g.inRoot() {
		return g.root.OpenFile(g.name(n), flag, 0o644)
	}
	return os.OpenFile(g.name(n), flag, 0o644)
}

func (g gitRepo) rename(from, to string) error {
	if g.inRoot() {
		return g.root.Rename(g.name(from), g.name(to))
	}
	return os.Rename(g.name(from), g.name(to))
}

func (g gitRepo) link(from, to string) error {
	if g.inRoot() {
		return g.root.Link(g.name(from), g.name(to))
	}
	return os.Link(g.name(from), g.name(to))
}

func (g gitRepo) remove(n string) error {
	if g.inRoot() {
		return g.root.Remove(g.name(n))
	}
	return os.Remove(g.name(n))
}

// ref is the branch HEAD names ("refs/heads/main"), "" when detached.
func (g gitRepo) ref() string {
	b, err := g.readFile("HEAD")
	if err != nil {
		return ""
	}
	ref, _ := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: ")
	if !strings.HasPrefix(ref, "refs/") {
		return ""
	}
	return ref
}

// gitIndexState is the store's note of the last copy of git's index: the
// file's stat then, and the image of its bytes.
type gitIndexState struct {
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime"`
	Ino   uint64 `json:"ino"`
	Image Image  `json:"image"` // its SHA256 zero when the bytes were digested, not hashed
	// Staged is what the index stages, digested (see indexStaged); ""
	// when not known.
	Staged string `json:"staged,omitempty"`
}

const gitIndexStateFile = "git-index"

func statKey(fi fs.FileInfo) gitIndexState {
	k := gitIndexState{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		k.Ino = uint64(st.Ino) // git writes a new file each time: a new inode
	}
	return k
}

// gitTurnState is where HEAD points and git's index, for a turn's first
// record; all empty outside a git repository.
func (s *Store) gitTurnState() (head, ref string, index *Image) {
	g, ok := openGit(s.root)
	if !ok {
		return "", "", nil
	}
	return gitHead(s.root), g.ref(), s.keepIndex(g)
}

// keepIndex keeps git's index file as a blob unless the last copy stands
// for it, and returns the image of the copy; nil without an index or when
// it cannot be kept (the turn then just cannot put it back).
//
// The last copy stands for the index when the index's stat is the one it
// had then, and also when what the index stages is what the copy stages:
// `git status` and editors' git panels rewrite the whole index (35 MB at
// 300,000 files) to refresh the stat data git caches in it, and keeping
// each such rewrite would cost every turn after one a copy of it. Put
// back, the older copy stages the same; git finds its cached stat data
// stale and checks those files again, as it does after any checkout.
func (s *Store) keepIndex(g gitRepo) *Image {
	fi, err := g.stat("index")
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	key := statKey(fi)
	last, ok := s.indexNote(gitIndexStateFile)
	ok = ok && !last.Image.SHA256.IsZero() && s.hasBlob(last.Image.SHA256)
	if ok && last.sameStat(key) {
		img := last.Image
		return &img
	}
	now, err := s.indexStaged(g)
	if err == nil && ok && last.Staged != "" && now.Staged == last.Staged {
		img := last.Image
		return &img
	}
	img, at, err := s.keepIndexBytes(g)
	if err != nil {
		return nil
	}
	at.Image = img
	if at.sameStat(now) {
		at.Staged = now.Staged
	}
	if b, err := json.Marshal(at); err == nil {
		_ = storefs.WriteAtomic(s.dir, gitIndexStateFile, b, 0o600, false)
	}
	return &img
}

// keepIndexBytes reads git's index file and keeps it as a durable blob;
// at is the stat of the file read.
func (s *Store) keepIndexBytes(g gitRepo) (img Image, at gitIndexState, err error) {
	f, err := g.open("index")
	if err != nil {
		return Image{}, at, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Image{}, at, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return Image{}, at, err
	}
	sum := blob.Of(data)
	var scratch []byte
	wrote, err := s.putBlob(sum, data, nil, &scratch)
	if err != nil {
		return Image{}, at, err
	}
	if wrote {
		if err := s.syncBlobs([]BlobID{sum}, false); err != nil {
			return Image{}, at, err
		}
	}
	return Image{Kind: ImageContent, SHA256: sum, Size: int64(len(data)), Kept: true}, statKey(fi), nil
}

// indexNow is an image of git's index file as it is now: from the last
// copy's note when the stat is the same, else hashed.
func (s *Store) indexNow(g gitRepo) (Image, error) {
	fi, err := g.stat("index")
	if errors.Is(err, fs.ErrNotExist) {
		return Image{Kind: ImageAbsent}, nil
	}
	if err != nil {
		return Image{}, err
	}
	key := statKey(fi)
	for _, name := range []string{gitIndexStateFile, gitIndexSeenFile} {
		if last, ok := s.indexNote(name); ok && last.sameStat(key) && !last.Image.SHA256.IsZero() {
			return last.Image, nil
		}
	}
	data, err := g.readFile("index")
	if err != nil {
		return Image{}, err
	}
	key.Image = Image{Kind: ImageContent, SHA256: blob.Of(data), Size: int64(len(data))}
	if seen, ok := s.indexNote(gitIndexSeenFile); ok && seen.sameStat(key) {
		key.Staged = seen.Staged // digested already: keep it
	}
	if b, err := json.Marshal(key); err == nil {
		// The sweep after each command and the log of an open turn ask
		// again: hash a 30 MB index once per change, not per question.
		_ = storefs.WriteAtomic(s.dir, gitIndexSeenFile, b, 0o600, false)
	}
	return key.Image, nil
}

// gitIndexSeenFile notes the stat and hash of the index as last hashed
// without being kept (see indexNow).
const gitIndexSeenFile = "git-index-seen"

// commitsBetween counts the commits reachable from to and not from from,
// by asking git (walking packed objects is git's business); -1 when git
// cannot say (not installed, an object gone).
func commitsBetween(root, from, to string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "rev-list", "--count", from+".."+to)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0") // never rewrite the index meanwhile
	out, err := cmd.Output()
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(out)))
	if err != nil {
		return -1
	}
	return n
}

// indexStep plans putting git's index back to want.
func (s *Store) indexStep(want *Image, what string) (*IndexStep, error) {
	g, ok := openGit(s.root)
	if !ok {
		return nil, errf("%s: git's index: the project is not a git repository", what)
	}
	if want == nil || want.Kind != ImageContent {
		return nil, errf("%s: git's index was not recorded (a turn recorded by an older ckpt, or a repository with no index then)", what)
	}
	now, err := s.indexNow(g)
	if err != nil {
		return nil, errf("%s: read git's index: %w", what, err)
	}
	if now.SHA256 == want.SHA256 {
		return nil, nil // already as wanted
	}
	return &IndexStep{Now: now, Want: *want}, nil
}
