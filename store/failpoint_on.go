//go:build ckptfailpoint

package store

import "os"

// failpointEnv is CKPT_FAILPOINT: this build is a test's (see failpoint).
func failpointEnv() string { return os.Getenv("CKPT_FAILPOINT") }
