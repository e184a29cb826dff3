package store

import (
	"testing"
	"time"
)

// TestFeedWaitGrowsWithTheTree: a sweep waits FeedTimeout for the
// watcher in a small tree, longer in a big one (a missed answer costs a
// listing of it), never past FeedTimeoutMax; a test's own feed is asked
// as it is.
func TestFeedWaitGrowsWithTheTree(t *testing.T) {
	for _, c := range []struct {
		n    int
		want time.Duration
	}{{0, FeedTimeout}, {20_000, 6 * time.Millisecond}, {300_000, 20 * time.Millisecond}, {10_000_000, FeedTimeoutMax}} {
		if got := feedWait(c.n); got != c.want {
			t.Errorf("feedWait(%d) = %v, want %v", c.n, got, c.want)
		}
	}
	s := openStore(t, t.TempDir())
	t.Setenv("CKPT_WATCHER", "")
	if f, ok := s.feedFor(300_000).(socketFeed); !ok || f.wait != 20*time.Millisecond {
		t.Errorf("the socket feed of a 300,000-entry sweep: %#v", s.feedFor(300_000))
	}
}
