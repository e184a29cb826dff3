// Package agent adapts the hook systems of AI coding agents to the
// checkpoint store: an agent's hook JSON comes in, store calls go out.
//
// # Events
//
// Every supported agent (Claude Code, Gemini CLI, Codex CLI, opencode) runs
// `ckpt hook AGENT` with one JSON object on standard input. Each adapter
// (one file per agent) turns that object into one of three actions:
//
//   - a user prompt starts a turn: store.NewTurn with the prompt's first line
//     as label and the agent's own ids as source, recorded as the session's
//     open turn (store.SetSessionTurn);
//   - a pre-write event captures every path the tool call will touch, in the
//     session's open turn, in one store call (store.BeginWrite opens the
//     turn, under its lock, when there is none: the hooks were installed
//     mid-session, or the agent sent no prompt event);
//   - a post-write event seals those paths (store.EndWrite);
//   - a shell or MCP tool is swept around (store.BeginCommand and
//     store.EndCommand, see shell.go).
//
// A failed or denied call gets no post-write event (or one ckpt ignores):
// its paths stay captured and unchanged, which is harmless.
//
// # Never in the agent's way
//
// Hook exits 0, writes nothing on standard error and nothing on standard
// output except the reply an agent requires (Gemini CLI: `{}`). Panics are
// recovered. Every error is written to the store's bounded error log
// (store.LogError), which `ckpt log` and the UI show. Events ckpt has no use
// for return before the store is opened, so they cost only the JSON decode.
package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/ckpt-dev/ckpt/store"
)

// maxLabel is the longest label, in characters, taken from a prompt.
const maxLabel = 120

// action is what a hook event asks of the store.
type action int

const (
	ignore      action = iota // an event ckpt has no use for
	startTurn                 // a user prompt
	beforeWrite               // a tool is about to write paths
	afterWrite                // a tool wrote paths
	shellBefore               // a shell or MCP tool is about to run: sweep
	shellAfter                // a shell or MCP tool ran: sweep into the turn
	turnEnd                   // the agent's turn ended: sweep if it ran a command
)

// event is an agent's hook JSON reduced to what ckpt needs.
type event struct {
	do      action
	name    string   // the agent's name for the event (PreToolUse), for ckpt doctor
	session string   // the agent's session id
	prompt  string   // the agent's id for the prompt or turn, if any
	text    string   // the prompt's text (startTurn)
	cwd     string   // relative paths are relative to this
	project string   // the agent's project dir, where it names one
	paths   []string // as the agent gave them: absolute or relative to cwd
	command string   // shellBefore, shellAfter: the command line or tool
	// transcript is the file where the agent keeps the session's
	// conversation, when its events name one (Claude Code, Codex, Gemini
	// CLI, Qwen Code: transcript_path; Copilot CLI on Stop); the turn keeps
	// it for `ckpt show --conversation` and the UI. Hooks never read it.
	transcript string
	// weak marks a startTurn whose text is the agent's own, not the
	// user's (Cline's one-shot mode): it opens a turn only when the
	// session has none open.
	weak bool
	// sweep: the prompt event also sweeps the tree, so that the baseline
	// holds every file's bytes before the agent's first write (agents
	// with only post-write events: Cursor).
	sweep bool
	// at is when the agent sent the event (Cline stamps every one), for
	// agents whose runs are told apart by time (see runs.go).
	at time.Time
	// said is what the event tells of the turn's conversation, for agents
	// whose transcript ckpt cannot read (see said.go): the prompt with
	// startTurn, the reply and the calls with turnEnd.
	said *store.Conversation
	// saidErr says why the event's part of the conversation could not be
	// read; the event does all else all the same.
	saidErr error
}

// adapter is one agent's side of ckpt.
type adapter struct {
	name  string
	parse func(data []byte, getenv func(string) string) (event, error)
	// reply is written on standard output after every call, whatever
	// happened: the agent reads it as the hook's answer.
	reply string
	// runs: the agent sends no event per prompt, only the end of each run
	// of the agent (Cline): the first event after a run ended opens the
	// next turn (see runs.go).
	runs bool
	// oncePerPrompt: the agent repeats its prompt event for one prompt,
	// with the same prompt id (Qwen Code, before each continuation); a
	// turn opens only for a prompt id not seen last.
	oncePerPrompt bool
}

var adapters = map[string]*adapter{}

func register(a *adapter) { adapters[a.name] = a }

// Agents lists the agents ckpt has hooks for, in a stable order.
func Agents() []string {
	return []string{"claude", "gemini", "codex", "opencode", "pi", "copilot", "cline", "qwen",
		"kilo", "droid", "cursor", "windsurf"}
}

// Known reports whether name is an agent ckpt has hooks for.
func Known(name string) bool { return adapters[name] != nil }

// HookOptions tunes Hook.
type HookOptions struct {
	// Root is the project root (--root). Empty: $CKPT_ROOT, then the root
	// found from the agent's project dir or the event's cwd.
	Root string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
}

// Hook handles one hook call of agentName with the event JSON read from in,
// writing the agent's expected reply (if any) to out. It never panics and
// never writes anywhere else; the error it returns has already been logged
// in the store when a store could be opened, and callers may ignore it.
func Hook(agentName string, in io.Reader, out io.Writer, opt HookOptions) (err error) {
	a := adapters[agentName]
	if a == nil {
		return fmt.Errorf("hook: unknown agent %q", agentName)
	}
	if a.reply != "" {
		defer func() { _, _ = io.WriteString(out, a.reply) }()
	}
	getenv := opt.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	h := &hookCall{agent: a, opt: opt, getenv: getenv}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("hook %s: internal error: %v", a.name, r)
			stack := debug.Stack()
			func() {
				defer func() { _ = recover() }() // logging must not panic out either
				_ = h.fail(fmt.Errorf("%w\n%s", err, stack))
			}()
		}
		if h.store != nil {
			_ = h.store.Close()
		}
	}()
	return h.run(in)
}

// hookCall is one run of Hook.
type hookCall struct {
	agent  *adapter
	opt    HookOptions
	getenv func(string) string
	ev     event
	store  hookStore
}

func (h *hookCall) run(in io.Reader) error {
	started := time.Now()
	// Only the fields ckpt reads are kept (see projectEvent); the rest of
	// standard input is drained.
	data, err := projectEvent(in)
	if err != nil {
		return h.fail(fmt.Errorf("hook %s: read the event: %w", h.agent.name, err))
	}
	ev, err := h.agent.parse(bytes.TrimSpace(data), h.getenv)
	h.ev = ev
	if err != nil {
		h.stamp()
		return h.fail(fmt.Errorf("hook %s: %w", h.agent.name, err))
	}
	if ev.do == ignore {
		h.stamp()
		return nil
	}
	s, err := openStore(h.root(), store.Options{
		Create: true,
		// Open writes its sentences about interrupted operations to the
		// error log itself; a hook has nobody else to tell.
		Notify: func(string) {},
	})
	if err != nil {
		return fmt.Errorf("hook %s: open the store: %w", h.agent.name, err)
	}
	h.store = s
	// A first sweep (no baseline: it reads every file) stops in time for
	// the agent not to kill the hook, and the next one goes on.
	s.SetCopyControl(&store.CopyControl{Deadline: started.Add(copyBudget(h.getenv))})
	h.stamp()
	if h.agent.runs && ev.do != turnEnd {
		if err := h.nextRun(); err != nil {
			h.log("%v", err)
		}
	}
	switch ev.do {
	case startTurn:
		err = h.startTurn()
		h.maintain(true)
	case beforeWrite:
		err = h.beforeWrite()
	case afterWrite:
		err = h.afterWrite()
	case shellBefore:
		err = h.shellBefore()
	case shellAfter:
		err = h.shellAfter()
	case turnEnd:
		err = h.turnEnd()
		if h.agent.runs {
			err = errors.Join(err, h.endRun())
		}
		h.maintain(false)
	}
	if err != nil {
		h.log("%v", err)
	}
	return err
}

// SilenceStderr points standard error, file descriptor 2 included, at
// /dev/null, so that nothing reaches it, not even the runtime's own crash
// report: Codex and Gemini CLI read text there as a reason to block the
// tool. A hook process calls it first.
func SilenceStderr() {
	if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		_ = unix.Dup2(int(null.Fd()), 2)
		os.Stderr = null
	}
}

// stamp records when the agent's hooks last ran, for `ckpt doctor`:
// <root>/.osfoundry/hooks/AGENT.last holds the event's name, its mtime the
// time. Only where the project has a store folder already: an event ckpt
// has no use for creates nothing.
func (h *hookCall) stamp() {
	dir := filepath.Join(h.root(), ".osfoundry")
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return
	}
	dir = filepath.Join(dir, "hooks")
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return
	}
	// Written over, not truncated first: truncating frees the file's block
	// and writing allocates it again, which costs a hook call more than
	// the write.
	f, err := os.OpenFile(filepath.Join(dir, h.agent.name+".last"), os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return
	}
	line := h.ev.name + "\n"
	if _, err := f.WriteAt([]byte(line), 0); err == nil {
		if fi, err := f.Stat(); err == nil && fi.Size() != int64(len(line)) {
			_ = f.Truncate(int64(len(line)))
		}
	}
	f.Close()
}

// LastEvent is when agentName's hooks last ran in the project at root, and
// the event's name; ok false when they never have (or left no trace).
func LastEvent(root, agentName string) (at time.Time, name string, ok bool) {
	p := filepath.Join(root, ".osfoundry", "hooks", agentName+".last")
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return time.Time{}, "", false
	}
	data, _ := os.ReadFile(p)
	return fi.ModTime(), strings.TrimSpace(string(data)), true
}

// fail logs err in the project's store when one exists already: an event
// ckpt cannot read is no reason to create a store.
func (h *hookCall) fail(err error) error {
	if h.store == nil {
		s, oerr := openStore(h.root(), store.Options{Notify: func(string) {}})
		if oerr != nil {
			return err
		}
		h.store = s
	}
	h.log("%v", err)
	return err
}

func (h *hookCall) log(format string, args ...any) {
	if h.store != nil {
		h.store.LogError(format, args...)
	}
}

// root is --root, else $CKPT_ROOT, else the root found from the agent's
// project dir, the event's cwd or the working directory.
func (h *hookCall) root() string {
	if h.opt.Root != "" {
		return absPath(h.opt.Root, "")
	}
	if r := h.getenv("CKPT_ROOT"); r != "" {
		return absPath(r, "")
	}
	start := h.ev.project
	if start == "" {
		start = h.ev.cwd
	}
	if start == "" {
		start, _ = os.Getwd()
	}
	return store.FindRoot(absPath(start, ""))
}

// sessionKey names the agent session's open turn in the store.
func (h *hookCall) sessionKey() string {
	return h.agent.name + ":" + h.ev.session
}

func (h *hookCall) source() *store.Source {
	return &store.Source{Agent: h.agent.name, Session: h.ev.session, Prompt: h.ev.prompt, Transcript: transcriptPath(h.ev.transcript)}
}

// maxTranscriptPath is the longest transcript path a turn keeps; a longer
// one is no path a file system takes, and is dropped.
const maxTranscriptPath = 4096

// transcriptPath is the transcript path an event named, kept only when it
// can be a file's absolute path: ckpt opens it later, and a relative or
// damaged name would be read against whatever folder ckpt runs in.
func transcriptPath(p string) string {
	if p == "" || len(p) > maxTranscriptPath || !filepath.IsAbs(p) || strings.ContainsRune(p, 0) || !utf8.ValidString(p) {
		return ""
	}
	return filepath.Clean(p)
}

func (h *hookCall) startTurn() error {
	if h.ev.weak {
		_, err := h.openTurnLabelled(Label(h.ev.text))
		return err
	}
	promptKey := h.sessionKey() + "\x00prompt"
	if h.agent.oncePerPrompt && h.ev.prompt != "" {
		if last, ok := h.store.SessionTurn(promptKey); ok && last == h.ev.prompt {
			if _, open := h.store.SessionTurn(h.sessionKey()); open {
				return nil // the same prompt again: its turn goes on
			}
		}
	}
	turn, err := h.store.StartTurn(store.TurnMeta{Label: Label(h.ev.text), Source: h.source(), Session: h.sessionKey()})
	if err != nil {
		return fmt.Errorf("hook %s: %w", h.agent.name, err)
	}
	h.saveSaid(turn)
	if h.agent.oncePerPrompt && h.ev.prompt != "" {
		if err := h.store.SetSessionTurn(promptKey, h.ev.prompt); err != nil {
			return fmt.Errorf("hook %s: record prompt %s for the session: %w", h.agent.name, h.ev.prompt, err)
		}
	}
	if h.ev.sweep {
		h.ev.command = "(the prompt)"
		return h.shellBefore()
	}
	return nil
}

// beforeWrite and afterWrite are one store call each: the store opens
// the session's turn when it has none and captures, under its own lock.
func (h *hookCall) beforeWrite() error {
	paths := h.paths()
	if len(paths) == 0 {
		return nil
	}
	// Each path stands alone: one the store cannot capture (a link loop, a
	// folder) is logged, and the others are kept. When the turn was rewound
	// while the agent went on, its later writes belong to the continuation
	// the store starts, which the store records for the session.
	if turn, err := h.store.BeginWrite(h.meta(), h.noPromptLabel(), paths); err != nil {
		return h.batchFailed("capture", paths, turn, err)
	}
	return nil
}

// meta is what the store records of the event's turn: where it came from,
// and the session whose open turn follows a continuation.
func (h *hookCall) meta() store.TurnMeta {
	return store.TurnMeta{Source: h.source(), Session: h.sessionKey()}
}

// batchFailed words a failed capture or seal for the error log: the paths
// that failed when the store says which (the rest were handled), else all;
// turn is empty when none was found or opened.
func (h *hookCall) batchFailed(verb string, paths []string, turn store.TurnID, err error) error {
	if be, ok := errors.AsType[*store.BatchError](err); ok {
		return fmt.Errorf("hook %s: %s in turn %s (the other paths were kept): %w", h.agent.name, verb, turn, be)
	}
	if turn == "" {
		return fmt.Errorf("hook %s: %s %s: %w", h.agent.name, verb, strings.Join(paths, ", "), err)
	}
	return fmt.Errorf("hook %s: %s %s in turn %s: %w", h.agent.name, verb, strings.Join(paths, ", "), turn, err)
}

func (h *hookCall) afterWrite() error {
	paths := h.paths()
	if len(paths) == 0 {
		return nil
	}
	turn, err := h.store.EndWrite(h.sessionKey(), paths)
	if errors.Is(err, store.ErrNoOpenTurn) {
		return fmt.Errorf("hook %s: %s written with no turn open (no pre-write event seen); not sealed", h.agent.name, strings.Join(paths, ", "))
	}
	if err != nil {
		return h.batchFailed("seal", paths, turn, err)
	}
	return nil
}

// noPromptLabel labels a turn opened by an event other than a prompt.
func (h *hookCall) noPromptLabel() string { return h.agent.name + ": edits with no prompt seen" }

// openTurnLabelled returns the session's open turn, opening one labelled
// label when there is none.
func (h *hookCall) openTurnLabelled(label string) (store.TurnID, error) {
	turn, err := h.store.OpenTurn(h.sessionKey(), store.TurnMeta{Label: label, Source: h.source()})
	if err != nil {
		return "", fmt.Errorf("hook %s: %w", h.agent.name, err)
	}
	return turn, nil
}

// paths turns the event's paths absolute, drops duplicates, and drops (and
// logs) those outside the root.
func (h *hookCall) paths() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range h.ev.paths {
		if p == "" {
			continue
		}
		abs := absPath(p, h.ev.cwd)
		if _, err := h.store.Rel(abs); err != nil {
			if pe := (*store.PathError)(nil); errors.As(err, &pe) {
				err = pe.Err // named once, as abs
			}
			h.log("hook %s: %s ignored: %v", h.agent.name, abs, err)
			continue
		}
		if !seen[abs] {
			seen[abs] = true
			out = append(out, abs)
		}
	}
	return out
}

// absPath makes p absolute against base (the working directory when base
// is empty) and cleans it. It does not resolve symlinks: the store compares
// paths after resolving them. A path with ".." in it is left for the
// store to clean, which resolves the links before each ".." as the kernel
// does (link/../x, with link -> a/b, is a/x).
func absPath(p, base string) string {
	join := func(a, b string) string { return filepath.Join(a, b) }
	if strings.Contains(p, "..") {
		join = func(a, b string) string { return a + string(filepath.Separator) + b }
	}
	if filepath.IsAbs(p) {
		if strings.Contains(p, "..") {
			return p
		}
		return filepath.Clean(p)
	}
	if base == "" || !filepath.IsAbs(base) {
		if wd, err := os.Getwd(); err == nil {
			if base == "" {
				base = wd
			} else {
				base = filepath.Join(wd, base)
			}
		}
	}
	return join(base, p)
}

// Label is a turn's label from a prompt: its first non-blank line, trimmed,
// at most 120 characters. Control characters are kept; every view escapes
// them.
func Label(prompt string) string {
	line := ""
	for _, l := range strings.Split(prompt, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	if !utf8.ValidString(line) {
		line = strings.ToValidUTF8(line, "\uFFFD")
	}
	if utf8.RuneCountInString(line) > maxLabel {
		r := []rune(line)
		line = strings.TrimSpace(string(r[:maxLabel-1])) + "…"
	}
	if line == "" {
		line = "(empty prompt)"
	}
	return line
}
