// Package ui is ckpt's terminal program: one root model with three panes
// (turns, the selected turn's files, the selected file's diff), a preview
// dialog for rewind, undo and redo, a filter, help and a status line.
//
// The model talks to the store through the Store interface, only from
// commands: Update and View do no I/O. Diffs are computed off the UI
// goroutine and cached per (kept bytes, disk bytes). The store's Watch is a
// command re-armed after each message, backed by a polling tick.
package ui

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/ckpt-dev/ckpt/diffview"
	"github.com/ckpt-dev/ckpt/keymap"
	"github.com/ckpt-dev/ckpt/store"
)

// Options tunes the UI. The zero value is what ckpt runs with.
type Options struct {
	// Context ends the store watch; nil means the program's lifetime.
	Context context.Context
	// Keys are the bindings; the zero value means keymap.Default().
	Keys *keymap.KeyMap
	// Now is the clock for relative times; nil means time.Now.
	Now func() time.Time
	// Poll is the refresh tick, a fallback for what the watch misses; 0
	// means one second, a negative value turns it and the clock that
	// keeps ages on screen current off (tests).
	Poll time.Duration
	// NoWatch leaves the store's Watch alone (tests that drive refreshes).
	NoWatch bool
	// MaxDiffBytes is the size over which a diff is only summarised.
	MaxDiffBytes int64
	// Editor is the command e runs to open a file at a line ("" turns e
	// off); main passes $EDITOR.
	Editor string
	// Root is the project's folder, shown while there is no store yet.
	Root string
	// Open opens the project's store. New is given a nil Store for a
	// project that has none yet (right after `ckpt install`); the UI then
	// calls Open, from a command, at start and on every tick until it
	// gives a store, and says meanwhile that it waits for the agent. An
	// error that errors.Is store.ErrNoStore means "not yet".
	Open func() (Store, error)
	// Installed lists the agents whose ckpt hooks the project holds
	// (shown while there is no store yet).
	Installed []string
	// CutTurn, when set, is what the key T does: cut a turn for the
	// ckpt watch running beside the UI. Called from a command.
	CutTurn func() error
	// StartWatcher, when set, starts the background watcher for st if
	// the store's gate wants one and none runs, and says whether to ask
	// no more (one runs, or none will). Called from a command: at start,
	// once a store appears in a project that had none, and then as the
	// log changes (at most every watcherEvery) until it says so.
	StartWatcher func(st Store) bool
}

type pane int

const (
	paneTurns pane = iota
	paneFiles
	paneDiff
)

// diffMode is which two versions the diff pane compares.
type diffMode int

const (
	modeDisk  diffMode = iota // kept bytes → disk now
	modeAgent                 // kept bytes → what the agent wrote
	modeSince                 // what the agent wrote → disk now
	modeCount
)

func (d diffMode) String() string {
	switch d {
	case modeAgent:
		return "the agent's write (kept → agent)"
	case modeSince:
		return "since the agent (agent → disk now)"
	}
	return "kept → disk now"
}

// short is the mode in fewer columns, for a narrow title: the help's
// words for it.
func (d diffMode) short() string {
	switch d {
	case modeAgent:
		return "the agent's write"
	case modeSince:
		return "since the agent"
	}
	return "kept→disk"
}

// list is a cursor over n rows drawn in a window of some height.
type list struct{ cur, top int }

func (l *list) move(delta, n int) {
	l.cur = clamp(l.cur+delta, 0, n-1)
}

// clip keeps the cursor on screen in a window of h rows.
func (l *list) clip(n, h int) {
	l.cur = clamp(l.cur, 0, n-1)
	if h <= 0 {
		return
	}
	if l.cur < l.top {
		l.top = l.cur
	}
	if l.cur >= l.top+h {
		l.top = l.cur - h + 1
	}
	l.top = clamp(l.top, 0, max(n-h, 0))
}

// diffPane is the state of the diff pane.
type diffPane struct {
	turn, path string
	mode       diffMode
	modeSet    bool           // the user chose the mode (v); else it follows the turn
	asked      diffMode       // the mode of the diff loaded or asked for
	seq        int            // the load this pane waits for
	d          *diffview.Diff // nil until loaded
	note       string         // why there is no diff (e.g. no agent bytes)
	err        error
	loading    bool
	top        int
	left       int // cells scrolled sideways
	side       bool
	sideSet    bool // the user chose the layout
	// hunk is the hunk n/N went to, while hunkSet; the counter and the
	// highlight follow it.
	hunk    int
	hunkSet bool
}

// diffSearch is a search in the diff pane: / types it, n/N move.
type diffSearch struct {
	query  string
	typing bool
	hits   []int // rows of the diff that match, in the current layout
}

// turnsPane is the state of the turns pane: which log entries are shown
// (after the filter, with runs of operations folded) and the cursor.
type turnsPane struct {
	shown []int // indexes into Model.entries
	cur   list
	// folded maps an operation row to the older operations shown under
	// it; opsOpen shows them all.
	folded  map[int][]int
	opsOpen bool
}

// filesPane is the state of the files pane: the selected turn's files.
type filesPane struct {
	turn       string // the turn they belong to
	rows       []store.File
	err        error
	withStatus bool // rows carry disk status
	loading    bool // a status reload is under way
	cur        list
}

// Model is the root model of the terminal UI.
type Model struct {
	st    Store // through gate
	gate  *storeGate
	opt   Options
	keys  keymap.KeyMap
	sty   styles
	help  help.Model
	now   func() time.Time
	cache *diffCache

	width, height int

	root    string
	entries []store.Entry // newest first
	// idx is what the frames need of the log (an entry by id, which
	// operation took a turn out, the count of turns), worked out once
	// by the command that read it, not per row drawn.
	idx         logIndex
	hand        handCounts // the last log read with disk status: its hand-edit counts
	undo        undoState  // what u and ctrl+r act on, from the log
	statusKnown bool       // HandEdited counts are filled in
	turns       turnsPane
	files       filesPane

	focus pane
	diff  diffPane

	dlg *dialog

	filter    string          // the filter's text
	filtering bool            // the filter line has the keyboard
	input     textinput.Model // the filter's or the search's line, while typed

	showHelp bool
	errs     errorsView
	helpTop  int

	search diffSearch
	// lastQuery is the last search, which / offers again.
	lastQuery string
	conv      convPane // the conversation shown in the diff's place (c)
	wrap      bool     // long diff lines wrap (w)
	noMouse   bool     // mouse capture is off, so the terminal selects text (M)
	hideEmpty bool     // turns that changed no file are hidden (H)
	jumping   bool     // the input line takes a turn id (:)
	zoom      bool     // the diff pane has the whole screen
	follow    bool     // the cursor stays on the newest turn
	newer     int      // turns that arrived since the user last looked at the top
	// errsSeen is how many logged errors x hid from the status line (the
	// log keeps them).
	errsSeen int

	status    string // the last action
	statusFor statusFor
	errText   string // the last error
	size      int64
	hookErrs  []loggedError // the store's error log, oldest first

	opening     bool // asking for a store that did not exist yet
	watching    bool
	watchCh     <-chan struct{}
	watchGen    int                // which watch the messages come from
	watchCancel context.CancelFunc // ends the current watch
	watchTurns  int                // agent turns when the watch began
	// The background watcher beside the UI (Options.StartWatcher): a
	// try under way, when the last began, and whether to ask no more.
	watcherBusy, watcherDone bool
	watcherAt                time.Time
	refreshing               bool // a log refresh is in flight
	pending                  bool // a change came while refreshing
	ticks                    int
	// The badge pass (the log with disk status) hashes every path the
	// store knows, so it runs at start, after an operation, and then at
	// most every badgeEvery ticks while changes come.
	badgeBusy  bool
	badgeDirty bool
	ticking    bool // a refresh tick is armed
	badgeAge   int
	badgeCost  time.Duration // how long the last badge pass took
	seq        int
	// The clock keeps the ages on screen current while nothing else
	// happens: a tick set for when the first of them next reads
	// differently (clock.go).
	clockAt  time.Time // when the armed clock tick is due; zero: none
	clockGen int       // which armed tick counts
	ages     ageMemo   // the age column's width this second
}

// New makes the model and reads the log without disk status, so the first
// frame shows the turns at once; Init asks for the rest.
func New(st Store, opt Options) *Model {
	if opt.Context == nil {
		opt.Context = context.Background()
	}
	if opt.Poll == 0 {
		opt.Poll = time.Second
	}
	if opt.MaxDiffBytes <= 0 {
		opt.MaxDiffBytes = diffview.DefaultMaxBytes
	}
	m := &Model{
		gate:  &storeGate{},
		opt:   opt,
		keys:  keymap.Default(),
		sty:   defaultStyles(),
		help:  help.New(),
		now:   opt.Now,
		cache: newDiffCache(24),
		root:  opt.Root,
	}
	if st != nil {
		m.st = held{st, m.gate}
		m.root = st.Root()
	}
	if opt.Keys != nil {
		m.keys = *opt.Keys
	}
	if m.now == nil {
		m.now = time.Now
	}
	m.help.Styles = m.sty.help
	m.input = textinput.New()
	m.input.Prompt = ""
	m.input.CharLimit = 200
	is := m.input.Styles()
	is.Cursor.Blink = false // a blinking cursor would wake the program twice a second
	m.input.SetStyles(is)

	if st == nil {
		return m // no store yet: Init asks for one
	}
	entries, err := st.Log(false)
	m.setEntries(entries, indexLog(entries, false), false, m.hand.gen)
	if err != nil {
		m.errText = "read log: " + err.Error()
	}
	return m
}

// Close waits for the store calls the model's commands have under way,
// and makes any later one fail, so the store can be closed. Run calls it
// when the program ends.
func (m *Model) Close() { m.gate.shut() }

// Init starts the disk status, the store size and errors, the watch and the
// polling tick.
func (m *Model) Init() tea.Cmd {
	if m.st == nil {
		return tea.Batch(m.openStore(), m.startTick())
	}
	cmds := []tea.Cmd{m.badges(), loadInfo(m.st), m.watcher(true)}
	if c := m.selectTurn(true); c != nil {
		cmds = append(cmds, c)
	}
	if !m.opt.NoWatch {
		cmds = append(cmds, m.rewatch())
	}
	if c := m.startTick(); c != nil {
		cmds = append(cmds, c)
	}
	return tea.Batch(cmds...)
}

// logIndex is what the UI looks up in a log: worked out by the command
// that reads it (indexLog), so neither Update nor a frame walks the log.
type logIndex struct {
	byID  map[string]int // an entry's place in the log
	taken store.TakenOut // the operation in effect that took a turn out
	turns int            // the agent turns
	empty int            // of them, those that changed no file (H hides them)
	// newestOp is the newest operation's id ("" none), for opHolds.
	newestOp string
	// hand is, of a log read with disk status, each entry's hand-edit
	// count (HandEdited ≥ 0), which a log read without it keeps until
	// fresh ones come; nil for a log read without status.
	hand map[string]int
}

// handCounts is the hand-edit counts of the last log read with disk
// status (logIndex.hand), and its generation, one more with each.
type handCounts struct {
	gen  int
	byID map[string]int
}

// keepHand gives the entries of a log read without disk status (which
// has no counts of its own) their hand-edit counts from h, the last log
// read with it, over those of an older one.
func keepHand(entries []store.Entry, h map[string]int) {
	if len(h) == 0 {
		return
	}
	for i := range entries {
		if n, ok := h[entries[i].ID]; ok {
			entries[i].HandEdited = n
		}
	}
}

// logsIndexed counts the logs indexLog walked (tests count them).
var logsIndexed atomic.Int64

// indexLog works out a log's index, off the UI goroutine. withStatus:
// the log was read with disk status, and its hand-edit counts are kept.
func indexLog(entries []store.Entry, withStatus bool) logIndex {
	logsIndexed.Add(1)
	idx := logIndex{byID: make(map[string]int, len(entries)), taken: store.TakenOutBy(entries)}
	if withStatus {
		idx.hand = make(map[string]int, len(entries))
	}
	for i := range entries {
		idx.byID[entries[i].ID] = i
		if withStatus && entries[i].HandEdited >= 0 {
			idx.hand[entries[i].ID] = entries[i].HandEdited
		}
		if entries[i].Kind == store.KindAgent {
			idx.turns++
		} else if idx.newestOp == "" {
			idx.newestOp = entries[i].ID
		}
		if emptyTurn(&entries[i]) {
			idx.empty++
		}
	}
	return idx
}

// refilter shows the log on screen again after the filter or a fold
// changed.
func (m *Model) refilter() { m.setEntries(m.entries, m.idx, false, m.hand.gen) }

// setEntries takes a new log and its index, keeping the cursor on the
// same entry.
//
// A log read without disk status keeps the badges of the last one read
// with it until fresh ones come: the command that read it gave it those
// of generation handGen (see loadLog); only when a log with status came
// since is that done again here.
func (m *Model) setEntries(entries []store.Entry, idx logIndex, withStatus bool, handGen int) {
	var keep string
	if e := m.selected(); e != nil {
		keep = e.ID
	}
	switch {
	case withStatus:
		m.hand = handCounts{gen: m.hand.gen + 1, byID: idx.hand}
	case handGen != m.hand.gen:
		keepHand(entries, m.hand.byID)
	}
	before := m.turnCount()
	had := len(m.entries) > 0
	m.entries, m.idx = entries, idx
	m.undo = undoStacks(entries)
	if withStatus {
		m.statusKnown = true
	}
	m.applyFilter()
	if keep != "" {
		for i, idx := range m.turns.shown {
			if m.entries[idx].ID == keep {
				m.turns.cur.cur = i
				break
			}
		}
	}
	if n := m.turnCount() - before; n > 0 && had {
		if m.follow {
			m.turns.cur.cur = 0
		} else {
			m.newer += n // a quiet notice; the cursor stays where it was
		}
	}
	m.turns.cur.clip(len(m.turns.shown), m.turnsHeight())
	m.checkStatus()
}

// applyFilter recomputes the shown entries from the filter text. Runs of
// operations next to each other show as one row (the newest), so rewinds
// and undos do not bury the agent's turns; enter on it shows them all.
func (m *Model) applyFilter() {
	q := strings.ToLower(strings.TrimSpace(m.filter))
	m.turns.shown = m.turns.shown[:0]
	for i := range m.entries {
		if m.hideEmpty && emptyTurn(&m.entries[i]) {
			continue // H: a question answered without writing
		}
		if q == "" || matches(&m.entries[i], q) {
			m.turns.shown = append(m.turns.shown, i)
		}
	}
	m.turns.folded = map[int][]int{}
	if q != "" || m.turns.opsOpen {
		return
	}
	out := m.turns.shown[:0]
	for i := 0; i < len(m.turns.shown); {
		head := m.turns.shown[i]
		out = append(out, head)
		i++
		if m.entries[head].Kind == store.KindAgent {
			continue
		}
		for i < len(m.turns.shown) && m.entries[m.turns.shown[i]].Kind != store.KindAgent {
			m.turns.folded[head] = append(m.turns.folded[head], m.turns.shown[i])
			i++
		}
	}
	m.turns.shown = out
}

func matches(e *store.Entry, q string) bool {
	if strings.Contains(strings.ToLower(e.ID), q) || strings.Contains(strings.ToLower(e.Label), q) {
		return true
	}
	if e.Source != nil && (strings.Contains(strings.ToLower(e.Source.Agent), q) ||
		strings.Contains(strings.ToLower(e.Source.Session), q)) {
		return true
	}
	return strings.Contains(string(e.Kind), q) || strings.Contains(string(e.State), q)
}

// selected is the entry under the turns cursor, or nil.
func (m *Model) selected() *store.Entry {
	if m.turns.cur.cur < 0 || m.turns.cur.cur >= len(m.turns.shown) {
		return nil
	}
	return &m.entries[m.turns.shown[m.turns.cur.cur]]
}

// entry is the log entry with id, or nil; the log in memory, no I/O.
func (m *Model) entry(id string) *store.Entry {
	if i, ok := m.idx.byID[id]; ok && i < len(m.entries) && m.entries[i].ID == id {
		return &m.entries[i]
	}
	return nil
}

// selectedFile is the file under the files cursor, or nil.
func (m *Model) selectedFile() *store.File {
	if m.files.cur.cur < 0 || m.files.cur.cur >= len(m.files.rows) {
		return nil
	}
	return &m.files.rows[m.files.cur.cur]
}

// selectTurn loads the files of the selected turn when it changed (or
// always when force is set).
func (m *Model) selectTurn(force bool) tea.Cmd {
	m.checkStatus()
	e := m.selected()
	if e == nil {
		m.files.turn, m.files.rows, m.files.err = "", nil, nil
		m.diff = diffPane{side: m.diff.side, sideSet: m.diff.sideSet}
		return nil
	}
	if e.ID == m.files.turn && !force {
		return nil
	}
	if e.ID != m.files.turn {
		m.files.turn, m.files.rows, m.files.err, m.files.withStatus = e.ID, nil, nil, false
		m.files.cur = list{}
		m.diff = diffPane{side: m.diff.side, sideSet: m.diff.sideSet, mode: m.diff.mode, modeSet: m.diff.modeSet}
	}
	if e.Kind != store.KindAgent {
		return nil // an operation: the files pane describes it
	}
	return tea.Sequence(loadFiles(m.st, e.ID, false), loadFiles(m.st, e.ID, true))
}

// diffMode is the diff pane's mode: the user's choice, or by default the
// disk against the pre-image, except for a turn rewound or reverted,
// whose changes are out of the folder: that shows what the agent did
// (pre-image → what it left).
func (m *Model) diffMode() diffMode {
	if !m.diff.modeSet && m.takenOutBy() != "" {
		return modeAgent
	}
	return m.diff.mode
}

// takenOutBy is the operation that took the selected turn's changes out
// of the folder (a rewind or a revert, or a redo of one), or "" for a
// turn in effect; takenOut says how ("rewound" or "reverted").
func (m *Model) takenOutBy() string {
	op, _ := m.takenOut()
	return op
}

func (m *Model) takenOut() (op, how string) {
	e := m.selected()
	if e == nil || e.Kind != store.KindAgent {
		return "", ""
	}
	switch e.State {
	case store.StateRewound:
		op, how = m.idx.taken.Rewound[e.ID], string(e.State)
	case store.StateReverted:
		op, how = m.idx.taken.Reverted[e.ID], string(e.State)
	default:
		// A turn in effect that a revert took some paths out of (it
		// left the others in conflict) reads as reverted in part.
		if op = m.idx.taken.Reverted[e.ID]; op == "" {
			return "", ""
		}
		return op, partReverted
	}
	if op == "" {
		op = "an operation" // its op is folded away or filtered out
	}
	return op, how
}

// partReverted is how takenOut words a turn in effect a revert took some
// of its paths out of.
const partReverted = "reverted in part"

// selectFile loads the diff of the selected file when it changed.
func (m *Model) selectFile(refresh bool) tea.Cmd {
	f := m.selectedFile()
	if f == nil {
		m.diff = diffPane{side: m.diff.side, sideSet: m.diff.sideSet, mode: m.diff.mode, modeSet: m.diff.modeSet}
		return nil
	}
	same := m.diff.turn == m.files.turn && m.diff.path == f.Path && m.diff.asked == m.diffMode()
	if same && !refresh {
		return nil
	}
	if !same {
		m.diff = diffPane{turn: m.files.turn, path: f.Path, side: m.diff.side, sideSet: m.diff.sideSet, mode: m.diff.mode, modeSet: m.diff.modeSet}
	}
	m.seq++
	m.diff.seq = m.seq
	m.diff.asked = m.diffMode()
	m.diff.loading = true
	return loadDiff(m.st, m.cache, diffReq{
		seq: m.seq, turn: m.files.turn, file: *f, mode: m.diffMode(), max: m.opt.MaxDiffBytes,
	})
}

// openStore asks for the project's store, while there is none yet.
func (m *Model) openStore() tea.Cmd {
	if m.st != nil || m.opening || m.opt.Open == nil {
		return nil
	}
	m.opening = true
	return openStore(m.opt.Open)
}

// storeOpened takes the store once it exists, and reads it.
func (m *Model) storeOpened(msg storeOpenedMsg) tea.Cmd {
	m.opening = false
	switch {
	case errors.Is(msg.err, store.ErrNoStore):
		return nil // not yet: the next tick asks again
	case msg.err != nil:
		m.errText = "open the store: " + msg.err.Error()
		return nil
	case m.st != nil || msg.st == nil:
		return nil
	}
	m.st = held{msg.st, m.gate}
	m.root = msg.st.Root()
	m.refreshing = true
	return tea.Batch(loadLog(m.st, false, m.hand), loadInfo(m.st), m.badges(), m.rewatch(), m.watcher(true))
}

// watcherEvery is how often, at most, the UI asks again for the
// background watcher while the store's gate has not wanted one.
const watcherEvery = 5 * time.Second

// watcher asks for the background watcher beside the UI (now, when
// asap), unless a try is under way, one said to ask no more, or the last
// began less than watcherEvery ago.
func (m *Model) watcher(asap bool) tea.Cmd {
	if m.opt.StartWatcher == nil || m.st == nil || m.watcherDone || m.watcherBusy {
		return nil
	}
	now := m.now()
	if !asap && now.Sub(m.watcherAt) < watcherEvery {
		return nil
	}
	m.watcherBusy, m.watcherAt = true, now
	return startWatcher(m.opt.StartWatcher, m.st)
}

// Refresh pacing, in ticks of the polling clock.
const (
	badgeEvery  = 5  // at most one badge pass this often while changes come
	badgeAnyway = 30 // and one this often regardless
	lightEvery  = 5  // a files-and-diff check this often while watching
)

// refresh reloads what the screen shows. A full refresh reads the log
// (without disk status) as well; a light one only the selected turn's
// files, and its diff if the disk changed.
func (m *Model) refresh(full bool) tea.Cmd {
	if m.st == nil {
		return m.openStore()
	}
	if !full {
		return m.reloadFiles()
	}
	m.badgeDirty = true
	if m.refreshing {
		m.pending = true // changes come in bursts: one more refresh after this one
		return nil
	}
	m.refreshing = true
	return tea.Batch(loadLog(m.st, false, m.hand), loadInfo(m.st), m.reloadFiles())
}

// reloadFiles reads the selected turn's files with their status again,
// unless that is already under way.
func (m *Model) reloadFiles() tea.Cmd {
	e := m.selected()
	if e == nil || e.Kind != store.KindAgent || e.ID != m.files.turn || m.files.loading {
		return nil
	}
	m.files.loading = true
	return loadFiles(m.st, e.ID, true)
}

// slowBadge is a badge pass too costly to run on every tick.
const slowBadge = 100 * time.Millisecond

// badgeDue says whether the tick should start a badge pass: soon after a
// change when the pass is cheap, at most every badgeEvery ticks when it is
// slow, and every badgeAnyway ticks regardless.
func (m *Model) badgeDue() bool {
	wait := 1
	if m.badgeCost >= slowBadge {
		wait = badgeEvery
	}
	return (m.badgeDirty && m.badgeAge >= wait) || m.badgeAge >= badgeAnyway
}

// rewatch starts a new watch of the store, ending the last one. The store
// watches the folders of the paths its turns touched when the watch
// begins, so a watch is started again when new turns come.
func (m *Model) rewatch() tea.Cmd {
	if m.opt.NoWatch || m.st == nil {
		return nil
	}
	if m.watchCancel != nil {
		m.watchCancel()
	}
	ctx, cancel := context.WithCancel(m.opt.Context)
	m.watchCancel = cancel
	m.watchGen++
	m.watchTurns = m.turnCount()
	return startWatch(ctx, m.st, m.watchGen)
}

// badges starts a badge pass unless one is running.
func (m *Model) badges() tea.Cmd {
	if m.badgeBusy || m.st == nil {
		return nil
	}
	m.badgeBusy = true
	return loadLog(m.st, true, m.hand)
}

func clamp(v, lo, hi int) int {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}
