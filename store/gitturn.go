package store

import (
	"bytes"
	"cmp"
	"encoding/json"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
	"github.com/ckpt-dev/ckpt/store/internal/gitindex"
	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// Git's state per turn. A turn's first record says where git stood as
// the turn began (HEAD's commit, its branch, git's index); each later
// header record that carries git's state says where it stood then: the
// sweep after each shell command writes one when git moved since the
// turn's last such record, and the turn's end (an agent's end-of-turn
// event, ckpt watch closing the turn, ckpt exec) writes one marked
// "end". What a turn did to git is the change from its start to its last
// such record; the newest turn, while it has not ended, is compared with
// git as it is now. So a turn is never given what git did between turns,
// nor what the next turn did, and a turn that recorded no later state
// (it ran no command that moved git) claims no change.

// gitState is where git stood at one moment: the commit HEAD named, its
// branch ("" detached) and an image of git's index file (nil: none).
type gitState struct {
	head, ref string
	index     *Image
	// staged digests what the index stages (see indexStaged); "" when not
	// known. The sweep after a command knows it, and maybe not index.
	staged string
}

// empty says nothing was recorded: no repository, a seed turn.
func (g gitState) empty() bool {
	return g.head == "" && g.ref == "" && g.index == nil && g.staged == ""
}

func indexSum(img *Image) string {
	if img == nil || img.SHA256.IsZero() {
		return ""
	}
	return img.SHA256.String()
}

// gitMoved says whether git moved from last, a state a turn recorded, to
// now: HEAD or its branch, or what the index stages, by the digests of
// both; where either digest is not known, the index's bytes decide.
func (s *Store) gitMoved(last, now gitState) bool {
	if last.head != now.head || last.ref != now.ref {
		return true
	}
	if none := now.index == nil && now.staged == ""; last.index == nil || none {
		return (last.index == nil) != none // an index came or went
	}
	was := cmp.Or(last.staged, s.stagedOf(last.index, true))
	if was != "" && now.staged != "" {
		return was != now.staged
	}
	return indexSum(last.index) != indexSum(now.index)
}

// moved says whether git moved from g to o: HEAD or its branch, or what
// the index stages (see stagedDiffers).
func (s *Store) moved(g, o gitState) bool {
	return g.head != o.head || g.ref != o.ref || s.stagedDiffers(g.index, o.index)
}

// stagedDiffers says whether two images of git's index stage different
// things: paths, modes, objects or stages. `git status`, an editor's git
// panel and git itself rewrite the index to refresh the stat data it
// caches, with nothing staged or unstaged, and that is no change a turn
// made. Where either cannot be read as an index, the bytes decide.
// Caller holds s.mu.
func (s *Store) stagedDiffers(a, b *Image) bool {
	if indexSum(a) == indexSum(b) {
		return false
	}
	if a == nil || b == nil {
		return true
	}
	key := [2]BlobID{a.SHA256, b.SHA256}
	if r, ok := s.cache.staged[key]; ok {
		return r
	}
	if da, db := s.stagedOf(a, true), s.stagedOf(b, true); da != "" && db != "" {
		return da != db // no map of 300,000 entries each, and kept for the next log
	}
	r := true
	if ea, err := s.indexEntries(*a); err == nil {
		if eb, err := s.indexEntries(*b); err == nil {
			r = len(gitindex.Changed(ea, eb)) > 0
		}
	}
	if s.cache.staged == nil {
		s.cache.staged = map[[2]BlobID]bool{}
	}
	s.cache.staged[key] = r
	return r
}

// indexEntries reads the entries of the index img names: its kept copy,
// or git's index file when that is what it holds now.
func (s *Store) indexEntries(img Image) ([]gitindex.Entry, error) {
	data, err := s.readBlobOf(img)
	if err != nil {
		g, ok := openGit(s.root)
		if !ok {
			return nil, err
		}
		if data, err = g.readFile("index"); err != nil {
			return nil, err
		}
		if blob.Of(data) != img.SHA256 {
			return nil, errf("git's index changed meanwhile")
		}
	}
	return gitindex.Read(data)
}

func (t *turn) gitStart() gitState { return gitState{head: t.head, ref: t.ref, index: t.index} }

// gitNow is where git stands now, the index hashed (not kept); ok is false
// outside a repository.
func (s *Store) gitNow() (gitState, bool) {
	g, ok := openGit(s.root)
	if !ok {
		return gitState{}, false
	}
	now := gitState{head: gitHead(s.root), ref: g.ref()}
	if img, err := s.indexNow(g); err == nil && img.Kind == ImageContent {
		img.Kept = false // only its hash (noteGitEnd keeps the bytes)
		now.index = &img
	}
	return now, true
}

// gitSeen is where git stands now, for the sweep after a command: HEAD,
// its branch and the digest of what the index stages, with the index's
// image only when a note knows it. Its bytes are not hashed: after a
// `git status` that rewrote the index this costs a digest of it, and
// after a command that left it alone a stat.
func (s *Store) gitSeen() (gitState, bool) {
	g, ok := openGit(s.root)
	if !ok {
		return gitState{}, false
	}
	now := gitState{head: gitHead(s.root), ref: g.ref()}
	if k, err := s.indexStaged(g); err == nil {
		now.staged = k.Staged
		if !k.Image.SHA256.IsZero() {
			img := k.Image
			img.Kept = false
			now.index = &img
		}
	}
	return now, true
}

// turnGit is what t did to git within itself: from its start to the last
// state its file recorded, or to now when t is the newest turn and has not
// ended. changed is false when they do not differ, or t recorded nothing.
func (s *Store) turnGit(t *turn, newest bool) (from, to gitState, changed bool) {
	from = t.gitStart()
	if from.empty() {
		return from, from, false
	}
	switch {
	case newest && !t.ended:
		now, ok := s.gitNow()
		if !ok {
			return from, from, false
		}
		to = now
	case t.gitEnd != nil:
		to = *t.gitEnd
	default:
		return from, from, false
	}
	return from, to, s.moved(from, to)
}

// gitChange is what the turns a plan undoes (ids, from t on) did to git,
// each within itself, or nil when none of them changed it. HEAD's from
// and to are where it pointed before t and where it points now: what a
// person moves back.
func (s *Store) gitChange(v *view, t *turn, ids []string) *GitChange {
	if t.gitStart().empty() {
		return nil
	}
	now, ok := s.gitNow()
	if !ok {
		return nil
	}
	c := &GitChange{FromRef: t.ref, FromCommit: t.head, ToRef: now.ref, ToCommit: now.head}
	newest := v.turns[len(v.turns)-1]
	for _, id := range ids {
		u := v.byID[id]
		if u == nil {
			continue
		}
		from, to, changed := s.turnGit(u, u == newest)
		if !changed {
			continue
		}
		c.Turns = append(c.Turns, u.id)
		if s.stagedDiffers(from.index, to.index) {
			c.IndexChanged = true
		}
		if from.head != to.head || from.ref != to.ref {
			c.MovedHead = true
		}
		if from.head != "" && to.head != "" && from.head != to.head && c.Commits >= 0 {
			if n := commitsBetween(s.rootPath, from.head, to.head); n < 0 {
				c.Commits = -1
			} else {
				c.Commits += n
			}
		}
	}
	if len(c.Turns) == 0 {
		return nil
	}
	return c
}

// gitBefore is git's state noted before a turn's first record: at a
// hook's turn's first sweep, before its first shell command ran (the
// turn's record is written after the command, when git may have moved),
// or, for ckpt watch, while no turn is open (Watch set): its next turn
// opens at its first change, recorded after that change.
type gitBefore struct {
	Turn  string `json:"turn"`
	Watch bool   `json:"watch,omitempty"`
	Head  string `json:"head"`
	Ref   string `json:"ref"`
	Index *Image `json:"index,omitempty"`
}

const (
	gitBeforeFile      = "git-before"
	gitBeforeWatchFile = "git-before-watch"
)

// noteGitBefore notes git's state for turn, at its first sweep.
func (s *Store) noteGitBefore(turn string) {
	s.writeGitBefore(gitBeforeFile, gitBefore{Turn: turn})
}

// NoteGitIdle notes where git stands now as the start of the next turn
// ckpt watch opens: it calls this while no turn of its is open.
func (s *Store) NoteGitIdle() {
	if err := s.ensureDirs(); err != nil {
		return
	}
	l, err := s.lock() // keepIndex keeps a blob: not while prune runs
	if err != nil {
		return
	}
	defer l.unlock()
	s.writeGitBefore(gitBeforeWatchFile, gitBefore{Watch: true})
}

func (s *Store) writeGitBefore(name string, g gitBefore) {
	g.Head, g.Ref, g.Index = s.gitTurnState()
	if g.Head == "" && g.Index == nil {
		_ = s.dir.Remove(name)
		return
	}
	b, err := json.Marshal(g)
	if err != nil {
		return
	}
	if was, err := s.dir.ReadFile(name); err == nil && bytes.Equal(was, b) {
		return // ckpt watch notes it at every quiet moment
	}
	_ = storefs.WriteAtomic(s.dir, name, b, 0o600, false)
}

// readGitBefore is the note in name, if any.
func (s *Store) readGitBefore(name string) (gitBefore, bool) {
	var g gitBefore
	b, err := s.dir.ReadFile(name)
	return g, err == nil && json.Unmarshal(b, &g) == nil
}

// appendTurnRecord appends the record that opens turn id's file, with
// where HEAD pointed and git's index as the turn began: as noted before
// it (see gitBefore), else as they are now (before its first write).
func (s *Store) appendTurnRecord(buf []byte, id, label string, source *Source, now, n int64) []byte {
	var head, ref string
	var index *Image
	if g, ok := s.readGitBefore(gitBeforeFile); ok && (g.Turn == id || strings.HasPrefix(id, g.Turn+".")) {
		head, ref, index = g.Head, g.Ref, g.Index
	} else if g, ok := s.readGitBefore(gitBeforeWatchFile); ok && source != nil && source.Agent == WatchAgent {
		head, ref, index = g.Head, g.Ref, g.Index
		_ = s.dir.Remove(gitBeforeWatchFile) // used: the next turn notes its own
	} else {
		head, ref, index = s.gitTurnState()
	}
	s.saveGitLast(id, gitState{head: head, ref: ref, index: index, staged: s.stagedOf(index, false)})
	return record.Append(buf, &record.Line{R: "turn", Turn: record.Turn{V: formatVersion, ID: id, Label: label, Source: source,
		Head: head, Ref: ref, Index: index}, At: now, N: n})
}

// gitLast is the store's note of the git state last recorded in a turn's
// file, so that the sweep after a command that left git alone (most)
// need not read the turn to know it has nothing to record.
type gitLast struct {
	Turn   string `json:"turn"`
	Head   string `json:"head"`
	Ref    string `json:"ref"`
	Index  string `json:"index"`            // the index's SHA-256
	Staged string `json:"staged,omitempty"` // the digest of what it stages
}

const gitLastFile = "git-last"

func (s *Store) saveGitLast(id string, g gitState) {
	last := gitLast{Turn: id, Head: g.head, Ref: g.ref, Index: indexSum(g.index), Staged: g.staged}
	if was, err := s.dir.ReadFile(gitLastFile); err == nil {
		if b, err := json.Marshal(last); err == nil && bytes.Equal(was, b) {
			return
		}
	}
	if b, err := json.Marshal(last); err == nil {
		_ = storefs.WriteAtomic(s.dir, gitLastFile, b, 0o600, false)
	}
}

// sameAsLast says whether g is the state last recorded for turn id: the
// same HEAD and branch, and an index that stages the same (by digest,
// else by the bytes' hash).
func (s *Store) sameAsLast(id string, g gitState) bool {
	var last gitLast
	b, err := s.dir.ReadFile(gitLastFile)
	if err != nil || json.Unmarshal(b, &last) != nil || last.Turn != id || last.Head != g.head || last.Ref != g.ref {
		return false
	}
	if last.Staged != "" && g.staged != "" {
		return last.Staged == g.staged
	}
	return last.Index == indexSum(g.index)
}

// CloseTurn records in turn's file where git stands as the turn ends:
// from then on what git does is no longer the turn's. Outside a git
// repository it does nothing.
func (s *Store) CloseTurn(turn TurnID) error {
	return s.noteGitEnd(string(turn), TurnMeta{}, true)
}

// noteGitEnd records where git stands now in turn asked's file (or the
// continuation its records go to) when that differs from the last state
// the turn recorded, and always with end, which marks the turn ended. A
// turn with no file yet (ckpt exec running only git) gets its first
// record, from the note of its first sweep, unless it is ending.
func (s *Store) noteGitEnd(asked string, meta TurnMeta, end bool) error {
	now, ok := s.gitSeen()
	if asked == "" || !ok || now.empty() || !end && s.sameAsLast(asked, now) {
		return nil
	}
	if err := s.ensureDirs(); err != nil {
		return err
	}
	l, id, t, exists, err := s.lockTurn(asked)
	if err != nil {
		return err
	}
	defer l.unlock()
	if exists {
		last := t.gitStart()
		if t.gitEnd != nil {
			last = *t.gitEnd
		}
		if !s.gitMoved(last, now) && (!end || t.ended) {
			s.saveGitLast(id, now)
			return nil
		}
	} else if g, ok := s.readGitBefore(gitBeforeFile); end || !ok || g.Turn != asked ||
		!s.gitMoved(gitState{head: g.Head, ref: g.Ref, index: g.Index}, now) {
		return nil // no turn to give it to, or git did not move since the turn's first sweep
	}
	if g, ok := openGit(s.root); ok {
		// Under the store's lock (prune waits): the index as the turn
		// ended is kept, so a revert can say what was staged after it.
		if img := s.keepIndex(g); img != nil {
			now.index = img
		}
	}
	ts := s.clock().UnixNano()
	n := s.nextSeq(ts, turnFileName(id))
	var buf []byte
	if !exists {
		buf = s.turnHeader(buf, asked, id, meta, ts, n)
	}
	buf = record.Append(buf, &record.Line{R: "turn", Turn: record.Turn{ID: id, Head: now.head, Ref: now.ref, Index: now.index, End: end}, At: ts, N: n})
	if err := s.appendTurn(id, buf, !exists); err != nil {
		return err
	}
	s.saveGitLast(id, now)
	return nil
}
