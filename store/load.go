package store

import (
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/ckpt-dev/ckpt/store/internal/format"
	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// turn is one agent turn as read from the store.
type turn struct {
	id     string
	label  string
	at     int64 // when its first record was committed, for display
	seq    int64 // its place in the order of commits (record.order)
	source *Source
	head   string
	ref    string // the branch HEAD named as the turn began
	index  *Image // git's index file as the turn began
	// gitEnd is git's state as the turn's file last recorded it after
	// the turn began (nil: never), and ended says that record closed
	// the turn (see gitturn.go).
	gitEnd *gitState
	ended  bool
	seed   bool // from index.json
	v      int  // format version of its file
	// fl is the turn's paths, in the order first captured; read through
	// list. A turn read from the summary leaves them encoded (lazy) until
	// first asked for: listing turns needs only their count.
	fl     []*tfile
	lazy   *lazyFiles
	byPath map[string]*tfile // every path of fl, as its records left it
	// shown is fl less the paths the turn made and removed (see
	// passedThrough), while shownOK and fl has shownOf paths: apply
	// makes it stale, and so does a path added to fl.
	shown   []*tfile
	shownOf int
	shownOK bool
	cmds    map[int64]string // long commands, by the "n" of their cmd record
}

// tfile is one path of a turn.
type tfile struct {
	path    string // root-relative; the raw entry when refused
	pre     Image
	post    *Image
	postAt  int64    // when last sealed (wall clock, for display)
	preAt   int64    // when captured (wall clock, for display)
	postSeq int64    // record.order of the newest seal
	preSeq  int64    // record.order of the capture
	seen    int64    // when pre was observed, Unix ns (0: the record does not say; see observed)
	dirs    []string // folders that did not exist at capture (pre absent)
	refused string   // why the entry cannot be used
	cmd     string   // the first shell command that changed it in the turn
	shared  []string // other turns given the same change (no single command owned it)
	// badBlob is a seed entry's blob name that is not 64 hex digits, or
	// is all zeros: its pre then names no blob (records cannot hold such
	// a name). badBlobWhy says which.
	badBlob string
}

// observed is when f's pre-image was observed (record.File.Seen): a
// sweep's record holds what its baseline held, taken when an earlier
// sweep ran, so of two sessions' turns the newer may hold the older
// image. A record that does not say counts as observed at or, which the
// caller chooses to keep the order records had before "seen".
func (f *tfile) observed(or int64) int64 {
	if f.seen != 0 {
		return f.seen
	}
	return or
}

// share adds turns to the ones f's change is shared with.
func (f *tfile) share(turns []string) {
	for _, t := range turns {
		if !slices.Contains(f.shared, t) {
			f.shared = append(f.shared, t)
		}
	}
}

// passedThrough says the turn made f's path and removed it again: it
// was missing before the turn's first record of it and is after its
// last, with no folder made for it, so there is nothing to give back
// and the path is no part of the turn (a watched turn's sweeps saw a
// build's temporary file come and go; a command removed what the
// agent's tool wrote). Its records stay: a later write of the path in
// the turn makes it the turn's again, from the same pre-image.
func (f *tfile) passedThrough() bool {
	return f.refused == "" && len(f.dirs) == 0 && f.pre.Kind == ImageAbsent && f.post != nil && f.post.Kind == ImageAbsent
}

// list is the turn's paths, decoded from the summary on first use, less
// those it made and removed (passedThrough). Caller holds s.mu (as for
// every turn of a view).
func (t *turn) list() []*tfile {
	if t.lazy != nil {
		t.fl = t.lazy.decode(t)
		t.lazy = nil
		t.shownOK = false
	}
	if !t.shownOK || t.shownOf != len(t.fl) {
		t.shown, t.shownOf, t.shownOK = shownFiles(t.fl), len(t.fl), true
	}
	return t.shown
}

// recordedList is every path the turn's records hold, those it passed
// through too: what a rewind weighs pre-images by (see earliestPres).
// Caller holds s.mu.
func (t *turn) recordedList() []*tfile {
	t.list()
	return t.fl
}

// shownFiles is fl less the paths passed through; fl itself when none is.
func shownFiles(fl []*tfile) []*tfile {
	i := slices.IndexFunc(fl, (*tfile).passedThrough)
	if i < 0 {
		return fl
	}
	out := fl[:i:i] // appends copy: fl stays as it is
	for _, f := range fl[i+1:] {
		if !f.passedThrough() {
			out = append(out, f)
		}
	}
	return out
}

// scan calls fn with each of the turn's paths, in order, without
// decoding a lazy list for good: fn must not keep f, which may be reused
// for the next path. Caller holds s.mu.
func (t *turn) scan(fn func(f *tfile)) {
	if t.lazy != nil && !t.lazy.ready(t) {
		t.list() // damaged: its paths come from the records
	}
	t.scanOnce(fn)
}

// scanOnce is scan checking a lazy list in the same pass: ok is false
// when it turned out damaged part way (fn saw the paths before the
// damage; the turn now has them from its records, so a caller that starts
// over sees them all).
func (t *turn) scanOnce(fn func(f *tfile)) (ok bool) {
	if t.lazy == nil {
		for _, f := range t.list() {
			fn(f)
		}
		return true
	}
	shown := func(f *tfile) {
		if !f.passedThrough() {
			fn(f)
		}
	}
	if !t.lazy.scan(t, shown) {
		t.list()
		return false
	}
	return true
}

// nfiles is how many paths the turn has, without decoding them.
func (t *turn) nfiles() int {
	if t.lazy != nil {
		return t.lazy.n - t.lazy.passed
	}
	return len(t.list())
}

func newTurn(id string) *turn { return &turn{id: id, byPath: map[string]*tfile{}} }

// file is the turn's entry for key (a path, or the key apply gives a
// refused entry), or nil, as list has them: nil for a path the turn
// made and removed. A turn read from the summary has no byPath until
// its first lookup: listing turns never asks, and a map per turn is
// most of what a big store's first load would allocate.
func (t *turn) file(key string) *tfile {
	if f := t.recorded(key); f != nil && !f.passedThrough() {
		return f
	}
	return nil
}

// recorded is the turn's entry for key as its records hold it, a path
// it made and removed too: what a writer asks (the first capture wins).
func (t *turn) recorded(key string) *tfile {
	return t.pathIndex()[key]
}

// pathIndex is byPath, built from files when the turn has none yet.
func (t *turn) pathIndex() map[string]*tfile {
	if t.byPath == nil {
		all := t.recordedList()
		t.byPath = make(map[string]*tfile, len(all))
		for i, f := range all {
			key := f.path
			if f.refused != "" {
				key = "\x00" + strconv.Itoa(i) // as apply keys a refused entry
			}
			t.byPath[key] = f
		}
	}
	return t.byPath
}

// apply adds one turn-file record; the first pre of a path wins.
func (t *turn) apply(r *record.Line) {
	switch r.R {
	case "turn":
		if t.at == 0 {
			t.id, t.label, t.at, t.source, t.head, t.v = r.ID, r.Label, r.At, r.Source, r.Head, r.V
			t.ref, t.index = r.Ref, r.Index
			t.seq = r.Order()
		} else {
			if r.Label != "" {
				t.label = r.Label // a later header names the turn anew (Relabel)
			}
			if r.Head != "" || r.Ref != "" || r.Index != nil {
				t.gitEnd, t.ended = &gitState{head: r.Head, ref: r.Ref, index: r.Index}, r.End
			}
		}
	case "cmd":
		if t.cmds == nil {
			t.cmds = map[int64]string{}
		}
		t.cmds[r.N] = r.Cmd
	case "pre":
		if r.Img == nil || r.Path == "" {
			return
		}
		p, why := cleanRecordPath(r.Path)
		key := p
		if why != "" {
			// Kept, to be shown and failed with the reason; its key
			// matches no path.
			p, key = r.Path, "\x00"+strconv.Itoa(len(t.fl))
		}
		if t.recorded(key) != nil {
			return
		}
		f := &tfile{path: p, pre: *r.Img, dirs: cleanDirs(r.Dirs), preAt: r.At, preSeq: r.Order(), seen: r.Seen, cmd: t.command(r), refused: why}
		f.share(r.Shared)
		t.fl = append(t.fl, f)
		t.byPath[key] = f
		t.shownOK = false
	case "post":
		p, why := cleanRecordPath(r.Path)
		if why != "" {
			return
		}
		if f := t.recorded(p); f != nil && r.Img != nil && r.Order() >= f.postSeq {
			img := *r.Img
			f.post, f.postAt, f.postSeq = &img, r.At, r.Order()
			t.shownOK = false
			f.share(r.Shared)
			if f.cmd == "" {
				f.cmd = t.command(r)
			}
		}
	}
}

// command is the shell command a pre or post record names: all of a long
// one from the turn's cmd record it refers to (its start where that
// record is missing).
func (t *turn) command(r *record.Line) string {
	if r.CmdN != 0 {
		if c, ok := t.cmds[r.CmdN]; ok {
			return c
		}
	}
	return r.Cmd
}

// cleanRecordPath checks a path read from a record, which is just a file
// in the folder it describes: it must be relative, '/'-separated, free of
// ".." and NUL, and outside the store. It returns the path cleaned, so
// "./b.txt" and "b.txt" are one path, or why it is refused.
func cleanRecordPath(p string) (string, string) {
	switch {
	case p == "" || strings.IndexByte(p, 0) >= 0:
		return "", "not a usable file name: refused"
	case strings.HasPrefix(p, "/"):
		return "", "an absolute path: refused"
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." {
			return "", "leads out of the root (..): refused"
		}
	}
	c := path.Clean(p)
	if c == "." {
		return "", "names the root itself: refused"
	}
	if storeOwnRecord(c) {
		return "", "inside the checkpoint store: refused"
	}
	return c, ""
}

// cleanDirs keeps the usable folders of a record's list, cleaned.
func cleanDirs(dirs []string) []string {
	out := dirs[:0:0]
	for _, d := range dirs {
		if c, why := cleanRecordPath(d); why == "" {
			out = append(out, c)
		}
	}
	return out
}

// opRec is one operation from ops.log.
type opRec struct {
	id        string
	n         OpID // 0 for a name that does not parse
	kind      Kind
	target    string
	turns     []string
	at        int64 // wall clock, for display
	seq       int64 // record.order of its op record
	steps     int
	rmdirs    []string
	had       []string
	hadModes  []uint32
	mkdirs    []string
	mkdirMods []uint32
	done      bool
	recovered bool
	abandoned bool
	retry     string    // the operation whose failed paths this one tried again
	session   string    // the agent session a revert took out
	except    []string  // the paths a revert kept as they were (--except)
	none      bool      // every step failed: it changed nothing
	fails     []Failure // paths it could not put as wanted, and why
	indexWas  *Image    // git's index before it, when it put the index back
	indexSet  *Image    // what it wrote to git's index
}

// turnFile is the cached parse of one turn file; appended records are read
// from size onward, so a refresh reads only what is new.
type turnFile struct {
	size int64
	t    *turn
	torn bool
	bad  []int
	st   storefs.Stat // the file as it was when read: while it stands, so does the parse
	// summed: the summary file holds this parse, in an entry of sumLen
	// bytes.
	summed bool
	sumLen int
	// fromSum: parsed from the summary, which keeps no cmd records, so
	// records appended since are read with the whole file.
	fromSum bool
}

type cache struct {
	files    map[string]*turnFile
	seedSize int64
	seedMod  int64
	seed     []*turn
	seedErr  error
	steps    map[string][]record.Line // op id → steps (written once; purge replaces them)
	stepsAt  map[string]storefs.Stat  // the steps files as read
	opsLog   opsCache
	sum      summaryState
	// gen is the generation of the turn files this cache last matched
	// (when genOK): while it stands, no turn file changed (readGen).
	gen   turnsGen
	genOK bool
	// locked is the note of the store lock the load's caller holds, if
	// it said so (claimedSince): readGen needs no shared hold then.
	locked *writerNote
	reads  atomic.Int64 // turn files read (not found current), for tests
	listed int          // loads that listed turns/, for tests
	// staged says, for two images of git's index, whether what they
	// stage differs (see stagedDiffers): it never changes for a pair.
	staged map[[2]BlobID]bool
}

// view is the store as one consistent picture.
type view struct {
	turns   []*turn // oldest first
	byID    map[string]*turn
	ops     []*opRec
	opByID  map[string]*opRec
	rewound map[string]bool
	opState map[string]State
	undo    []application // top is last
	redo    []application
	// fails holds, per operation, the paths it failed to put back that
	// no later operation has tried again or made moot (by undoing it).
	fails map[string][]Failure
	// noneRetries maps an operation to its retries that changed nothing;
	// retriesOf an undo or redo to the retries that finished it.
	noneRetries, retriesOf map[string][]string
	// retryUndo and retryRedo are the newest undo (redo) when nothing but
	// failed operations came after it: running undo (redo) again retries
	// its failed paths, if it has any.
	retryUndo, retryRedo *opRec
	seedErr              error
	// reverted holds the turns a revert in effect took out whole.
	reverted map[string]bool
	// retryHeld holds, per retry of a rewind or revert, the failures of
	// the operation it retried that it made moot: undoing the retry
	// brings them back, redoing it takes them away again.
	retryHeld map[string]map[string][]Failure
	// takenBack holds the operations whose work an undo (or, for an
	// undo, a redo) took back: what they put is not as they left it.
	takenBack map[string]bool
	// planLeft gives what a rewind failed that its redo leaves as it is
	// (see Store.planLeft); nil where only the stacks matter.
	planLeft func(o *opRec) []Failure
}

// application is a rewind in effect (via the rewind itself or a redo), or
// one undone (via an undo).
type application struct {
	rewind *opRec
	via    *opRec
}

// turnFileName maps a turn id to its file. Plain ids keep their name;
// others are hex-encoded so no id can name a path.
func turnFileName(id string) string {
	ok := id != "" && len(id) <= 100 && id[0] != '.'
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_'
	}
	if ok {
		return "turns/" + id + ".log"
	}
	return "turns/%" + hex.EncodeToString([]byte(id)) + ".log"
}

// load reads what changed since the last load and returns the store as one
// picture. Caller holds s.mu.
func (s *Store) load() (*view, error) {
	if s.cache.files == nil {
		s.cache.files = map[string]*turnFile{}
		s.cache.steps = map[string][]record.Line{}
		s.cache.stepsAt = map[string]storefs.Stat{}
	}
	s.loadSeed()
	if err := s.loadTurns(); err != nil {
		return nil, err
	}
	s.checkSteps()
	ops, err := s.readOps()
	if err != nil {
		return nil, err
	}
	return s.buildView(ops), nil
}

// readOps parses ops.log. It is small: one line per operation and one per
// completion; an operation's steps live in ops/<id>.steps. Records
// appended since the last call are all it reads.
func (s *Store) readOps() ([]*opRec, error) {
	c := &s.cache.opsLog
	f, err := s.dir.Open("ops.log")
	if errors.Is(err, fs.ErrNotExist) {
		*c = opsCache{}
		return nil, nil
	}
	if err != nil {
		return nil, errf("read %s: %w", s.path("ops.log"), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, errf("read %s: %w", s.path("ops.log"), err)
	}
	if fi.Size() < c.size || c.byID == nil {
		*c = opsCache{byID: map[string]*opRec{}}
	}
	if fi.Size() == c.size {
		return c.ops, nil
	}
	data, err := io.ReadAll(io.NewSectionReader(f, c.size, fi.Size()-c.size))
	if err != nil {
		return nil, errf("read %s: %w", s.path("ops.log"), err)
	}
	res := record.Decode(data)
	for _, r := range res.Recs {
		if r.R == "op" {
			if err := format.CheckVersion(s.path("ops.log"), "record format", r.V, formatVersion); err != nil {
				return nil, err
			}
		}
	}
	for _, r := range res.Recs {
		switch r.R {
		case "op":
			n, _ := ParseOpID(r.ID)
			o := &opRec{id: r.ID, n: n, kind: r.Kind, target: r.Target, turns: r.Turns, at: r.At, seq: r.Order(), steps: r.Steps, retry: r.Retry, session: r.Sess, except: r.Except, rmdirs: r.Rmdirs, had: r.Had, hadModes: r.HadModes, mkdirs: r.Mkdirs, mkdirMods: r.MkdirModes,
				indexWas: r.IndexWas, indexSet: r.IndexSet}
			c.ops = append(c.ops, o)
			c.byID[o.id] = o
		case "done":
			if o := c.byID[r.ID]; o != nil {
				o.done, o.recovered, o.abandoned, o.none = true, r.Recovered, r.Abandoned, r.None
				o.fails = r.Fails
				if len(o.fails) == 0 {
					// Written before reasons were kept.
					for _, p := range r.Failed {
						o.fails = append(o.fails, Failure{Path: p, Reason: "could not be restored"})
					}
				}
			}
		}
	}
	c.size += res.Good
	return c.ops, nil
}

// opsCache is the parsed ops.log and how much of it was read.
type opsCache struct {
	size int64
	ops  []*opRec
	byID map[string]*opRec
}

func newView() *view {
	return &view{byID: map[string]*turn{}, opByID: map[string]*opRec{}, rewound: map[string]bool{}, opState: map[string]State{}, fails: map[string][]Failure{}}
}

// steps reads an operation's steps file (cached: it never changes once
// the operation is logged). Caller holds s.mu.
func (s *Store) steps(id string) ([]record.Line, error) {
	if st, ok := s.cache.steps[id]; ok {
		return st, nil
	}
	name := "ops/" + id + ".steps"
	f, err := s.dir.Open(name)
	if err != nil {
		return nil, errf("read %s: %w", s.path(name), err)
	}
	data, st, err := readWhole(f)
	if err != nil {
		return nil, errf("read %s: %w", s.path(name), err)
	}
	res := record.Decode(data)
	if res.Torn || len(res.Bad) > 0 {
		return nil, errf("%s is damaged: %w", s.path(name), ErrCorrupt)
	}
	s.cache.steps[id] = res.Recs
	s.cache.stepsAt[id] = st
	return res.Recs, nil
}

// checkSteps forgets the cached steps files that changed since they were
// read: written once, they are replaced only by a purge (their images of
// the purged paths made purged), which a Store kept open must see.
// Caller holds s.mu.
func (s *Store) checkSteps() {
	if len(s.cache.steps) == 0 {
		return
	}
	ops, err := s.dir.Sub("ops")
	if err != nil {
		clear(s.cache.steps)
		return
	}
	defer func() { _ = ops.Close() }()
	for id := range s.cache.steps {
		if st, err := ops.StatAt(id + ".steps"); err != nil || st != s.cache.stepsAt[id] {
			delete(s.cache.steps, id)
		}
	}
}

var _ = os.O_RDONLY
