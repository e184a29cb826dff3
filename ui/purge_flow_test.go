package ui

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/ckpt-dev/ckpt/store"
)

// TestFlowPurgeSeen runs the UI on a real store while another process
// purges a path the shown turn holds: the turn's files show it purged
// with no key pressed (the store's watch sees the records replaced), and
// a rewind from the UI reports it as purged while it restores the rest.
func TestFlowPurgeSeen(t *testing.T) {
	root := t.TempDir()
	for p, b := range map[string]string{"secret.env": "KEY=0\n", "a.txt": "a0\n"} {
		if err := os.WriteFile(filepath.Join(root, p), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := openReal(t, root)
	for p, b := range map[string]string{"secret.env": "KEY=1\n", "a.txt": "a1\n"} {
		if _, err := s.Write("1", store.TurnMeta{Label: "leaky turn"}, filepath.Join(root, p), []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The polling tick is slow: the store's watch must bring the purge.
	m := New(realStore{s}, Options{Context: ctx, Poll: time.Minute})
	t.Cleanup(m.Close) // before the store closes: a command may still be reading it
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 30))
	waitText(t, tm, "leaky", "secret.env", "a.txt")

	other, err := store.Open(root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Purge([]string{"secret.env"}); err != nil {
		t.Fatal(err)
	}
	other.Close()
	waitText(t, tm, "purged")

	send(tm, "r")
	waitText(t, tm, "y/enter")
	send(tm, "y")
	waitText(t, tm, "could", "restored")
	send(tm, "esc", "q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "a0\n" {
		t.Errorf("a.txt after the rewind: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "secret.env")); string(b) != "KEY=1\n" {
		t.Errorf("secret.env after the rewind: %q (purged: left as it is)", b)
	}
	es, _ := s.Log(false)
	if len(es) == 0 || es[0].ID != "op-1" || len(es[0].Failed) != 1 || es[0].Failed[0].Path != "secret.env" {
		t.Fatalf("newest entry %+v", es)
	}
	if got := es[0].Failed[0].Reason; got != "not restored: "+store.PurgedReason {
		t.Errorf("secret.env failed for %q, want it reported purged", got)
	}
}
