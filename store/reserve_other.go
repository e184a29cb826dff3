//go:build !linux

package store

import "os"

// reserve reports whether n bytes are sure to fit in f before it is
// written in place. Without fallocate nothing is sure: the file is written
// beside and renamed over instead.
func reserve(f *os.File, n int64) bool { return false }
