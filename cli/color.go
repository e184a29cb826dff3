package cli

import (
	"os"
)

// SGR colours, as git uses them.
const (
	sgrBold   = "\x1b[1m"
	sgrDim    = "\x1b[2m"
	sgrRed    = "\x1b[31m"
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrCyan   = "\x1b[36m"
	sgrReset  = "\x1b[m"
)

// autoColor says whether text written to f is coloured when nobody asked:
// at a terminal, unless NO_COLOR is set or TERM is dumb, as git decides.
func autoColor(f *os.File) bool {
	return isTerminal(f) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

// paint colours text when it is on; the zero value leaves text plain.
type paint bool

// in wraps s in the SGR sequence sgr, when painting and s is not empty.
func (p paint) in(sgr, s string) string {
	if !p || s == "" {
		return s
	}
	return sgr + s + sgrReset
}
