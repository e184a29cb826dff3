//go:build !linux

package store

import (
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// bootID names this boot of the system, "" when it cannot be read: a
// generation recorded in another boot is not trusted (see readGen).
// macOS makes a new session UUID at every boot; the boot time stands in
// where there is none. Tests replace it.
var bootID = sync.OnceValue(func() string {
	if id, err := unix.Sysctl("kern.bootsessionuuid"); err == nil && id != "" {
		return id
	}
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return ""
	}
	return strconv.FormatInt(tv.Sec, 10) + "." + strconv.FormatInt(int64(tv.Usec), 10)
})
