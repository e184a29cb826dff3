// Package watch is ckpt's file-system watcher: one component behind both
// `ckpt watch`, which records an agent's changes into turns from events,
// and `ckpt watch --serve`, the background watcher that tells shell
// sweeps which paths changed so they need not list the whole tree.
//
// A Tree watches every folder a sweep covers (the same ignore rules, from
// store.Rules) with one inotify instance, and keeps, in memory only, the
// paths that changed since each token it handed out. It answers
// "what changed since token T" exactly or not at all: a token from
// another instance, one older than a lost event (a queue overflow), or
// any token while a watch limit is hit gets "cannot say", which costs the
// asker one full sweep. Before it answers it writes a cookie file and
// waits for that file's own event, so every change made before the
// question is in the answer (the way watchman syncs its queries).
//
// Where inotify is missing (macOS, whose kqueue needs a descriptor per
// file) Open fails with ErrUnsupported, and callers sweep instead.
//
// ckpt-hook never links this package: it starts a watcher by running the
// ckpt executable beside it.
package watch

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// ErrUnsupported means no watcher can serve this tree here: no inotify,
// or a file system whose events cannot be trusted.
var ErrUnsupported = errors.New("watch: file-system events cannot be trusted here")

// MaxChanged bounds the paths a Tree remembers between two questions;
// past it, it forgets them and the next question gets "cannot say".
const MaxChanged = 100_000

// maxAnswer bounds the paths in one answer: past it a full sweep is
// about as cheap.
const maxAnswer = 20_000

// cookieDir is the store subfolder where questions write their cookies.
const cookieDir = "cookies"

// Tree watches a project's tree. Its methods are safe for concurrent use.
type Tree struct {
	root     string // absolute, symlinks resolved
	storeAbs string // the store folder
	src      source // the platform's event source

	mu      sync.Mutex
	id      string // this instance: tokens of others are unknown
	seq     uint64 // the newest change's number
	floor   uint64 // tokens below it are unknown (events were lost)
	changed map[string]uint64
	limit   string // set while a watch limit keeps folders unwatched
	lost    int    // queue overflows seen
	said    map[string]bool
	cookies map[string]chan struct{}
	nCookie int

	signal chan struct{} // one pending signal: something changed
	git    chan struct{} // one pending signal: git's HEAD or a branch moved
	notes  chan string   // sentences to say once (overflow, limits)
	done   chan struct{} // closed when the tree stops
	why    string        // why it stopped, when it did
	once   sync.Once
}

// source is what the platform provides: watching folders and reporting
// changes through the Tree's note methods.
type source interface {
	start(t *Tree) error
	folders() int
	close()
}

// Open starts watching the project at root, whose store folder is
// storeAbs. It returns once every folder is watched.
func Open(root, storeAbs string) (*Tree, error) {
	if why := untrusted(root); why != "" {
		return nil, fmt.Errorf("%w: %s", ErrUnsupported, why)
	}
	t := &Tree{root: root, storeAbs: storeAbs, changed: map[string]uint64{}, said: map[string]bool{},
		cookies: map[string]chan struct{}{}, signal: make(chan struct{}, 1), git: make(chan struct{}, 1), notes: make(chan string, 8),
		done: make(chan struct{}), id: strconv.FormatInt(time.Now().UnixNano(), 36)}
	src, err := newSource()
	if err != nil {
		return nil, err
	}
	t.src = src
	if err := src.start(t); err != nil {
		src.close()
		return nil, err
	}
	return t, nil
}

// Root is the folder watched.
func (t *Tree) Root() string { return t.root }

// Changed signals (one pending signal at a time) when something in the
// tree changed.
func (t *Tree) Changed() <-chan struct{} { return t.signal }

// HeadMoved signals when git's HEAD or a branch may have moved (a
// commit): .git itself is never swept, but its HEAD and refs are watched.
func (t *Tree) HeadMoved() <-chan struct{} { return t.git }

func (t *Tree) gitMoved() {
	select {
	case t.git <- struct{}{}:
	default:
	}
}

// Notes carries sentences worth saying once: a lost event queue, a watch
// limit, with the setting to raise.
func (t *Tree) Notes() <-chan string { return t.notes }

// Done is closed when the tree stops watching (Close, or the root or the
// store went away); Why then says why.
func (t *Tree) Done() <-chan struct{} { return t.done }

// Why says why the tree stopped.
func (t *Tree) Why() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.why
}

// Close stops watching.
func (t *Tree) Close() { t.stop("closed") }

func (t *Tree) stop(why string) {
	t.once.Do(func() {
		t.mu.Lock()
		t.why = why
		t.mu.Unlock()
		t.src.close()
		close(t.done)
	})
}

// Status is what a Tree can say of itself.
type Status struct {
	Folders int    // folders watched
	Limit   string // set while a watch limit leaves some unwatched
	Lost    int    // event queue overflows
}

// Status says what the tree watches.
func (t *Tree) Status() Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	return Status{Folders: t.src.folders(), Limit: t.limit, Lost: t.lost}
}

// note records that rel (relative to the root, "" the root) may have
// changed.
func (t *Tree) note(rel string) {
	t.mu.Lock()
	t.seq++
	t.changed[rel] = t.seq
	if len(t.changed) > MaxChanged {
		t.floor = t.seq
		clear(t.changed)
	}
	t.mu.Unlock()
	select {
	case t.signal <- struct{}{}:
	default:
	}
}

// lose records that events were lost: every token handed out so far is
// unknown from now on.
func (t *Tree) lose(sentence string) {
	t.mu.Lock()
	t.seq++
	t.floor = t.seq
	t.lost++
	clear(t.changed)
	t.mu.Unlock()
	t.say("overflow", sentence)
	select {
	case t.signal <- struct{}{}:
	default:
	}
}

// setLimit records (or, with "", clears) a watch limit that leaves
// folders unwatched.
func (t *Tree) setLimit(sentence string) {
	t.mu.Lock()
	t.limit = sentence
	t.mu.Unlock()
	if sentence != "" {
		t.say("limit", sentence)
	}
}

// say sends a sentence once per kind.
func (t *Tree) say(kind, sentence string) {
	t.mu.Lock()
	first := !t.said[kind]
	t.said[kind] = true
	t.mu.Unlock()
	if first {
		select {
		case t.notes <- sentence:
		default:
		}
	}
}

// Since answers which paths may have changed since token: it implements
// store.ChangeFeed. It first waits for its own cookie's event, so what
// changed before the question is in the answer.
func (t *Tree) Since(token string) (store.Changes, error) {
	if err := t.sync(time.Second); err != nil {
		return store.Changes{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	next := t.id + ":" + strconv.FormatUint(t.seq, 10)
	id, n, ok := strings.Cut(token, ":")
	since, err := strconv.ParseUint(n, 10, 64)
	if !ok || err != nil || id != t.id || since < t.floor || since > t.seq || t.limit != "" {
		return store.Changes{Next: next}, nil
	}
	var paths []string
	for p, s := range t.changed {
		if s > since {
			paths = append(paths, p)
		} else {
			delete(t.changed, p) // the store has moved past it
		}
	}
	t.floor = max(t.floor, since)
	if len(paths) > maxAnswer {
		return store.Changes{Next: next}, nil
	}
	return store.Changes{Paths: paths, Next: next, Known: true}, nil
}

// sync writes a cookie file and waits for its event: events are read in
// the order they happened, so every change before it has been noted.
func (t *Tree) sync(timeout time.Duration) error {
	t.mu.Lock()
	t.nCookie++
	name := t.id + "-" + strconv.Itoa(t.nCookie)
	ch := make(chan struct{})
	t.cookies[name] = ch
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.cookies, name)
		t.mu.Unlock()
	}()
	p := path.Join(t.storeAbs, cookieDir, name)
	if err := writeCookie(p); err != nil {
		return fmt.Errorf("watch: cookie %s: %w", p, err)
	}
	defer removeCookie(p)
	select {
	case <-ch:
		return nil
	case <-t.done:
		return fmt.Errorf("watch: stopped: %s", t.Why())
	case <-time.After(timeout):
		return fmt.Errorf("watch: events lag more than %v behind", timeout)
	}
}

// cookieSeen wakes the question waiting for the cookie name.
func (t *Tree) cookieSeen(name string) {
	t.mu.Lock()
	ch := t.cookies[name]
	delete(t.cookies, name)
	t.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}
