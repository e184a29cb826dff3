package ui

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"sync"
	"time"

	"ckpt/store"
)

// fakeStore is an in-memory store with just enough rewind, undo and redo
// to drive the UI. It counts calls, so tests can check Update made none.
type fakeStore struct {
	mu      sync.Mutex
	root    string
	turns   []*fakeTurn // oldest first
	ops     []*fakeOp   // oldest first
	blobs   map[string][]byte
	disk    map[string][]byte
	errs    []string
	calls   int
	watch   chan struct{}
	planErr error // returned by the next plan, once
	applyN  int
	// statusLogs counts Log(true) calls: the expensive badge pass.
	statusLogs int
}

type fakeTurn struct {
	entry store.Entry
	files []store.File
}

type fakeOp struct {
	entry  store.Entry
	before map[string][]byte // what the op's paths held before it (nil: absent)
	after  map[string][]byte
}

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func newFake() *fakeStore {
	return &fakeStore{root: "/home/dev/shop", blobs: map[string][]byte{}, disk: map[string][]byte{}}
}

func (f *fakeStore) keep(b []byte) store.Image {
	sum := sha256.Sum256(b)
	h := hex.EncodeToString(sum[:])
	f.blobs[h] = append([]byte(nil), b...)
	return store.Image{Kind: store.ImageContent, SHA256: h, Size: int64(len(b)), Kept: true}
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
					if b, ok := f.disk[out[i].Path]; ok {
						sum := sha256.Sum256(b)
						out[i].Disk = store.Image{Kind: store.ImageContent, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(b))}
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
	return store.Image{Kind: store.ImageContent, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(b))}, b, nil
}

func (f *fakeStore) takeErr() error {
	err := f.planErr
	f.planErr = nil
	return err
}

// plan builds the steps that put each path of turns back to its oldest
// pre-image among them.
func (f *fakeStore) plan(kind store.Kind, target string, turns []*fakeTurn) *store.Plan {
	p := &store.Plan{Kind: kind, Target: target}
	seen := map[string]bool{}
	for _, t := range turns {
		p.Turns = append(p.Turns, t.entry.ID)
		for _, file := range t.files {
			if seen[file.Path] {
				continue
			}
			seen[file.Path] = true
			s := store.Step{Path: file.Path, Want: file.Pre, HandEdited: f.status(file, true) == store.StatusHandEdited}
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

func (f *fakeStore) PlanRewind(turn string) (*store.Plan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call()
	if err := f.takeErr(); err != nil {
		return nil, err
	}
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
		return nil, fmt.Errorf("rewind %s: %w", turn, store.ErrRewound)
	}
	var ts []*fakeTurn
	for _, t := range f.turns[from:] {
		if t.entry.State == store.StateActive {
			ts = append(ts, t)
		}
	}
	return f.plan(store.KindRewind, turn, ts), nil
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
	o := f.lastOp(store.StateActive)
	if o == nil {
		return nil, store.ErrNothingToUndo
	}
	p := &store.Plan{Kind: store.KindUndo, Target: o.entry.ID, Turns: o.entry.Turns, Force: force}
	for path, b := range o.before {
		s := store.Step{Path: path, Do: store.ActRestore}
		if b == nil {
			s.Do = store.ActDelete
		}
		p.Steps = append(p.Steps, s)
	}
	sortSteps(p.Steps)
	return p, nil
}

func (f *fakeStore) PlanRedo(force bool) (*store.Plan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call()
	if err := f.takeErr(); err != nil {
		return nil, err
	}
	o := f.lastOp(store.StateUndone)
	if o == nil {
		return nil, store.ErrNothingToRedo
	}
	p := &store.Plan{Kind: store.KindRedo, Target: o.entry.ID, Turns: o.entry.Turns, Force: force}
	for path, b := range o.after {
		s := store.Step{Path: path, Do: store.ActRestore}
		if b == nil {
			s.Do = store.ActDelete
		}
		p.Steps = append(p.Steps, s)
	}
	sortSteps(p.Steps)
	return p, nil
}

func sortSteps(s []store.Step) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Path < s[j-1].Path; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func (f *fakeStore) Apply(p *store.Plan, progress func(done, total int)) (*store.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.call()
	f.applyN++
	op := &fakeOp{before: map[string][]byte{}, after: map[string][]byte{}}
	id := fmt.Sprintf("op-%d", f.applyN)
	res := &store.Result{Op: id, Applied: true}
	for i, s := range p.Steps {
		if b, ok := f.disk[s.Path]; ok {
			op.before[s.Path] = b
		} else {
			op.before[s.Path] = nil
		}
		switch {
		case p.Kind == store.KindRewind && s.Do == store.ActRestore:
			f.disk[s.Path] = f.blobs[s.Want.SHA256]
			res.Restored = append(res.Restored, s.Path)
		case p.Kind == store.KindRewind:
			delete(f.disk, s.Path)
			res.Deleted = append(res.Deleted, s.Path)
		default:
			var src map[string][]byte
			for _, o := range f.ops {
				if o.entry.ID == p.Target {
					src = o.before
					if p.Kind == store.KindRedo {
						src = o.after
					}
				}
			}
			if b := src[s.Path]; b != nil {
				f.disk[s.Path] = b
				res.Restored = append(res.Restored, s.Path)
			} else {
				delete(f.disk, s.Path)
				res.Deleted = append(res.Deleted, s.Path)
			}
		}
		if s.HandEdited {
			res.HandEdited = append(res.HandEdited, s.Path)
		}
		if b, ok := f.disk[s.Path]; ok {
			op.after[s.Path] = b
		} else {
			op.after[s.Path] = nil
		}
		if progress != nil {
			progress(i+1, len(p.Steps))
		}
	}
	at := t0.Add(time.Duration(len(f.turns)+len(f.ops)+1) * time.Minute)
	op.entry = store.Entry{ID: id, Kind: p.Kind, At: at, State: store.StateActive, Files: len(p.Steps),
		Target: p.Target, Turns: p.Turns}
	setTurns := func(st store.State) {
		for _, id := range p.Turns {
			for _, t := range f.turns {
				if t.entry.ID == id {
					t.entry.State = st
				}
			}
		}
	}
	switch p.Kind {
	case store.KindRewind:
		setTurns(store.StateRewound)
	case store.KindUndo:
		setTurns(store.StateActive)
		for _, o := range f.ops {
			if o.entry.ID == p.Target {
				o.entry.State = store.StateUndone
			}
		}
	case store.KindRedo:
		// The redo is the op in effect now; the rewind it repeats stays
		// undone in the history.
		setTurns(store.StateRewound)
	}
	f.ops = append(f.ops, op)
	return res, nil
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
