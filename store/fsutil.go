package store

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// failpoint kills the process after the k-th counted file operation of a
// phase, so tests can check that nothing is left half-done. It is set with
// CKPT_FAILPOINT=phase:k (phases: apply, capture) and costs a comparison
// when unset. Only a binary built with the ckptfailpoint tag (the tests'
// builds) reads the variable: in a release build no environment can kill
// ckpt in the middle of a write.
type failpoint struct {
	phase string
	at    int64
	n     atomic.Int64
}

func newFailpoint(phase string) *failpoint {
	v := failpointEnv()
	p, k, ok := strings.Cut(v, ":")
	if !ok || p != phase {
		return &failpoint{}
	}
	at, err := strconv.ParseInt(k, 10, 64)
	if err != nil || at <= 0 {
		return &failpoint{}
	}
	return &failpoint{phase: phase, at: at}
}

// armed reports whether this failpoint kills the process at some hit.
func (f *failpoint) armed() bool { return f.at != 0 }

// hit counts one file operation.
func (f *failpoint) hit() {
	if f.at == 0 {
		return
	}
	if f.n.Add(1) == f.at {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}

func errf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// guarded runs fn, turning a panic into an error. The store's workers run
// inside agent hooks, where a crash would exit non-zero, and a hook that
// exits 2 blocks the agent's tool.
func guarded(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("store: internal error: %v", r)
		}
	}()
	return fn()
}
