package ui

import (
	"context"
	"errors"
	"sync"

	"github.com/ckpt-dev/ckpt/store"
)

// errEnded is a store call made after the UI ended.
var errEnded = errors.New("the UI has ended")

// storeGate counts the store calls under way. Bubble Tea does not wait for
// the commands it runs when a program ends, so without it the caller could
// close the store under a call still reading or writing it, and the number
// of a descriptor closed so can be reused by the next file opened.
type storeGate struct {
	mu    sync.RWMutex
	ended bool
}

// enter begins a call; it is false once the gate is shut.
func (g *storeGate) enter() bool {
	g.mu.RLock()
	if g.ended {
		g.mu.RUnlock()
		return false
	}
	return true
}

func (g *storeGate) leave() { g.mu.RUnlock() }

// shut waits for the calls under way to return and fails every later one.
func (g *storeGate) shut() {
	g.mu.Lock()
	g.ended = true
	g.mu.Unlock()
}

// held is st with its calls made through a gate.
type held struct {
	st Store
	g  *storeGate
}

// call runs f through g, or fails with errEnded once g is shut.
func call[T any](g *storeGate, f func() (T, error)) (T, error) {
	if !g.enter() {
		var zero T
		return zero, errEnded
	}
	defer g.leave()
	return f()
}

func (h held) Log(withStatus bool) ([]store.Entry, error) {
	return call(h.g, func() ([]store.Entry, error) { return h.st.Log(withStatus) })
}

func (h held) Files(turn string, withStatus bool) ([]store.File, error) {
	return call(h.g, func() ([]store.File, error) { return h.st.Files(turn, withStatus) })
}

func (h held) ReadImage(img store.Image) ([]byte, error) {
	return call(h.g, func() ([]byte, error) { return h.st.ReadImage(img) })
}

func (h held) ReadDisk(path string) (store.Image, []byte, error) {
	if !h.g.enter() {
		return store.Image{}, nil, errEnded
	}
	defer h.g.leave()
	return h.st.ReadDisk(path)
}

func (h held) PlanRewind(turn string, o store.RewindOptions) (*store.Plan, error) {
	return call(h.g, func() (*store.Plan, error) { return h.st.PlanRewind(turn, o) })
}

func (h held) PlanRevert(turn string, o store.RevertOptions) (*store.Plan, error) {
	return call(h.g, func() (*store.Plan, error) { return h.st.PlanRevert(turn, o) })
}

func (h held) PlanUndo(force bool) (*store.Plan, error) {
	return call(h.g, func() (*store.Plan, error) { return h.st.PlanUndo(force) })
}

func (h held) PlanRedo(force bool) (*store.Plan, error) {
	return call(h.g, func() (*store.Plan, error) { return h.st.PlanRedo(force) })
}

func (h held) Apply(p *store.Plan, progress func(done, total int)) (*store.Result, error) {
	return call(h.g, func() (*store.Result, error) { return h.st.Apply(p, progress) })
}

func (h held) Errors() ([]string, error) {
	return call(h.g, func() ([]string, error) { return h.st.Errors() })
}

func (h held) Size() (int64, error) {
	return call(h.g, func() (int64, error) { return h.st.Size() })
}

func (h held) Root() string { return h.st.Root() }

func (h held) Conversation(e store.Entry) (*Conversation, error) {
	return call(h.g, func() (*Conversation, error) { return h.st.Conversation(e) })
}

func (h held) Watch(ctx context.Context) (<-chan struct{}, error) {
	return call(h.g, func() (<-chan struct{}, error) { return h.st.Watch(ctx) })
}

// bare is the store under st's gate, for a caller that needs its own type
// (StartWatcher); ok is false once the gate is shut.
func bare(st Store) (inner Store, done func(), ok bool) {
	h, isHeld := st.(held)
	if !isHeld {
		return st, func() {}, true
	}
	if !h.g.enter() {
		return nil, nil, false
	}
	return h.st, h.g.leave, true
}
