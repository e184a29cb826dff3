//go:build !ckptfailpoint

package store

// failpointEnv is empty in a release build: no environment variable can
// kill ckpt in the middle of a write (see failpoint).
func failpointEnv() string { return "" }

// failChmodBack is false in a release build (see the test build's).
func failChmodBack() bool { return false }
