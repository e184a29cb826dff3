package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/agent"
	"github.com/ckpt-dev/ckpt/agent/setup"
	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
	"github.com/ckpt-dev/ckpt/transcript"
	"github.com/ckpt-dev/ckpt/ui"
	"github.com/ckpt-dev/ckpt/watch"
)

// uiStore is the store as the UI asks for it.
type uiStore struct{ *store.Store }

var _ ui.Store = uiStore{}

// PlanRevert plans a revert of one turn (the store's own method).
func (u uiStore) PlanRevert(turn string, opt store.RevertOptions) (*store.Plan, error) {
	return u.Store.PlanRevert(turn, opt)
}

// PlanRewind plans a rewind with options (paths kept, git's index).
func (u uiStore) PlanRewind(turn string, o store.RewindOptions) (*store.Plan, error) {
	return u.Store.PlanRewindWith(turn, o)
}

// Watch signals whenever the store, or a folder holding a path a turn
// touched, may have changed, until ctx ends (package watch: fsnotify,
// polling where that fails).
func (u uiStore) Watch(ctx context.Context) (<-chan struct{}, error) {
	tree, dirs, err := u.WatchTargets()
	if err != nil {
		return nil, err
	}
	return watch.Notify(ctx, time.Second, watch.Targets{
		Trees: []string{tree}, Dirs: dirs, Quiet: store.QuietFile, Opaque: store.AddOnlyDir})
}

// Conversation reads turn e's prompt, reply and tool calls from the
// transcript its agent named (package transcript).
func (u uiStore) Conversation(e store.Entry) (*ui.Conversation, error) {
	c, err := conversationOf(u.Store, e)
	if err != nil {
		return nil, err
	}
	out := &ui.Conversation{Prompt: c.Prompt, Reply: c.Reply, From: c.Path}
	if agent.SaysInEvents(c.Agent) {
		out.From = c.Agent + "'s events, kept in " + underRoot(u.Root(), c.Path)
	}
	for _, k := range c.Calls {
		out.Calls = append(out.Calls, ui.ToolCall{Name: k.Name, Target: k.Target, State: string(k.State)})
	}
	switch {
	case c.Truncated && c.Skipped > 0:
		out.Note = fmt.Sprintf("only its last %s read; %s could not be read", present.Bytes(transcript.MaxRead), present.Count(c.Skipped, "line"))
	case c.Truncated:
		out.Note = fmt.Sprintf("only its last %s read", present.Bytes(transcript.MaxRead))
	case c.Skipped > 0:
		out.Note = present.Count(c.Skipped, "line") + " could not be read"
	case c.Dropped > 0:
		out.Note = present.Count(c.Dropped, "call") + " after these not kept"
	}
	return out, nil
}

func init() { register(newUICmd) }

func newUICmd(g *globals) *cobra.Command {
	var f watchFlags
	var watching bool
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "The terminal UI on the project's store (ckpt alone does the same)",
		Long: `ui lists the turns, shows what each changed and rewinds them; every rewind
can be undone. Press ? in the UI for its keys.

--watch also runs ckpt watch for as long as the UI is open, for an agent
with no hooks: every change in the tree is recorded into turns, and T cuts
a turn (the next change opens a new one).`,
		Example: `ckpt ui
ckpt ui --watch
ckpt --root ~/src/site`,
		Args: noArgs(" (use --root DIR)"),
		RunE: func(*cobra.Command, []string) error {
			if watching {
				return runUIWatching(g, f)
			}
			return runUI(g)
		},
	}
	cmd.Flags().BoolVar(&watching, "watch", false, "run ckpt watch while the UI is open")
	cmd.Flags().DurationVar(&f.quiet, "quiet", watch.DefaultQuiet, "with --watch: the quiet after which the next change opens a new turn")
	return cmd
}

// runUIWatching is ckpt ui --watch: the recorder runs beside the UI,
// telling what it has to say through the store's error log (the terminal
// is the UI's), and records what is pending when the UI quits.
func runUIWatching(g *globals, f watchFlags) error {
	root, err := g.projectRoot()
	if err != nil {
		return err
	}
	if !hasTerminal() {
		return errNoTerminal
	}
	s, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	recs := make(chan *watch.Recorder, 1)
	done := make(chan error, 1)
	go func() {
		done <- recordWatch(ctx, root, f, func(msg string) { s.LogError("watch: %s", msg) }, func(string) {}, func(r *watch.Recorder) { recs <- r })
	}()
	var rec *watch.Recorder
	select {
	case rec = <-recs:
	case err := <-done:
		cancel()
		return err
	}
	uerr := openUIWith(root, func() error { return rec.Cut("") })
	cancel()
	if err := <-done; err != nil {
		return err
	}
	return uerr
}

// errNoTerminal is the UI started without a terminal to draw on.
var errNoTerminal = errors.New("the terminal UI needs a terminal; in a script or a pipe use `ckpt log`, `ckpt show TURN` or `ckpt rewind TURN` (`ckpt --help` lists them)")

// runUI runs the terminal UI on the project root.
func runUI(g *globals) error {
	root, err := g.projectRoot()
	if err != nil {
		return err
	}
	return openUI(root)
}

// openUI opens the terminal UI on the project at root (used by demo).
func openUI(root string) error { return openUIWith(root, nil) }

// openUIWith opens the UI, its key T calling cut when set.
func openUIWith(root string, cut func() error) error {
	if !hasTerminal() {
		return errNoTerminal
	}
	ro := ui.RunOptions{NoColor: os.Getenv("NO_COLOR") != "", Editor: os.Getenv("EDITOR"), Root: root, CutTurn: cut}
	var st ui.Store
	s, err := store.Open(root, store.Options{Notify: func(msg string) { fmt.Fprintln(os.Stderr, "ckpt: "+escLines(msg)) }})
	switch {
	case err == nil:
		defer s.Close()
		st = uiStore{s}
	case errors.Is(err, store.ErrNoStore):
		// Before the first turn (right after `ckpt install`): the UI
		// opens, says so, and opens the store once a hook has made it.
		// It never creates the store itself.
		ro.Installed = installedAgents(root)
		var mu sync.Mutex
		var later *store.Store
		defer func() {
			mu.Lock()
			defer mu.Unlock()
			if later != nil {
				later.Close()
			}
		}()
		ro.Open = func() (ui.Store, error) {
			s, err := store.Open(root, store.Options{})
			if err != nil {
				return nil, err
			}
			mu.Lock()
			defer mu.Unlock()
			later = s
			return uiStore{s}, nil
		}
	default:
		return err
	}
	if cut == nil { // under --watch, ckpt watch serves the socket
		exe, _ := ckptPath()
		ws := newWatcherStarter(exe)
		defer ws.stop() // deferred last, so it runs before a store is closed
		ro.StartWatcher = func(st ui.Store) bool {
			if u, ok := st.(uiStore); ok {
				return ws.try(u.Store)
			}
			return true
		}
	}
	if err := ui.Run(context.Background(), st, ro); err != nil {
		return fmt.Errorf("terminal UI: %w", err)
	}
	return nil
}

// installedAgents lists the agents whose ckpt hooks the project holds, so
// the UI opened just after `ckpt install` says to start the agent, not to
// install.
func installedAgents(root string) []string {
	exe, _ := ckptPath() // hooks that run this binary, whatever its name
	var out []string
	for _, name := range agent.Agents() {
		if d, err := setup.Diagnose(name, setup.DoctorOptions{Root: root, Exe: exe}); err == nil && d.Installed {
			out = append(out, name)
		}
	}
	return out
}

// hasTerminal reports whether the UI can draw and read keys: standard
// output is a terminal, and so is standard input or the controlling
// terminal the UI falls back to.
func hasTerminal() bool {
	if !isTerminal(os.Stdout) {
		return false
	}
	if isTerminal(os.Stdin) {
		return true
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return false
	}
	tty.Close()
	return true
}
