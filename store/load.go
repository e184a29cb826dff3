package store

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/format"
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
	seed   bool // from index.json
	v      int  // format version of its file
	files  []*tfile
	byPath map[string]*tfile
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
}

func newTurn(id string) *turn { return &turn{id: id, byPath: map[string]*tfile{}} }

// apply adds one turn-file record; the first pre of a path wins.
func (t *turn) apply(r *record) {
	switch r.R {
	case "turn":
		if t.at == 0 {
			t.id, t.label, t.at, t.source, t.head, t.v = r.ID, r.Label, r.At, r.Source, r.Head, r.V
			t.seq = r.order()
		} else if r.Label != "" {
			t.label = r.Label // a later header names the turn anew (Relabel)
		}
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
		f := &tfile{path: p, pre: *r.Img, dirs: cleanDirs(r.Dirs), preAt: r.At, preSeq: r.order(), cmd: r.Cmd, refused: why}
		t.files = append(t.files, f)
		t.byPath[key] = f
	case "post":
		p, why := cleanRecordPath(r.Path)
		if why != "" {
			return
		}
		if f, ok := t.byPath[p]; ok && r.Img != nil && r.order() >= f.postSeq {
			img := *r.Img
			f.post, f.postAt, f.postSeq = &img, r.At, r.order()
			if f.cmd == "" {
				f.cmd = r.Cmd
			}
		}
	}
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
	steps    map[string][]record // op id → steps (immutable once written)
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
		s.cache.steps = map[string][]record{}
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
	defer turns.Close()
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
	res := decodeEach(data, c.t.apply)
	if err := format.CheckVersion(s.path(name), "record format", c.t.v, formatVersion); err != nil {
		return nil, err
	}
	c.size = from + res.good
	c.torn = res.torn
	c.bad = append(c.bad, res.bad...)
	return c, nil
}

// seedEntry is a turn of the seed format's index.json.
type seedEntry struct {
	Turn  json.RawMessage `json:"turn"`
	Label string          `json:"label"`
	At    int64           `json:"at"`
	Files []seedFile      `json:"files"`
}

type seedFile struct {
	Path any `json:"path"`
	Pre  struct {
		Kind   string `json:"kind"`
		SHA256 string `json:"sha256"`
		Bytes  int64  `json:"bytes"`
		Reason string `json:"reason"`
	} `json:"pre"`
}

func (s *Store) loadSeed() {
	fi, err := s.dir.Lstat("index.json")
	if err != nil {
		s.cache.seed, s.cache.seedErr = nil, nil
		return
	}
	if fi.Size() == s.cache.seedSize && fi.ModTime().UnixNano() == s.cache.seedMod {
		return
	}
	s.cache.seedSize, s.cache.seedMod = fi.Size(), fi.ModTime().UnixNano()
	s.cache.seed, s.cache.seedErr = s.parseSeed()
}

func (s *Store) parseSeed() ([]*turn, error) {
	data, err := s.dir.ReadFile("index.json")
	if err != nil {
		return nil, errf("read %s: %w", s.path("index.json"), err)
	}
	entries, ok := fastSeed(data)
	if !ok {
		entries = nil
		if err := json.Unmarshal(data, &entries); err != nil {
			return nil, errf("%s is not a JSON array of turns: %v: %w", s.path("index.json"), err, ErrCorrupt)
		}
	}
	var turns []*turn
	// Symlinks are resolved once per folder, not once per entry: a big
	// index names the same few folders over and over.
	memo := map[string]string{}
	type relOf struct {
		rel string
		err error
	}
	rels := map[string]relOf{}
	for i, e := range entries {
		id := seedID(e.Turn)
		if id == "" {
			id = strconv.Itoa(i + 1)
		}
		t := newTurn(id)
		t.label, t.at, t.seq, t.seed = e.Label, e.At, e.At, true
		// The array is oldest first, whatever the "at" say (a clock
		// stepped back, or none given): each turn comes after the last.
		if len(turns) > 0 && t.seq <= turns[len(turns)-1].seq {
			t.seq = turns[len(turns)-1].seq + 1
		}
		for _, f := range e.Files {
			raw, _ := f.Path.(string)
			tf := &tfile{path: raw}
			r, ok := rels[raw]
			if !ok {
				r.rel, r.err = s.rel(raw, memo)
				rels[raw] = r
			}
			rel, err := r.rel, r.err
			switch {
			case raw == "":
				tf.path, tf.refused = fmt.Sprint(f.Path), "path is not a string"
			case err != nil:
				tf.refused = "outside the root: refused"
				if errors.Is(err, ErrOutsideRoot) && strings.Contains(err.Error(), "inside the checkpoint store") {
					tf.refused = "inside the checkpoint store: refused"
				}
			default:
				tf.path = rel
			}
			switch ImageKind(f.Pre.Kind) {
			case ImageContent:
				tf.pre = Image{Kind: ImageContent, SHA256: f.Pre.SHA256, Size: f.Pre.Bytes, Kept: true}
			case ImageAbsent:
				tf.pre = Image{Kind: ImageAbsent}
			case ImageSkipped:
				tf.pre = Image{Kind: ImageSkipped, Reason: f.Pre.Reason, Size: f.Pre.Bytes}
			default:
				tf.pre = Image{Kind: ImageKind(f.Pre.Kind)}
				if tf.refused == "" {
					tf.refused = fmt.Sprintf("unknown pre kind %q", f.Pre.Kind)
				}
			}
			key := tf.path
			if tf.refused != "" {
				key = "\x00" + strconv.Itoa(len(t.files))
			}
			if _, dup := t.byPath[key]; dup {
				continue
			}
			t.byPath[key] = tf
			t.files = append(t.files, tf)
		}
		turns = append(turns, t)
	}
	return turns, nil
}

func seedID(raw json.RawMessage) string {
	if len(raw) > 0 && len(raw) < 19 && raw[0] != '0' || len(raw) == 1 {
		digits := true
		for _, c := range raw {
			digits = digits && '0' <= c && c <= '9'
		}
		if digits {
			return string(raw) // the common case, without a decoder
		}
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&n) == nil {
		return n.String()
	}
	return ""
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
	res := decodeRecords(data)
	for _, r := range res.recs {
		if r.R == "op" {
			if err := format.CheckVersion(s.path("ops.log"), "record format", r.V, formatVersion); err != nil {
				return nil, err
			}
		}
	}
	for _, r := range res.recs {
		switch r.R {
		case "op":
			n, _ := ParseOpID(r.ID)
			o := &opRec{id: r.ID, n: n, kind: r.Kind, target: r.Target, turns: r.Turns, at: r.At, seq: r.order(), steps: r.Steps, retry: r.Retry, session: r.Sess, rmdirs: r.Rmdirs, had: r.Had, hadModes: r.HadModes, mkdirs: r.Mkdirs, mkdirMods: r.MkdirModes}
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
	c.size += res.good
	return c.ops, nil
}

// opsCache is the parsed ops.log and how much of it was read.
type opsCache struct {
	size int64
	ops  []*opRec
	byID map[string]*opRec
}

func (s *Store) buildView(ops []*opRec) *view {
	v := newView()
	v.seedErr = s.cache.seedErr
	for _, t := range s.cache.seed {
		v.byID[t.id] = t
		v.turns = append(v.turns, t)
	}
	for _, c := range s.cache.files {
		t := c.t
		if t.id == "" {
			continue
		}
		if seed, ok := v.byID[t.id]; ok && seed.seed {
			// A capture naming a seed turn's id adds to that turn.
			m := newTurn(seed.id)
			*m = *seed
			m.byPath = map[string]*tfile{}
			m.files = append([]*tfile(nil), seed.files...)
			for k, f := range seed.byPath {
				m.byPath[k] = f
			}
			for _, f := range t.files {
				if _, ok := m.byPath[f.path]; !ok {
					m.files = append(m.files, f)
					m.byPath[f.path] = f
				}
			}
			v.byID[t.id] = m
			for i, x := range v.turns {
				if x == seed {
					v.turns[i] = m
				}
			}
			continue
		}
		v.byID[t.id] = t
		v.turns = append(v.turns, t)
	}
	sort.SliceStable(v.turns, func(i, j int) bool {
		a, b := v.turns[i], v.turns[j]
		if a.seq != b.seq {
			return a.seq < b.seq
		}
		return a.id < b.id
	})
	v.replay(ops)
	v.markReverted()
	return v
}

// replay walks the operations in order to find which turns stand rewound,
// the undo and redo stacks, and the paths operations failed to put back.
//
// An operation whose every step failed changed nothing and stands for
// nothing: its turns are not rewound, and the stacks do not move; the
// paths it failed are failed all the same. A retry
// of a rewind (rewinding a turn whose rewind failed some paths) is a
// rewind of its own, on the undo stack; a retry of an undo or a redo
// finishes that undo or redo and leaves the stacks as they are. Either
// way the failures it tried again are now its own.
func (v *view) replay(ops []*opRec) {
	for _, o := range ops {
		v.ops = append(v.ops, o)
		v.opByID[o.id] = o
		if !o.done || o.abandoned {
			continue
		}
		if o.none {
			// It stands for nothing, but what it failed to put back is
			// failed until something puts it: shown as failed, like the
			// failures of an operation that changed something.
			v.opState[o.id] = StateFailed
			if len(o.fails) > 0 {
				v.fails[o.id] = o.fails
			}
			if o.retry != "" {
				if v.noneRetries == nil {
					v.noneRetries = map[string][]string{}
				}
				v.noneRetries[o.retry] = append(v.noneRetries[o.retry], o.id)
			}
			continue
		}
		if o.retry != "" {
			v.dropFails(o.retry)
		}
		switch {
		case o.kind == KindRewind || o.kind == KindRevert:
			if o.kind == KindRewind {
				for _, t := range o.turns {
					v.rewound[t] = true
				}
			}
			v.undo = append(v.undo, application{rewind: o, via: o})
			// The undos on the redo stack can no longer be retried, nor
			// redone: what they failed is moot.
			for _, a := range v.redo {
				v.dropFails(a.via.id)
			}
			v.redo = nil
			v.retryUndo, v.retryRedo = nil, nil
		case o.retry != "" && o.kind == KindUndo:
			v.retryUndo = o
		case o.retry != "" && o.kind == KindRedo:
			v.retryRedo = o
		case o.kind == KindUndo:
			if n := len(v.undo); n > 0 {
				a := v.undo[n-1]
				v.undo = v.undo[:n-1]
				v.dropFails(a.via.id)
				if a.rewind.kind == KindRewind {
					v.unrewind(a.rewind.turns)
				}
				v.redo = append(v.redo, application{rewind: a.rewind, via: o})
				v.opState[a.rewind.id] = StateUndone
			}
			v.retryUndo, v.retryRedo = o, nil
		case o.kind == KindRedo:
			if n := len(v.redo); n > 0 {
				a := v.redo[n-1]
				v.redo = v.redo[:n-1]
				v.dropFails(a.via.id)
				for _, t := range a.rewind.turns {
					v.rewound[t] = a.rewind.kind == KindRewind || v.rewound[t]
				}
				v.undo = append(v.undo, application{rewind: a.rewind, via: o})
				v.opState[a.rewind.id] = StateActive
			}
			v.retryUndo, v.retryRedo = nil, o
		}
		v.opState[o.id] = StateActive
		if len(o.fails) > 0 {
			v.fails[o.id] = o.fails
		}
	}
}

// dropFails forgets what operation id failed, once it is moot: the
// operation was undone (or retried), and so were the retries of it that
// changed nothing.
func (v *view) dropFails(id string) {
	delete(v.fails, id)
	for _, r := range v.noneRetries[id] {
		delete(v.fails, r)
	}
}

// unrewind brings back turns an undone application had rewound, unless
// another application still in effect (a rewind and its retry) rewinds
// them too.
func (v *view) unrewind(turns []string) {
	for _, t := range turns {
		v.rewound[t] = false
	}
	for _, a := range v.undo {
		if a.rewind.kind != KindRewind {
			continue // a revert takes changes out, it rewinds no turn
		}
		for _, t := range a.rewind.turns {
			v.rewound[t] = true
		}
	}
}

func newView() *view {
	return &view{byID: map[string]*turn{}, opByID: map[string]*opRec{}, rewound: map[string]bool{}, opState: map[string]State{}, fails: map[string][]Failure{}}
}

// steps reads an operation's steps file (cached: it never changes once
// the operation is logged). Caller holds s.mu.
func (s *Store) steps(id string) ([]record, error) {
	if st, ok := s.cache.steps[id]; ok {
		return st, nil
	}
	name := "ops/" + id + ".steps"
	data, err := s.dir.ReadFile(name)
	if err != nil {
		return nil, errf("read %s: %w", s.path(name), err)
	}
	res := decodeRecords(data)
	if res.torn || len(res.bad) > 0 {
		return nil, errf("%s is damaged: %w", s.path(name), ErrCorrupt)
	}
	s.cache.steps[id] = res.recs
	return res.recs, nil
}

func (v *view) state(t *turn) State {
	if v.rewound[t.id] {
		return StateRewound
	}
	if v.reverted[t.id] {
		return StateReverted
	}
	return StateActive
}

var _ = os.O_RDONLY
