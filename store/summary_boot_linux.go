package store

import (
	"os"
	"strings"
	"sync"
)

// bootID names this boot of the system, "" when it cannot be read: a
// generation recorded in another boot is not trusted (see readGen).
// Linux makes a new one at every boot. Tests replace it.
var bootID = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
})
