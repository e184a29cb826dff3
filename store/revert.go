package store

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ckpt-dev/ckpt/merge"
)

// KindRevert is an operation that took turns' changes out of the folder
// as it was, keeping what came after them.
const KindRevert Kind = "revert"

// StateReverted is a turn whose every path a revert in effect took out.
const StateReverted State = "reverted"

// ErrReverted means a revert was asked of a turn a revert in effect
// already took out, with nothing left in conflict to retry.
var ErrReverted = fmt.Errorf("store: turn is already reverted")

// LineRange is lines [Start, End] of a file, 1-based and inclusive.
type LineRange struct{ Start, End int }

// Conflict is a path a revert could not merge, and where.
type Conflict struct {
	Path string `json:"path"`
	// Lines are the ranges in conflict, in the file as it is now; empty
	// for a file merged whole (binary, over the diff limit, a link, a
	// file created or deleted).
	Lines []LineRange `json:"lines"`
}

// RevertOptions chooses what PlanRevert takes out and how it meets a
// conflict.
type RevertOptions struct {
	// Session, when set, reverts every active turn of that agent session
	// (Source.Session) instead of one turn.
	Session string
	// Markers writes diff3 markers into a conflicting text file instead of
	// leaving it as it is.
	Markers bool
	// Keep lists paths left as they are now (relative or absolute).
	Keep []string
	// GitIndex also puts git's index file back as it was before the
	// (first) turn, under git's index.lock, dropping what was staged
	// since (Plan.IndexDrops names it); an undo gives it back.
	GitIndex bool
	// KeepHunks keeps hunks of files as they are now, the rest of each
	// file reverted (see HunkKeep).
	KeepHunks []HunkKeep
}

// mergeLimit is the largest file merged by lines; larger ones, as in the
// diff view, are merged whole-file only.
const mergeLimit = 8 << 20

// PlanRevert plans taking turn's change (or, with opt.Session, every
// active turn of one session) out of the folder as it is now, keeping
// every later change: per path a three-way merge of what the turn left,
// the disk now and the turn's pre-image. A path whose later changes touch
// the turn's lines is a conflict: a failed step left as it is (the
// step's Conflicts say where), or with opt.Markers a file written with
// diff3 markers. Planning the same revert again after one that left
// conflicts retries just those paths (Plan.Retry).
//
// Merged bytes are not in the store until Apply keeps them; ReadImage
// gives them meanwhile, for a preview, until the next plan.
func (s *Store) PlanRevert(turn string, opt RevertOptions) (*Plan, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	p, err := s.planRevert(v, turn, opt)
	if err == nil {
		s.keepPlanned(p.merged)
	}
	return p, err
}

func (s *Store) planRevert(v *view, id string, opt RevertOptions) (*Plan, error) {
	p := &Plan{Kind: KindRevert, Target: id, Session: opt.Session, Markers: opt.Markers}
	what := "turn " + id
	if opt.Session != "" {
		what = "session " + opt.Session
		p.Target = ""
	}
	keep := map[string]bool{}
	for _, k := range opt.Keep {
		rel, err := s.Rel(k)
		if err != nil {
			return nil, errf("--except: %w", err)
		}
		keep[rel] = true
	}
	turns, err := s.revertTurns(v, id, opt.Session)
	if err != nil {
		return nil, err
	}
	// A retry: the revert in effect of these turns left paths in conflict
	// or kept them (--except).
	var only map[string]bool
	if a := v.revertOf(turns, opt.Session); a != nil {
		left := v.revertOpen(*a)
		if len(left) == 0 {
			return nil, errf("revert %s: %s is already reverted by %s; `ckpt undo` brings it back: %w", what, what, a.rewind.id, ErrReverted)
		}
		p.Retry = a.via.id
		only = map[string]bool{}
		for _, p := range left {
			only[p] = true
		}
		turns = a.rewind.turns
	} else if len(turns) == 0 {
		return nil, errf("revert %s: no active turn of it is left to revert: %w", what, ErrUnknownTurn)
	}
	p.Turns = turns
	shared := sharedPaths(v, turns)
	byPath, refused := revertRecords(v, turns, only)
	writtenDuring(v, byPath, turns)
	paths := make([]string, 0, len(byPath))
	for path := range byPath {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	hand := s.handRule(v)
	p.merged = map[BlobID][]byte{}
	for _, path := range paths {
		st := s.revertStep(v, path, byPath[path], shared[path], turns, opt.Markers, p.merged)
		st.HandEdited = st.Do != ActFail && hand(path, st.Now)
		if keep[path] {
			st.Do, st.Reason, st.Conflicts = ActLeave, "", nil
		}
		p.Steps = append(p.Steps, st)
	}
	for path, why := range refused {
		if only == nil || only[path] {
			p.Steps = append(p.Steps, Step{Path: path, Do: ActFail, Reason: why})
		}
	}
	sort.SliceStable(p.Steps, func(i, j int) bool { return p.Steps[i].Path < p.Steps[j].Path })
	for k := range keep {
		i := sort.Search(len(p.Steps), func(i int) bool { return p.Steps[i].Path >= k })
		if i == len(p.Steps) || p.Steps[i].Path != k {
			return nil, &NotTouchedError{Path: k, Kind: KindRevert}
		}
		p.Keep = append(p.Keep, k)
	}
	sort.Strings(p.Keep)
	if len(turns) > 0 {
		p.Warnings = s.warnings(v, v.byID[turns[0]])
	}
	if err := s.keepHunks(p, opt.KeepHunks); err != nil {
		return nil, err
	}
	if err := s.revertGit(v, p, opt.GitIndex); err != nil {
		return nil, err
	}
	p.ID = p.digest()
	return p, nil
}

// revertTurns are the turns a revert takes out, oldest first: the one
// named, or every active turn of the session. A turn rewound is not the
// revert's to take out; one reverted already counts (a retry finds it).
func (s *Store) revertTurns(v *view, id, session string) ([]string, error) {
	if session == "" {
		t := v.byID[id]
		if t == nil {
			return nil, errf("revert %q: %w", id, ErrUnknownTurn)
		}
		if v.rewound[t.id] {
			return nil, errf("revert %s: the turn is rewound; `ckpt undo` brings it back: %w", id, ErrRewound)
		}
		return []string{t.id}, nil
	}
	var out []string
	known := false
	for _, t := range v.turns {
		if t.source == nil || t.source.Session != session {
			continue
		}
		known = true
		if !v.rewound[t.id] {
			out = append(out, t.id)
		}
	}
	if !known {
		return nil, errf("revert --session %q: no turn of that session: %w", session, ErrUnknownTurn)
	}
	return out, nil
}

// revertOf is the newest revert in effect of exactly these turns (or of
// this session), if any.
func (v *view) revertOf(turns []string, session string) *application {
	for i := len(v.undo) - 1; i >= 0; i-- {
		a := &v.undo[i]
		if a.rewind.kind != KindRevert || v.suspended(i) {
			continue
		}
		if session != "" && a.rewind.session == session {
			return a
		}
		if session == "" && a.rewind.session == "" && len(turns) == 1 && contains(a.rewind.turns, turns[0]) {
			return a
		}
	}
	return nil
}

// version is one state of a path while a revert works it out: its image
// and, for a file merged by lines, its bytes.
type version struct {
	img  Image
	data []byte
	text bool // data holds the bytes, and they can be merged by lines
}

// revertStep works out one path from the turns' records of it, ch: their
// changes taken out of the disk now, the one observed last first; if
// that meets a conflict, the turns' changes taken out as one (the
// pre-image observed first against the newest seal), which may merge
// where the steps one by one did not.
func (s *Store) revertStep(v *view, path string, ch revertChain, shared []string, turns []string, markers bool, keep map[BlobID][]byte) Step {
	files := ch.files
	img, data, err := s.readIn(s.root, path, path)
	if err != nil {
		return Step{Path: path, Do: ActFail, Reason: "not touched: " + err.Error()}
	}
	st := Step{Path: path, Now: img}
	if img.Kind == ImageOther {
		st.Do, st.Reason = ActFail, "not touched: it "+img.Reason+" now"
		return st
	}
	if len(shared) > 0 {
		st.Do, st.Reason = ActFail, "conflict: a command of another session changed it at the same time (the change is turn "+strings.Join(shared, ", ")+"'s too), so it is not this turn's alone to take out"
		st.Conflicts = []LineRange{}
		return st
	}
	if len(ch.during) > 0 {
		st.Do, st.Reason = ActFail, "conflict: turn "+strings.Join(ch.during, ", ")+" wrote it while this turn's write was under way, so what this turn recorded holds that change too and is not this turn's alone to take out"
		st.Conflicts = []LineRange{}
		return st
	}
	now := version{img: img}
	if img.Kind == ImageContent && (data != nil || img.Size == 0) && img.Size <= mergeLimit && bytes.IndexByte(data, 0) < 0 {
		now.data, now.text = data, true
	}
	label := "turn " + turns[len(turns)-1]
	if len(turns) > 1 {
		label = "turns " + strings.Join(turns, ",")
	}
	for _, u := range ch.back {
		r := s.revertOne(&tfile{path: path, pre: *u.post, post: &u.pre}, now, label, false)
		if r.fail == "" && !r.conflict {
			now = r.to
		}
	}
	cur := now
	var res revertOutcome
	for _, f := range files {
		res = s.revertOne(f, cur, label, markers)
		if res.conflict || res.fail != "" {
			break
		}
		cur = res.to
	}
	if (res.conflict || res.fail != "") && (len(files) > 1 || !sameImage(ch.first, files[len(files)-1].pre)) {
		one := &tfile{path: path, pre: ch.first, post: ch.newest().post}
		res = s.revertOne(one, now, label, markers)
	}
	switch {
	case res.fail != "":
		st.Do, st.Reason = ActFail, res.fail
		return st
	case res.conflict && !res.marked:
		st.Do, st.Reason, st.Conflicts = ActFail, conflictReason(res.lines, label), res.lines
		if res.shown.img.Kind == ImageContent {
			st.Marked = res.shown.img
			if sum, err := blobOf(res.shown.img); err == nil {
				keep[sum] = res.shown.data
			}
		}
		if st.Conflicts == nil {
			st.Conflicts = []LineRange{}
		}
		return st
	case res.conflict:
		st.Conflicts = res.lines
		if st.Conflicts == nil {
			st.Conflicts = []LineRange{}
		}
	}
	st.Want = res.to.img
	st.Merged = res.merged
	if res.to.text && res.to.img.Kind == ImageContent {
		if sum, err := blobOf(res.to.img); err == nil && !sameBytes(img, res.to.img) {
			keep[sum] = res.to.data
		}
	}
	st.Do, st.Reason = s.revertDecide(img, res.to.img, keep)
	return st
}

// revertDecide is decide for a revert's want, whose bytes may be a merge
// not in the store yet (kept in merged).
func (s *Store) revertDecide(now, want Image, merged map[BlobID][]byte) (Action, string) {
	if want.Kind == ImageContent {
		if sum, err := blobOf(want); err == nil && merged[sum] != nil {
			if sameBytes(now, want) && (want.Mode == 0 || want.Mode == now.Mode) {
				return ActKeep, ""
			}
			return ActRestore, ""
		}
	}
	return s.decide(now, want)
}

func conflictReason(lines []LineRange, label string) string {
	if len(lines) == 0 {
		return "conflict: changed since " + label + ", and it can only be reverted whole"
	}
	var each []string
	for _, l := range lines {
		if l.Start == l.End {
			each = append(each, fmt.Sprintf("%d", l.Start))
		} else {
			each = append(each, fmt.Sprintf("%d-%d", l.Start, l.End))
		}
	}
	word := "lines"
	if len(lines) == 1 && lines[0].Start == lines[0].End {
		word = "line"
	}
	return fmt.Sprintf("conflict: %s %s changed both by %s and since", word, strings.Join(each, ", "), label)
}

// keptVersion reads a kept image's bytes where they can be merged by
// lines: a file kept whole, under the limit, with no NUL byte.
func (s *Store) keptVersion(img Image) version {
	v := version{img: img}
	if img.Kind != ImageContent || !img.Kept || img.Size > mergeLimit {
		return v
	}
	data, err := s.readBlobOf(img)
	if err != nil || bytes.IndexByte(data, 0) >= 0 {
		return v
	}
	v.data, v.text = data, true
	return v
}

// sharedPaths are the paths of turns whose change no single command
// owned and that a turn not among them holds too (see sharedWith): a
// revert of these turns alone would take out another session's change.
// It gives, per path, those other turns. A turn a revert in effect asked
// that change out of is not one: the change is wanted out of both.
func sharedPaths(v *view, turns []string) map[string][]string {
	out := map[string][]string{}
	mine := set(turns)
	for _, id := range turns {
		for _, f := range v.byID[id].list() {
			for _, o := range v.sharedWith(f) {
				if !mine[o] && !v.rewound[o] && !v.revertAsked(o, f.path) && !slices.Contains(out[f.path], o) {
					out[f.path] = append(out[f.path], o)
				}
			}
		}
	}
	return out
}

// revertOutcome is one turn's change taken out of one path.
type revertOutcome struct {
	to       version
	conflict bool
	marked   bool // to holds the conflict between markers
	lines    []LineRange
	merged   bool // later changes were kept beside the turn's taken out
	fail     string
	shown    version // a conflict with markers, for a preview, when not marked
}

// revertOne takes turn file f's change out of cur: a three-way merge of
// what the turn left (the base), cur (ours) and the turn's pre-image
// (theirs). What can only be handled whole (a link, a binary file, one
// created or deleted, a mode) is taken out when nothing changed it since
// and is a conflict otherwise.
func (s *Store) revertOne(f *tfile, cur version, label string, markers bool) revertOutcome {
	pre := f.pre
	if f.post == nil {
		return revertOutcome{fail: "not reverted: " + label + " never recorded what it left here (the write was not sealed)"}
	}
	post := *f.post
	if pre.Kind == ImageSkipped {
		return revertOutcome{fail: "not reverted: its bytes before " + label + " were not kept (" + pre.Reason + ")"}
	}
	modeOf := func() uint32 {
		// A mode changed since the turn stays; else the turn's is undone.
		if cur.img.Mode != 0 && post.Mode != 0 && cur.img.Mode != post.Mode {
			return cur.img.Mode
		}
		return pre.Mode
	}
	switch {
	case sameBytes(cur.img, post) && pre.Kind != ImageContent && cur.img.Kind == ImageContent && modeOf() != pre.Mode:
		// A file the turn made (or put where a link was) whose mode
		// changed since: taking the turn out would drop that change.
		return revertOutcome{conflict: true}
	case sameBytes(cur.img, post):
		to := pre
		if to.Kind == ImageContent {
			to.Mode = modeOf()
		}
		return revertOutcome{to: version{img: to}}
	case sameBytes(cur.img, pre):
		to := cur.img
		if to.Kind == ImageContent && pre.Kind == ImageContent {
			to.Mode = modeOf()
		}
		return revertOutcome{to: version{img: to, data: cur.data, text: cur.text}}
	}
	if !cur.text && cur.img.Kind == ImageContent && cur.img.Kept {
		// A pre-image the turn after this one went back to (a session's
		// turns are taken out one after another): its bytes are kept.
		img := cur.img
		cur = s.keptVersion(img)
		cur.img = img
	}
	base, theirs := s.keptVersion(post), s.keptVersion(pre)
	textual := func(v version, img Image) bool { return v.text || img.Kind == ImageAbsent }
	if !textual(cur, cur.img) || !textual(base, post) || !textual(theirs, pre) || cur.img.Kind == ImageAbsent {
		return revertOutcome{conflict: true}
	}
	r := merge.Merge(base.data, cur.data, theirs.data, merge.Options{Ours: "now", Base: label, Theirs: "before " + label})
	if r.Clean && (pre.Kind == ImageContent || len(r.Bytes) == 0 && pre.Kind == ImageAbsent) {
		if pre.Kind == ImageAbsent {
			return revertOutcome{to: version{img: Image{Kind: ImageAbsent}}}
		}
		img := Image{Kind: ImageContent, SHA256: blobIDOf(r.Bytes), Size: int64(len(r.Bytes)), Mode: modeOf(), Kept: true}
		return revertOutcome{to: version{img: img, data: r.Bytes, text: true}, merged: true}
	}
	out := revertOutcome{conflict: true}
	for _, c := range r.Conflicts {
		out.lines = append(out.lines, LineRange{Start: c.Start, End: c.End})
	}
	if out.lines == nil {
		// Clean as text, but the turn created (or deleted) the file and
		// something else stands there now: whole-file.
		out.lines = []LineRange{}
	}
	if !r.Clean {
		mode := cur.img.Mode
		if mode == 0 {
			mode = post.Mode
		}
		img := Image{Kind: ImageContent, SHA256: blobIDOf(r.Bytes), Size: int64(len(r.Bytes)), Mode: mode, Kept: true}
		if markers {
			out.to, out.marked = version{img: img, data: r.Bytes, text: true}, true
		} else {
			out.shown = version{img: img, data: r.Bytes, text: true}
		}
	}
	return out
}
