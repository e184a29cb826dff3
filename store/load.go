package store

import (
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"

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
	files  []*tfile
	byPath map[string]*tfile
	cmds   map[int64]string // long commands, by the "n" of their cmd record
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
	dirs    []string // folders that did not exist at capture (pre absent)
	refused string   // why the entry cannot be used
	cmd     string   // the first shell command that changed it in the turn
	shared  []string // other turns given the same change (no single command owned it)
	// badBlob is a seed entry's blob name that is not 64 hex digits:
	// its pre then names no blob (records cannot hold such a name).
	badBlob string
}

// share adds turns to the ones f's change is shared with.
func (f *tfile) share(turns []string) {
	for _, t := range turns {
		if !slices.Contains(f.shared, t) {
			f.shared = append(f.shared, t)
		}
	}
}

func newTurn(id string) *turn { return &turn{id: id, byPath: map[string]*tfile{}} }

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
			p, key = r.Path, "\x00"+strconv.Itoa(len(t.files))
		}
		if _, ok := t.byPath[key]; ok {
			return
		}
		f := &tfile{path: p, pre: *r.Img, dirs: cleanDirs(r.Dirs), preAt: r.At, preSeq: r.Order(), cmd: t.command(r), refused: why}
		f.share(r.Shared)
		t.files = append(t.files, f)
		t.byPath[key] = f
	case "post":
		p, why := cleanRecordPath(r.Path)
		if why != "" {
			return
		}
		if f, ok := t.byPath[p]; ok && r.Img != nil && r.Order() >= f.postSeq {
			img := *r.Img
			f.post, f.postAt, f.postSeq = &img, r.At, r.Order()
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
	// Only the exact name here: another spelling is the store only where
	// the file system folds case, which Store.rel asks the disk.
	if top, _, _ := strings.Cut(c, "/"); top == ".osfoundry" {
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
}

type cache struct {
	files    map[string]*turnFile
	seedSize int64
	seedMod  int64
	seed     []*turn
	seedErr  error
	steps    map[string][]record.Line // op id → steps (immutable once written)
	opsLog   opsCache
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
	// noneRetries maps an operation to its retries that changed nothing.
	noneRetries map[string][]string
	// retryUndo and retryRedo are the newest undo (redo) when nothing but
	// failed operations came after it: running undo (redo) again retries
	// its failed paths, if it has any.
	retryUndo, retryRedo *opRec
	seedErr              error
	// reverted holds the turns a revert in effect took out whole.
	reverted map[string]bool
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
	}
	s.loadSeed()
	list, err := storefs.Names(s.dir, "turns")
	if err != nil {
		return nil, errf("read %s: %w", s.path("turns"), err)
	}
	seen := map[string]bool{}
	var files []string
	for _, n := range list {
		name := "turns/" + n
		if !strings.HasSuffix(name, ".log") {
			continue
		}
		seen[name] = true
		files = append(files, name)
	}
	if err := s.refreshTurnFiles(files); err != nil {
		return nil, err
	}
	for name := range s.cache.files {
		if !seen[name] {
			delete(s.cache.files, name)
		}
	}
	ops, err := s.readOps()
	if err != nil {
		return nil, err
	}
	return s.buildView(ops), nil
}

// refreshTurnFiles brings the cached turn files up to date, parsing on
// every core: a first load of a big store is mostly JSON.
func (s *Store) refreshTurnFiles(names []string) error {
	type result struct {
		name string
		c    *turnFile
		err  error
	}
	jobs := make([]result, len(names))
	for i, n := range names {
		jobs[i] = result{name: n, c: s.cache.files[n]}
	}
	if len(names) == 0 {
		return nil
	}
	// One handle on the folder: opening each file through it costs one
	// open, not one per path element.
	turns, err := s.dir.Sub("turns")
	if err != nil {
		return errf("read %s: %w", s.path("turns"), err)
	}
	defer func() { _ = turns.Close() }()
	work := make(chan result)
	results := make(chan result)
	workers := min(runtime.GOMAXPROCS(0), len(names))
	for w := 0; w < workers; w++ {
		go func() {
			for j := range work {
				var c *turnFile
				err := guarded(func() (err error) {
					c, err = s.refreshTurnFile(turns, j.name, j.c)
					return err
				})
				results <- result{j.name, c, err}
			}
		}()
	}
	go func() {
		for _, j := range jobs {
			work <- j
		}
		close(work)
	}()
	var first error
	for range names {
		r := <-results
		if r.err != nil && first == nil {
			first = r.err
		}
		if r.c != nil {
			s.cache.files[r.name] = r.c
		}
	}
	return first
}

// refreshTurnFile returns the up-to-date parse of one turn file given
// its cached one (nil if none). It only reads s.cache, so files can be
// refreshed in parallel.
func (s *Store) refreshTurnFile(turns *storefs.Dir, name string, c *turnFile) (*turnFile, error) {
	f, err := turns.Open(strings.TrimPrefix(name, "turns/"))
	if err != nil {
		return nil, errf("read %s: %w", s.path(name), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, errf("read %s: %w", s.path(name), err)
	}
	if c != nil && fi.Size() == c.size && !c.torn {
		return c, nil
	}
	from := int64(0)
	if c != nil && fi.Size() > c.size && !c.torn {
		from = c.size
	} else {
		c = &turnFile{t: newTurn("")}
	}
	data := make([]byte, fi.Size()-from)
	if _, err := f.ReadAt(data, from); err != nil && err != io.EOF {
		return nil, errf("read %s: %w", s.path(name), err)
	}
	res := record.Each(data, c.t.apply)
	if err := format.CheckVersion(s.path(name), "record format", c.t.v, formatVersion); err != nil {
		return nil, err
	}
	c.size = from + res.Good
	c.torn = res.Torn
	c.bad = append(c.bad, res.Bad...)
	return c, nil
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
			o := &opRec{id: r.ID, n: n, kind: r.Kind, target: r.Target, turns: r.Turns, at: r.At, seq: r.Order(), steps: r.Steps, retry: r.Retry, session: r.Sess, rmdirs: r.Rmdirs, had: r.Had, hadModes: r.HadModes, mkdirs: r.Mkdirs, mkdirMods: r.MkdirModes,
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
	data, err := s.dir.ReadFile(name)
	if err != nil {
		return nil, errf("read %s: %w", s.path(name), err)
	}
	res := record.Decode(data)
	if res.Torn || len(res.Bad) > 0 {
		return nil, errf("%s is damaged: %w", s.path(name), ErrCorrupt)
	}
	s.cache.steps[id] = res.Recs
	return res.Recs, nil
}

var _ = os.O_RDONLY
