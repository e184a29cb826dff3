//go:build !linux

package storefs

import "os"

// Reserve reports whether n bytes are sure to fit in f before it is
// written in place. Without fallocate nothing is sure: the file is written
// beside and renamed over instead.
func Reserve(f *os.File, n int64) bool { return false }
