package cli

import "testing"

// A --max-blob that does not fit in 63 bits is refused, never wrapped.
func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"8MiB", 8 << 20, true},
		{"1k", 1 << 10, true},
		{"100", 100, true},
		{" 2 gib ", 2 << 30, true},
		{"18014398509481985k", 0, false}, // 2^54+1 KiB wraps to 1 KiB
		{"9223372036854775807", 1<<63 - 1, true},
		{"9223372036854775808", 0, false},
		{"8589934592g", 0, false},
		{"12abc", 0, false},
		{"0", 0, false},
		{"-1k", 0, false},
	} {
		got, err := parseSize(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}
