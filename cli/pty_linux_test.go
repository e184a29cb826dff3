package cli

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: the controller, which reads what a
// program writes to the terminal, and the terminal the program is given.
func openPTY(t *testing.T) (controller, terminal *os.File) {
	t.Helper()
	c, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(c.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		c.Close()
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		c.Close()
		t.Fatalf("name the pseudo-terminal: %v", err)
	}
	tt, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		c.Close()
		t.Fatalf("open the terminal side: %v", err)
	}
	t.Cleanup(func() { c.Close(); tt.Close() })
	return c, tt
}
