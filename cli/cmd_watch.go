package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/store"
	"github.com/ckpt-dev/ckpt/watch"
)

func init() { register(newWatchCmd) }

// watchFlags are ckpt watch's flags.
type watchFlags struct {
	quiet, settle, idle time.Duration
	serve, stop         bool
}

func newWatchCmd(g *globals) *cobra.Command {
	var f watchFlags
	cmd := &cobra.Command{
		Use:   "watch [--quiet DUR]",
		Short: "Record every change in the tree into turns, for an agent with no hooks",
		Long: `watch records, from file-system events, every change made in the project
into turns, each path's pre-image taken from the baseline the sweeps keep.
It starts with a sweep, so what changed while nothing watched is kept
(as a hand edit, in no turn), and prints "watching ROOT" on stderr then.

A turn opens at the first change after --quiet of quiet (5s by default:
an agent's pauses inside one prompt are shorter, a person's between
prompts longer). ckpt turn cuts one now; a new commit on HEAD (Aider
commits each change) closes the open turn with the commit's subject as
its label. Where the agent has hooks too, the hooks' turns win. Ctrl-C
records what is pending and exits 0.

watch cannot know a turn's prompt, which changes were yours rather than
the agent's, or exactly where one prompt ends: see the README.

--serve runs the background watcher instead, which records nothing: it
tells shell sweeps which paths changed, so they need not list the whole
tree. Hooks and the UI start it by themselves on trees worth it; it exits
after --idle with no question. --stop stops the one running.`,
		Example: `ckpt watch
ckpt watch --quiet 10s
ckpt watch --stop`,
		Args: noArgs(" (use --root DIR)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := g.projectRoot()
			if err != nil {
				return err
			}
			switch {
			case f.stop && f.serve:
				return usageErrorf("--serve and --stop cannot go together")
			case f.stop:
				return stopWatcher(root)
			case f.serve:
				return serveWatcher(root, f.idle)
			}
			ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer cancel()
			return recordWatch(ctx, root, f, func(s string) { fmt.Fprintln(os.Stderr, "ckpt: "+escLines(s)) }, func(root string) {
				fmt.Fprintln(os.Stderr, "watching "+esc(root))
			})
		},
	}
	cmd.Flags().DurationVar(&f.quiet, "quiet", watch.DefaultQuiet, "the quiet after which the next change opens a new turn")
	cmd.Flags().DurationVar(&f.settle, "settle", watch.DefaultSettle, "how long a burst of changes settles before it is recorded")
	cmd.Flags().BoolVar(&f.serve, "serve", false, "run the background watcher behind fast shell sweeps (records nothing)")
	cmd.Flags().BoolVar(&f.stop, "stop", false, "stop the watcher running for this project")
	cmd.Flags().DurationVar(&f.idle, "idle", watch.DefaultIdle, "with --serve: exit after this long with no sweep asking")
	return cmd
}

// watchStoreFolder is the store folder of the project at root (resolved as
// the store resolves it).
func watchStoreFolder(root string) string {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return filepath.Join(root, ".osfoundry", "checkpoints")
}

func stopWatcher(root string) error {
	was, err := watch.StopWatcher(watchStoreFolder(root), 5*time.Second)
	if err != nil {
		return err
	}
	if !was {
		fmt.Fprintln(os.Stderr, "no watcher runs for "+esc(root))
		return nil
	}
	fmt.Fprintln(os.Stderr, "stopped the watcher of "+esc(root))
	return nil
}

// serveWatcher is ckpt watch --serve: detached, quiet, it logs in the
// store what a person should know (a refusal, a limit, lost events).
func serveWatcher(root string, idle time.Duration) error {
	s, err := store.Open(root, store.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	sf := watchStoreFolder(s.Root())
	tree, err := watch.Open(s.Root(), sf)
	if err != nil {
		if errors.Is(err, watch.ErrUnsupported) {
			_ = s.SetWatcherRefused(err.Error()) // for doctor's line only
			return nil
		}
		return err
	}
	defer tree.Close()
	srv := &watch.Server{Tree: tree, Store: sf, Mode: "serve", Idle: idle}
	if err := srv.Listen(); err != nil {
		if errors.Is(err, watch.ErrRunning) {
			return nil
		}
		return err
	}
	_ = s.SetWatcherRefused("") // for doctor's line only
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer cancel()
	go func() {
		for n := range tree.Notes() {
			s.LogError("watcher: %s", n)
		}
	}()
	return srv.Serve(ctx)
}

// recordWatch is ckpt watch (and ckpt ui --watch): it takes over the
// project's watcher socket (stopping a background watcher), records
// until ctx ends, and says when it is watching.
func recordWatch(ctx context.Context, root string, f watchFlags, say func(string), ready func(root string), started ...func(*watch.Recorder)) error {
	s0, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		return err
	}
	root = s0.Root()
	s0.Close()
	sf := watchStoreFolder(root)
	if ans, err := watch.Ask(sf, "status", time.Second); err == nil && strings.HasPrefix(ans, "record ") {
		return fmt.Errorf("ckpt watch runs for %s already (process %s)", root, strings.Fields(ans)[1])
	}
	if _, err := watch.StopWatcher(sf, 5*time.Second); err != nil {
		return err
	}
	tree, err := watch.Open(root, sf)
	var opt store.Options
	switch {
	case err == nil:
		defer tree.Close()
		opt.Feed = tree
	case errors.Is(err, watch.ErrUnsupported):
		say(err.Error() + "; sweeping every 2s instead")
		tree = nil
	default:
		return err
	}
	s, err := store.Open(root, opt)
	if err != nil {
		return err
	}
	defer s.Close()
	rec := &watch.Recorder{Store: s, Tree: tree, Quiet: f.quiet, Settle: f.settle, Say: say}
	for _, fn := range started {
		fn(rec)
	}
	if tree != nil {
		srv := &watch.Server{Tree: tree, Store: sf, Mode: "record", Cut: rec.Cut}
		if err := srv.Listen(); err != nil {
			return err
		}
		sctx, stop := context.WithCancel(ctx)
		served := make(chan struct{})
		go func() {
			if err := srv.Serve(sctx); err != nil && sctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "ckpt watch: the background watcher stopped answering: %v (sweeps are full ones until it starts again)\n", err)
			}
			close(served)
		}()
		defer func() { stop(); <-served }()
	}
	return rec.Run(ctx, func() { ready(root) })
}
