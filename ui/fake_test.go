package ui

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// fakeStore is an in-memory store that gives canned answers: turns and
// files as a test writes them, plans listing each path's oldest pre-image
// (or, for undo and redo, the bytes before and after the operation), and
// an Apply that writes each step's bytes as the plan says, with no logic
// of its own about what a rewind or an undo does. Tests of what the real
// store does run against it (realStore). It counts calls, so tests can
// check Update made none.
type fakeStore struct {
	mu      sync.Mutex
	root    string
	turns   []*fakeTurn // oldest first
	ops     []*fakeOp   // oldest first
	blobs   map[store.BlobID][]byte
	disk    map[string][]byte
	errs    []string
	calls   int
	watch   chan struct{}
	planErr error // returned by the next plan, once
	applyN  int
	// statusLogs counts Log(true) calls: the expensive badge pass.
	statusLogs int
	// failing makes a rewind fail on these paths, with the reason.
	failing map[string]string
	// plans remembers what each plan was made from, so Apply can check
	// that the plan is still what the store would do (a plan id).
	plans map[*store.Plan]planArgs
	// applied lists each applied plan's steps, by path.
	applied [][]string
	// git, when set, is the canned answer to what a rewind's turns did
	// to git; gitIndexApplied counts applied plans that wrote the index.
	git             *store.GitChange
	gitIndexApplied int
	// convs are the canned conversations by turn id; a turn without one
	// has none to show.
	convs map[string]*Conversation
}

// Conversation is the canned conversation of e.
func (f *fakeStore) Conversation(e store.Entry) (*Conversation, error) {
	f.call()
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.convs[e.ID]; c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("turn %s: its agent named no transcript", e.ID)
}

type planArgs struct {
	kind   store.Kind
	target string
	keep   []string
	force  bool
}

type fakeTurn struct {
	entry store.Entry
	files []store.File
}

type fakeOp struct {
	entry  store.Entry
	failed map[string]string // paths it could not restore
	before map[string][]byte // what the op's paths held before it (nil: absent)
	after  map[string][]byte
}

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func newFake() *fakeStore {
	return &fakeStore{root: "/home/dev/shop", blobs: map[store.BlobID][]byte{}, disk: map[string][]byte{},
		failing: map[string]string{}, plans: map[*store.Plan]planArgs{}}
}

// failedOf is the reason path failed in the newest op still in effect
// that touched turn, or "".
func (f *fakeStore) failedOf(turn, path string) string {
	for i := len(f.ops) - 1; i >= 0; i-- {
		o := f.ops[i]
		if o.entry.State != store.StateActive || o.entry.Kind == store.KindUndo {
			continue
		}
		for _, t := range o.entry.Turns {
			if t == turn {
				if _, ok := o.before[path]; ok {
					return o.failed[path]
				}
			}
		}
	}
	return ""
}

func (f *fakeStore) keep(b []byte) store.Image {
	sum := sha256.Sum256(b)
	f.blobs[sum] = append([]byte(nil), b...)
	return store.Image{Kind: store.ImageContent, SHA256: sum, Size: int64(len(b)), Kept: true}
}

// write is an agent turn's write: pre-image, new bytes on disk, post-image.
func (f *fakeStore) write(turn, label string, at time.Time, path string, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.turn(turn, label, at)
	pre := store.Image{Kind: store.ImageAbsent}
	if old, ok := f.disk[path]; ok {
		pre = f.keep(old)
	}
	file := store.File{Path: path, Pre: pre}
	if data == nil {
		delete(f.disk, path)
		file.Post = &store.Image{Kind: store.ImageAbsent}
	} else {
		f.disk[path] = data
		p := f.keep(data)
		file.Post = &p
	}
	t.files = append(t.files, file)
	t.entry.Files = len(t.files)
}

func (f *fakeStore) turn(id, label string, at time.Time) *fakeTurn {
	for _, t := range f.turns {
		if t.entry.ID == id {
			return t
		}
	}
	t := &fakeTurn{entry: store.Entry{ID: id, Kind: store.KindAgent, Label: label, At: at, State: store.StateActive,
		Source: &store.Source{Agent: "claude", Session: "s1"}}}
	f.turns = append(f.turns, t)
	return t
}

func (f *fakeStore) setDisk(path string, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if data == nil {
		delete(f.disk, path)
	} else {
		f.disk[path] = data
	}
	if f.watch != nil {
		select {
		case f.watch <- struct{}{}:
		default:
		}
	}
}

func (f *fakeStore) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func (f *fakeStore) call() {
	f.calls++
}

func (f *fakeStore) status(file store.File, active bool) store.Status {
	now, ok := f.disk[file.Path]
	if file.Post != nil && active {
		want, wok := []byte(nil), file.Post.Kind != store.ImageAbsent
		if wok {
			want = f.blobs[file.Post.SHA256]
		}
		if ok != wok || string(now) != string(want) {
			return store.StatusHandEdited
		}
	}
	switch {
	case file.Pre.Kind == store.ImageAbsent && ok:
		return store.StatusCreated
	case file.Pre.Kind == store.ImageContent && !ok:
		return store.StatusDeleted
	case file.Pre.Kind == store.ImageContent && string(f.blobs[file.Pre.SHA256]) != string(now):
		return store.StatusModified
	case file.Pre.Kind == store.ImageDir && ok:
		return store.StatusModified // a folder then, a file now
	}
	return store.StatusUnchanged
}

func (f *fakeStore) Log(withStatus bool) ([]store.Entry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call()
	if withStatus {
		f.statusLogs++
	}
	var all []store.Entry
	for _, t := range f.turns {
		e := t.entry
		e.HandEdited = -1
		if withStatus {
			e.HandEdited = 0
			if e.State == store.StateActive {
				for _, file := range t.files {
					if f.status(file, true) == store.StatusHandEdited {
						e.HandEdited++
					}
				}
			}
		}
		all = append(all, e)
	}
	for _, o := range f.ops {
		e := o.entry
		e.Failed = nil
		for p, why := range o.failed {
			e.Failed = append(e.Failed, store.Failure{Path: p, Reason: why})
		}
		e.HandEdited = -1
		if withStatus {
			e.HandEdited = 0
		}
		all = append(all, e)
	}
	// Newest first: ops and turns interleave by time.
	sort.SliceStable(all, func(i, j int) bool { return all[i].At.After(all[j].At) })
	return all, nil
}

func (f *fakeStore) Files(turn string, withStatus bool) ([]store.File, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call()
	for _, t := range f.turns {
		if t.entry.ID == turn {
			out := append([]store.File(nil), t.files...)
			if withStatus {
				for i := range out {
					out[i].Status = f.status(out[i], t.entry.State == store.StateActive)
					if why := f.failedOf(turn, out[i].Path); why != "" {
						out[i].Status, out[i].Reason = store.StatusFailed, why
					}
					if b, ok := f.disk[out[i].Path]; ok {
						sum := sha256.Sum256(b)
						out[i].Disk = store.Image{Kind: store.ImageContent, SHA256: sum, Size: int64(len(b))}
					} else {
						out[i].Disk = store.Image{Kind: store.ImageAbsent}
					}
				}
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("files of %s: %w", turn, store.ErrUnknownTurn)
}

func (f *fakeStore) ReadImage(img store.Image) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call()
	b, ok := f.blobs[img.SHA256]
	if !ok {
		return nil, fmt.Errorf("blob %s: %w", img.SHA256, store.ErrCorrupt)
	}
	return b, nil
}

func (f *fakeStore) ReadDisk(path string) (store.Image, []byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call()
	b, ok := f.disk[path]
	if !ok {
		return store.Image{Kind: store.ImageAbsent}, nil, nil
	}
	sum := sha256.Sum256(b)
	return store.Image{Kind: store.ImageContent, SHA256: sum, Size: int64(len(b))}, b, nil
}

func (f *fakeStore) takeErr() error {
	err := f.planErr
	f.planErr = nil
	return err
}

// plan builds the steps that put each path of turns back to its oldest
// pre-image among them.
func (f *fakeStore) plan(kind store.Kind, target string, turns []*fakeTurn, keep []string) *store.Plan {
	p := &store.Plan{Kind: kind, Target: target, Keep: keep}
	seen := map[string]bool{}
	leave := map[string]bool{}
	for _, k := range keep {
		leave[k] = true
	}
	for _, t := range turns {
		p.Turns = append(p.Turns, t.entry.ID)
		for _, file := range t.files {
			if seen[file.Path] {
				continue
			}
			seen[file.Path] = true
			s := store.Step{Path: file.Path, Want: file.Pre, Now: f.now(file.Path), HandEdited: f.status(file, true) == store.StatusHandEdited}
			if leave[file.Path] {
				s.Do, s.Want = store.ActLeave, s.Now
				p.Steps = append(p.Steps, s)
				continue
			}
			if file.Pre.Kind == store.ImageAbsent {
				s.Do = store.ActDelete
			} else {
				s.Do = store.ActRestore
			}
			p.Steps = append(p.Steps, s)
		}
	}
	return p
}

func (f *fakeStore) now(path string) store.Image {
	b, ok := f.disk[path]
	if !ok {
		return store.Image{Kind: store.ImageAbsent}
	}
	sum := sha256.Sum256(b)
	return store.Image{Kind: store.ImageContent, SHA256: sum, Size: int64(len(b))}
}

func (f *fakeStore) PlanRewind(turn string, o store.RewindOptions) (*store.Plan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call()
	if err := f.takeErr(); err != nil {
		return nil, err
	}
	keep := o.Keep
	p, err := f.planRewind(turn, keep)
	if p != nil && f.git != nil {
		g := *f.git // canned: what the turns did to git
		p.Git = &g
		if o.GitIndex {
			p.GitIndex = true
			p.Index = &store.IndexStep{Now: store.Image{Kind: store.ImageContent, SHA256: sha256.Sum256([]byte("now"))}, Want: store.Image{Kind: store.ImageContent, SHA256: sha256.Sum256([]byte("before"))}}
		}
	}
	if p != nil {
		f.plans[p] = planArgs{kind: store.KindRewind, target: turn, keep: keep}
	}
	return p, err
}

// PlanRevert gives a canned revert: the rewind of the turn's own files
// (the fake merges nothing; the real store's revert is tested with it).
func (f *fakeStore) PlanRevert(turn string, opt store.RevertOptions) (*store.Plan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call()
	if err := f.takeErr(); err != nil {
		return nil, err
	}
	p, err := f.planRevert(turn, opt.Keep)
	if p != nil {
		f.plans[p] = planArgs{kind: store.KindRevert, target: turn, keep: opt.Keep}
	}
	return p, err
}

func (f *fakeStore) planRevert(turn string, keep []string) (*store.Plan, error) {
	p, err := f.planRewind(turn, keep)
	if err != nil {
		return nil, err
	}
	mine := map[string]bool{}
	for _, t := range f.turns {
		if t.entry.ID == turn {
			for _, fl := range t.files {
				mine[fl.Path] = true
			}
		}
	}
	p.Kind, p.Turns = store.KindRevert, []string{turn}
	var steps []store.Step
	for _, st := range p.Steps {
		if mine[st.Path] {
			steps = append(steps, st)
		}
	}
	p.Steps = steps
	return p, nil
}

func (f *fakeStore) planRewind(turn string, keep []string) (*store.Plan, error) {
	var from = -1
	for i, t := range f.turns {
		if t.entry.ID == turn {
			from = i
		}
	}
	if from < 0 {
		return nil, fmt.Errorf("rewind %s: %w", turn, store.ErrUnknownTurn)
	}
	if f.turns[from].entry.State != store.StateActive {
		// A retry of what the rewind in effect could not restore.
		p := &store.Plan{Kind: store.KindRewind, Target: turn}
		if o := f.lastFailed(); o != nil {
			p.Retry = o.entry.ID
		}
		for _, t := range f.turns[from:] {
			for _, file := range t.files {
				if f.failedOf(t.entry.ID, file.Path) != "" && !contains(keep, file.Path) {
					p.Turns = appendNew(p.Turns, t.entry.ID)
					p.Steps = append(p.Steps, store.Step{Path: file.Path, Do: store.ActRestore, Want: file.Pre, Now: f.now(file.Path)})
				}
			}
		}
		if len(p.Steps) == 0 {
			return nil, fmt.Errorf("rewind %s: %w", turn, store.ErrRewound)
		}
		return p, nil
	}
	var ts []*fakeTurn
	for _, t := range f.turns[from:] {
		if t.entry.State == store.StateActive {
			ts = append(ts, t)
		}
	}
	return f.plan(store.KindRewind, turn, ts, keep), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func appendNew(list []string, s string) []string {
	if contains(list, s) {
		return list
	}
	return append(list, s)
}

func (f *fakeStore) lastOp(state store.State) *fakeOp {
	for i := len(f.ops) - 1; i >= 0; i-- {
		o := f.ops[i]
		if (o.entry.Kind == store.KindRewind || o.entry.Kind == store.KindRedo) && o.entry.State == state {
			return o
		}
	}
	return nil
}

func (f *fakeStore) PlanUndo(force bool) (*store.Plan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call()
	if err := f.takeErr(); err != nil {
		return nil, err
	}
	p, err := f.planOp(store.KindUndo, force)
	if p != nil {
		f.plans[p] = planArgs{kind: store.KindUndo, force: force}
	}
	return p, err
}

func (f *fakeStore) PlanRedo(force bool) (*store.Plan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call()
	if err := f.takeErr(); err != nil {
		return nil, err
	}
	p, err := f.planOp(store.KindRedo, force)
	if p != nil {
		f.plans[p] = planArgs{kind: store.KindRedo, force: force}
	}
	return p, err
}

// planOp is the canned undo (or redo) plan: the newest op in effect (or
// undone), its paths back to the bytes before it (or after it).
func (f *fakeStore) planOp(kind store.Kind, force bool) (*store.Plan, error) {
	state, want, none := store.StateActive, func(o *fakeOp) map[string][]byte { return o.before }, store.ErrNothingToUndo
	if kind == store.KindRedo {
		state, want, none = store.StateUndone, func(o *fakeOp) map[string][]byte { return o.after }, store.ErrNothingToRedo
	}
	o := f.lastOp(state)
	if o == nil {
		return nil, none
	}
	p := &store.Plan{Kind: kind, Target: o.entry.ID, Turns: o.entry.Turns, Force: force}
	p.Steps = f.stepsTo(want(o))
	return p, nil
}

// replan is the plan the fake would make now from the same request.
func (f *fakeStore) replan(a planArgs) (*store.Plan, error) {
	switch a.kind {
	case store.KindRewind:
		return f.planRewind(a.target, a.keep)
	case store.KindRevert:
		return f.planRevert(a.target, a.keep)
	}
	return f.planOp(a.kind, a.force)
}

// stepsTo is the steps that put each path back to the bytes given.
func (f *fakeStore) stepsTo(want map[string][]byte) []store.Step {
	var steps []store.Step
	for path, b := range want {
		s := store.Step{Path: path, Do: store.ActRestore, Now: f.now(path)}
		if b == nil {
			s.Do, s.Want = store.ActDelete, store.Image{Kind: store.ImageAbsent}
		} else {
			s.Want = f.keep(b)
		}
		steps = append(steps, s)
	}
	sortSteps(steps)
	return steps
}

func sortSteps(s []store.Step) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Path < s[j-1].Path; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// Apply carries out a plan the fake made, if it would make the same plan
// now (else ErrPlanChanged, as a plan id does): each step's bytes are
// written as the plan says, a path in failing fails a rewind, and the log
// gains the operation.
func (f *fakeStore) Apply(p *store.Plan, progress func(done, total int)) (*store.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call()
	args, ok := f.plans[p]
	if !ok {
		return nil, fmt.Errorf("apply: a plan the store never made")
	}
	if again, err := f.replan(args); err != nil || fingerprint(again) != fingerprint(p) {
		return nil, fmt.Errorf("%s: %w", p.Kind, store.ErrPlanChanged)
	}
	f.applyN++
	if p.Index != nil {
		f.gitIndexApplied++
	}
	id := fmt.Sprintf("op-%d", f.applyN)
	op := &fakeOp{before: map[string][]byte{}, after: map[string][]byte{}, failed: map[string]string{}}
	res := &store.Result{Op: id, Applied: true}
	var paths []string
	for i, s := range p.Steps {
		if s.Do == store.ActLeave {
			res.Kept = append(res.Kept, s.Path)
			continue
		}
		paths = append(paths, s.Path)
		op.before[s.Path] = f.disk[s.Path]
		switch why := f.failing[s.Path]; {
		case why != "" && p.Kind == store.KindRewind:
			op.failed[s.Path] = why
			res.Failed = append(res.Failed, store.Failure{Path: s.Path, Reason: why})
		case s.Want.Kind == store.ImageContent:
			f.disk[s.Path] = f.blobs[s.Want.SHA256]
			res.Restored = append(res.Restored, s.Path)
		default:
			delete(f.disk, s.Path)
			res.Deleted = append(res.Deleted, s.Path)
		}
		if s.HandEdited {
			res.HandEdited = append(res.HandEdited, s.Path)
		}
		op.after[s.Path] = f.disk[s.Path]
		if progress != nil {
			progress(i+1, len(p.Steps))
		}
	}
	f.applied = append(f.applied, paths)
	f.logOp(op, id, p)
	return res, nil
}

// logOp adds the operation to the log and marks what it changed: the
// turns it rewound or brought back, the op an undo undid, the failed
// paths a retry put back.
func (f *fakeStore) logOp(op *fakeOp, id string, p *store.Plan) {
	retryOf := f.retryOf(p)
	at := t0.Add(time.Duration(len(f.turns)+len(f.ops)+1) * time.Minute)
	op.entry = store.Entry{ID: id, Kind: p.Kind, At: at, State: store.StateActive, Files: len(p.Steps),
		Target: p.Target, Turns: p.Turns}
	state := store.StateRewound
	if p.Kind == store.KindUndo {
		state = store.StateActive
	}
	for _, t := range f.turns {
		if contains(p.Turns, t.entry.ID) {
			t.entry.State = state
		}
	}
	for _, o := range f.ops {
		if p.Kind == store.KindUndo && o.entry.ID == p.Target {
			o.entry.State = store.StateUndone
		}
	}
	if retryOf != nil {
		for path := range op.before {
			if op.failed[path] == "" {
				delete(retryOf.failed, path)
			}
		}
	}
	f.ops = append(f.ops, op)
}

// lastFailed is the newest op with failed paths, or nil.
func (f *fakeStore) lastFailed() *fakeOp {
	for i := len(f.ops) - 1; i >= 0; i-- {
		if len(f.ops[i].failed) > 0 {
			return f.ops[i]
		}
	}
	return nil
}

// retryOf is the op whose failed paths a rewind plan retries, or nil.
func (f *fakeStore) retryOf(p *store.Plan) *fakeOp {
	if p.Kind != store.KindRewind {
		return nil
	}
	for _, t := range f.turns {
		if t.entry.ID == p.Target && t.entry.State != store.StateActive {
			for i := len(f.ops) - 1; i >= 0; i-- {
				if len(f.ops[i].failed) > 0 {
					return f.ops[i]
				}
			}
		}
	}
	return nil
}

func (f *fakeStore) Errors() ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call()
	return append([]string(nil), f.errs...), nil
}

func (f *fakeStore) Size() (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call()
	var n int64
	for _, b := range f.blobs {
		n += int64(len(b))
	}
	return n, nil
}

func (f *fakeStore) Root() string { return f.root }

func (f *fakeStore) Watch(ctx context.Context) (<-chan struct{}, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watch = make(chan struct{}, 1)
	return f.watch, nil
}

// sample is the store the goldens and flows use: a created file, a
// deleted file, a modified one changed since the agent, an older turn.
func sample() *fakeStore {
	f := newFake()
	f.disk["server.js"] = []byte("const http = require(\"http\");\n\nhttp.createServer((req, res) => {\n  res.end(\"hi\");\n}).listen(3000);\n")
	f.disk["legacy.js"] = []byte("// old helpers\nfunction $(id) { return document.getElementById(id); }\n")
	f.disk["style.css"] = []byte("body {\n  color: #222;\n}\n")
	f.write("1", "add a dark theme", t0, "style.css", []byte("body {\n  color: #eee;\n  background: #111;\n}\n"))
	f.write("1", "add a dark theme", t0, "theme.css", []byte(".dark { color: #eee; }\n"))
	f.write("2", "drop the legacy helpers", t0.Add(time.Minute), "legacy.js", nil)
	f.write("3", "read the port from config", t0.Add(2*time.Minute), "src/config.js", []byte("module.exports = { port: 3000 };\n"))
	f.write("3", "read the port from config", t0.Add(2*time.Minute), "server.js",
		[]byte("const http = require(\"http\");\nconst config = require(\"./src/config\");\n\nhttp.createServer((req, res) => {\n  res.end(\"hi\");\n}).listen(config.port);\n"))
	// A hand edit after the agent.
	f.disk["server.js"] = append([]byte("// Serve the shop.\n"), f.disk["server.js"]...)
	return f
}
