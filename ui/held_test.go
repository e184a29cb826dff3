package ui

import (
	"errors"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// slowLog is a store whose Log waits for release, counting its calls.
type slowLog struct {
	*fakeStore
	entered chan struct{}
	release chan struct{}
	calls   int
}

func (s *slowLog) Log(withStatus bool) ([]store.Entry, error) {
	s.calls++
	if s.calls > 1 { // the first is New's own read
		s.entered <- struct{}{}
		<-s.release
	}
	return s.fakeStore.Log(withStatus)
}

// TestCloseWaitsForStoreCalls: Close returns only once a command's store
// call under way has returned, and a call after it never reaches the
// store, so the caller can close the store safely when the UI quits.
func TestCloseWaitsForStoreCalls(t *testing.T) {
	st := &slowLog{fakeStore: sample(), entered: make(chan struct{}), release: make(chan struct{})}
	m := New(st, Options{Now: testNow, Poll: -1, NoWatch: true})
	cmd := loadLog(m.st, true, m.hand)
	loaded := make(chan any)
	go func() { loaded <- cmd() }()
	<-st.entered

	closed := make(chan struct{})
	go func() { m.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while a store call was under way")
	case <-time.After(50 * time.Millisecond):
	}
	close(st.release)
	<-closed
	if msg := (<-loaded).(logLoadedMsg); msg.err != nil {
		t.Fatalf("the call under way failed: %v", msg.err)
	}

	msg := loadLog(m.st, true, m.hand)().(logLoadedMsg)
	if !errors.Is(msg.err, errEnded) {
		t.Fatalf("a call after Close: err %v, want %v", msg.err, errEnded)
	}
	if st.calls != 2 {
		t.Fatalf("the store saw %d Log calls, want 2 (New's and the one under way)", st.calls)
	}
}
