//go:build !ckptfailpoint

package store

// failpointEnv is empty in a release build: no environment variable can
// kill ckpt in the middle of a write (see failpoint).
func failpointEnv() string { return "" }
