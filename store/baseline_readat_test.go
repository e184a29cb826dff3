package store

import (
	"os"
	"path/filepath"
	"testing"

	bltab "github.com/ckpt-dev/ckpt/store/internal/baseline"
)

// TestReadAtNeverOutgrowsTheFile: a damaged head length asks for up to
// MaxHead bytes; the read makes room for what the file holds, not that.
func TestReadAtNeverOutgrowsTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	read := readAt(f, 10)
	for _, c := range []struct {
		off  int64
		n    int
		want string
	}{{0, bltab.MaxHead, "0123456789"}, {4, 3, "456"}, {8, bltab.MaxHead, "89"}, {12, 5, ""}} {
		b, err := read(c.off, c.n)
		if err != nil || string(b) != c.want || cap(b) > 10 {
			t.Errorf("read(%d, %d) = %q (cap %d), %v; want %q within the file's 10 bytes", c.off, c.n, b, cap(b), err, c.want)
		}
	}
}
