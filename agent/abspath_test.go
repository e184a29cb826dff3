package agent

import "testing"

// A ".." is left for the store, which resolves the links before it as
// the kernel does; without one the path is cleaned here.
func TestAbsPathKeepsDotDot(t *testing.T) {
	for _, c := range []struct{ p, base, want string }{
		{"/r/link/../x", "", "/r/link/../x"},
		{"link/../x", "/r", "/r/link/../x"},
		{"/r/./a//b", "", "/r/a/b"},
		{"a/./b", "/r", "/r/a/b"},
	} {
		if got := absPath(c.p, c.base); got != c.want {
			t.Errorf("absPath(%q, %q) = %q, want %q", c.p, c.base, got, c.want)
		}
	}
}
