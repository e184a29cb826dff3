package cli

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
	"github.com/ckpt-dev/ckpt/watch"
)

// printWatcher says whether a watcher feeds the project's sweeps, and
// what it watches; nothing when the root has no store.
func printWatcher(root string) {
	s, err := store.Open(root, store.Options{})
	if err != nil {
		return
	}
	defer s.Close()
	fmt.Println("watcher: " + watcherLine(s, watchStoreFolder(s.Root())))
}

// watcherLine is doctor's sentence on the watcher.
func watcherLine(s *store.Store, sf string) string {
	ans, err := watch.Ask(sf, "status", 200*time.Millisecond)
	switch {
	case err == nil:
		return describeStatus(ans)
	case !errors.Is(err, store.ErrNoWatcher):
		return "one holds the socket but does not answer (" + esc(err.Error()) + "): sweeps list the whole tree; `ckpt watch --stop` or kill it"
	case runtime.GOOS != "linux":
		return "none on this system (kqueue would need a descriptor per file): every shell sweep lists the whole tree"
	case store.WatcherOff():
		return "off ($CKPT_WATCHER=off): every shell sweep lists the whole tree"
	}
	if why := s.WatcherRefused(); why != "" {
		return "refused: " + esc(why) + ": every shell sweep lists the whole tree"
	}
	return "none running; a shell step in a tree of 2,000 entries or more starts one (`ckpt watch --serve`), and so does the UI there"
}

// describeStatus puts a watcher's status answer (mode pid folders lost
// "limit") into words.
func describeStatus(ans string) string {
	f := strings.SplitN(ans, " ", 5)
	if len(f) < 5 {
		return "running (" + esc(ans) + ")"
	}
	what := "the background watcher runs"
	if f[0] == "record" {
		what = "ckpt watch records here"
	}
	n, _ := strconv.Atoi(f[2])
	line := fmt.Sprintf("%s (process %s), watching %s", what, f[1], present.Count(n, "folder"))
	if lost, _ := strconv.Atoi(f[3]); lost > 0 {
		line += fmt.Sprintf("; its event queue overflowed %d times (raise fs.inotify.max_queued_events)", lost)
	}
	if limit, err := strconv.Unquote(f[4]); err == nil && limit != "" {
		line += "; " + limit
	}
	return line
}
