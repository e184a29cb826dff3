//go:build !linux

package watch

import "net"

// samePeer trusts the socket's folder (0700) where peer credentials are
// not read.
func samePeer(c net.Conn) bool { return true }
