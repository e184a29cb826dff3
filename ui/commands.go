package ui

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ckpt-dev/ckpt/diffview"
	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

// Messages. Each names what happened; commands are the verbs that cause them.
type (
	logLoadedMsg struct {
		entries    []store.Entry
		idx        logIndex // worked out in the command, off the UI goroutine
		withStatus bool
		handGen    int // the generation of the hand-edit counts it was given
		err        error
		took       time.Duration
	}
	filesLoadedMsg struct {
		turn       string
		files      []store.File
		withStatus bool
		err        error
	}
	diffLoadedMsg struct {
		seq  int
		d    *diffview.Diff
		note string
		err  error
	}
	infoLoadedMsg struct {
		size    int64
		errs    []loggedError // parsed in the command, once per read
		sizeErr error
		errsErr error
	}
	watchStartedMsg struct {
		gen int
		ch  <-chan struct{}
		err error
	}
	storeOpenedMsg struct {
		st  Store
		err error
	}
	storeChangedMsg struct{ gen int }
	watcherTriedMsg struct{ done bool }
	editedMsg       struct{ err error }
	watchEndedMsg   struct{ gen int }
	tickMsg         struct{}
)

// loadLog reads the log, with disk status or not; one without is given
// the hand-edit counts of hand, the last log read with it, here, off the
// UI goroutine.
func loadLog(st Store, withStatus bool, hand handCounts) tea.Cmd {
	return func() tea.Msg {
		start := time.Now()
		e, err := st.Log(withStatus)
		if !withStatus {
			keepHand(e, hand.byID)
		}
		return logLoadedMsg{entries: e, idx: indexLog(e, withStatus), withStatus: withStatus, handGen: hand.gen, err: err, took: time.Since(start)}
	}
}

func loadFiles(st Store, turn string, withStatus bool) tea.Cmd {
	return func() tea.Msg {
		f, err := st.Files(turn, withStatus)
		return filesLoadedMsg{turn: turn, files: f, withStatus: withStatus, err: err}
	}
}

func loadInfo(st Store) tea.Cmd {
	return func() tea.Msg {
		var m infoLoadedMsg
		m.size, m.sizeErr = st.Size()
		var lines []string
		lines, m.errsErr = st.Errors()
		m.errs = make([]loggedError, len(lines))
		for i, l := range lines {
			m.errs[i] = parseLogged(l)
		}
		return m
	}
}

func openStore(open func() (Store, error)) tea.Cmd {
	return func() tea.Msg {
		st, err := open()
		return storeOpenedMsg{st: st, err: err}
	}
}

func startWatch(ctx context.Context, st Store, gen int) tea.Cmd {
	return func() tea.Msg {
		ch, err := st.Watch(ctx)
		return watchStartedMsg{gen: gen, ch: ch, err: err}
	}
}

// startWatcher asks for the background watcher beside the UI.
func startWatcher(start func(Store) bool, st Store) tea.Cmd {
	return func() tea.Msg {
		inner, done, ok := bare(st)
		if !ok {
			return watcherTriedMsg{done: true}
		}
		defer done()
		return watcherTriedMsg{done: start(inner)}
	}
}

// waitChange is the watch command, re-armed after each change.
func waitChange(ch <-chan struct{}, gen int) tea.Cmd {
	return func() tea.Msg {
		if _, ok := <-ch; !ok {
			return watchEndedMsg{gen}
		}
		return storeChangedMsg{gen}
	}
}

func tick(d time.Duration) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return tickMsg{} })
}

// diffReq is what loadDiff needs: a copy, so the command shares nothing
// with the model.
type diffReq struct {
	seq  int
	turn string
	file store.File
	mode diffMode
	max  int64
}

// loadDiff reads both sides and computes the diff, or takes it from the
// cache when the same bytes were diffed before.
func loadDiff(st Store, cache *diffCache, r diffReq) tea.Cmd {
	return func() tea.Msg {
		msg := diffLoadedMsg{seq: r.seq}
		if r.file.Status == store.StatusRefused {
			msg.note = "refused: " + orUnknown(r.file.Reason)
			return msg
		}
		var old, new side
		switch r.mode {
		case modeDisk:
			old = readKept(st, r.file.Pre, "earlier")
			new = readDisk(st, r.file.Path)
		case modeAgent:
			old = readKept(st, r.file.Pre, "earlier")
			new = readPost(st, r.file.Post)
		case modeSince:
			old = readPost(st, r.file.Post)
			new = readDisk(st, r.file.Path)
		}
		msg.d, msg.note, msg.err = diffSides(cache, old, new, r.max)
		return msg
	}
}

// side is one version of a file, ready to diff.
type side struct {
	id   string // identity for the cache: a hash, or a kind
	data []byte
	note string // why this side cannot be diffed
	err  error
}

func readKept(st Store, img store.Image, what string) side {
	switch img.Kind {
	case store.ImageAbsent:
		return side{id: "absent"}
	case store.ImageSkipped:
		return side{note: fmt.Sprintf("the %s bytes were not kept: %s", what, orUnknown(img.Reason))}
	case store.ImageLink:
		return side{id: "link:" + img.Link, data: []byte("symlink → " + img.Link + "\n")}
	case store.ImageContent:
		b, err := st.ReadImage(img)
		if err != nil {
			return side{err: fmt.Errorf("read the %s bytes: %w", what, err)}
		}
		return side{id: "sha:" + img.SHA256.String(), data: b}
	}
	kind := present.KindWord(img.Kind)
	if kind == "" {
		kind = string(img.Kind)
	}
	return side{note: fmt.Sprintf("the %s version is a %s, not a file: no lines to compare", what, kind)}
}

func readPost(st Store, img *store.Image) side {
	if img == nil {
		return side{note: "the agent's bytes were not recorded (the write was never sealed)"}
	}
	if img.Kind == store.ImageContent && !img.Kept {
		return side{note: "the agent's bytes were not kept (over the size limit)"}
	}
	return readKept(st, *img, "agent's")
}

func readDisk(st Store, path string) side {
	img, b, err := st.ReadDisk(path)
	if err != nil {
		return side{err: fmt.Errorf("read %s: %w", path, err)}
	}
	switch img.Kind {
	case store.ImageAbsent:
		return side{id: "absent"}
	case store.ImageLink:
		return side{id: "link:" + img.Link, data: []byte("symlink → " + img.Link + "\n")}
	case store.ImageContent:
		id := "sha:" + img.SHA256.String()
		if img.SHA256.IsZero() {
			id = fmt.Sprintf("disk:%p", &b) // unknown hash: never reuse
		}
		return side{id: id, data: b}
	case store.ImageSkipped:
		return side{note: fmt.Sprintf("the file on disk is too large to read: %s", orUnknown(img.Reason))}
	}
	return side{note: fmt.Sprintf("%s is not a file on disk now (a folder, or a device)", path)}
}

// prepareRows is how many rows of a new diff get their changed words
// worked out in the command, before the diff reaches the screen.
const prepareRows = 500

// diffSides diffs two read sides, through the cache.
func diffSides(cache *diffCache, old, new side, max int64) (*diffview.Diff, string, error) {
	for _, s := range []side{old, new} {
		if s.err != nil {
			return nil, "", s.err
		}
		if s.note != "" {
			return nil, s.note, nil
		}
	}
	key := fmt.Sprintf("%s|%s|%d", old.id, new.id, max)
	if d := cache.get(key); d != nil {
		return d, "", nil
	}
	d := diffview.Compute(old.data, new.data, diffview.Options{MaxBytes: max})
	d.Prepare(prepareRows)
	cache.put(key, d)
	return d, "", nil
}

func orUnknown(s string) string {
	if s == "" {
		return "no reason recorded"
	}
	return s
}

// diffCache keeps the last few diffs by the identity of their two sides.
// Commands use it from their goroutines, hence the lock.
type diffCache struct {
	mu    sync.Mutex
	max   int
	m     map[string]*diffview.Diff
	order []string
}

func newDiffCache(n int) *diffCache {
	return &diffCache{max: n, m: make(map[string]*diffview.Diff)}
}

func (c *diffCache) get(k string) *diffview.Diff {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

func (c *diffCache) put(k string, d *diffview.Diff) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		return
	}
	c.m[k] = d
	c.order = append(c.order, k)
	for len(c.order) > c.max {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
}

// edit opens the editor on the file of the diff pane at the hunk on
// screen; the program gives it the terminal until it exits.
func (m *Model) edit() tea.Cmd {
	f := m.selectedFile()
	if f == nil || m.opt.Editor == "" {
		return nil
	}
	line := 1
	if m.diff.d != nil {
		// The new side is the file as it is now (in the modes that show
		// the disk); the first changed line of the hunk on screen.
		if n := m.changedLine(); n > 0 {
			line = n
		} else if _, n := m.diff.d.LineNumbers(m.diff.top, m.layout()); n > 0 {
			line = n
		}
	}
	args := strings.Fields(m.opt.Editor)
	args = append(args, fmt.Sprintf("+%d", line), filepath.Join(m.root, filepath.FromSlash(f.Path)))
	c := exec.Command(args[0], args[1:]...)
	return tea.ExecProcess(c, func(err error) tea.Msg { return editedMsg{err} })
}

// turnCutMsg says a turn was cut (or why not).
type turnCutMsg struct{ err error }

// cutTurn asks the ckpt watch beside the UI to cut a turn.
func cutTurn(cut func() error) tea.Cmd {
	return func() tea.Msg { return turnCutMsg{err: cut()} }
}
