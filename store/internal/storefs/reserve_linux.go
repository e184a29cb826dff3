package storefs

import (
	"os"
	"syscall"
)

// Reserve makes sure n bytes fit in f before it is written in place: it
// allocates the blocks (without changing the file's size), so a full disk
// fails here, before a byte is overwritten, never half-way through.
func Reserve(f *os.File, n int64) bool {
	const keepSize = 0x1 // FALLOC_FL_KEEP_SIZE
	return n == 0 || syscall.Fallocate(int(f.Fd()), keepSize, 0, n) == nil
}
