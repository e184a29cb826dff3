//go:build linux

package watch

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// A cut asked of a recorder that has stopped says so: the label it
// carries would go to no turn.
func TestCutAfterStop(t *testing.T) {
	root := t.TempDir()
	s, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := &Recorder{Store: s, Every: 20 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := runRecorder(t, ctx, rec)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for range 20 { // more than the cuts a running recorder holds
		if err := rec.Cut("next"); !errors.Is(err, ErrStopped) {
			t.Fatalf("a cut after the recorder stopped: %v, want %v", err, ErrStopped)
		}
	}
}
