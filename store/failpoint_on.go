//go:build ckptfailpoint

package store

import (
	"os"
	"strconv"
	"time"
)

// failpointEnv is CKPT_FAILPOINT: this build is a test's (see failpoint).
func failpointEnv() string { return os.Getenv("CKPT_FAILPOINT") }

// A test's build keeps a summary of a store of CKPT_SUMMARY_MIN turns or
// more, whatever their age, so crash tests need not write hundreds of
// turns and wait for them to settle; CKPT_MAINTAIN_QUIET shortens the
// quiet a background pass waits for.
func init() {
	if n, err := strconv.Atoi(os.Getenv("CKPT_SUMMARY_MIN")); err == nil && n > 0 {
		summaryMin, summarySettle = n, 0
	}
	if d, err := time.ParseDuration(os.Getenv("CKPT_MAINTAIN_QUIET")); err == nil {
		MaintainQuiet = d // how long a background pass waits for quiet
	}
}

// failChmodBack says a test asked, with CKPT_FAILPOINT=chmod-back, that
// giving an opened folder its mode back fail, as on a folder made
// immutable meanwhile.
func failChmodBack() bool { return os.Getenv("CKPT_FAILPOINT") == "chmod-back" }
