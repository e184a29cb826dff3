package store

import "testing"

func TestTornMix(t *testing.T) {
	for _, c := range []struct {
		name    string
		d, a, b string
		want    bool
	}{
		{"nothing written yet", "bbbbbb", "aaaa", "bbbbbb", true},
		{"half of a shorter file", "aabbbb", "aaaa", "bbbbbb", true},
		{"all of a shorter file, not yet cut", "aaaabb", "aaaa", "bbbbbb", true},
		{"half of a longer file", "aaabbb", "aaaaaaaa", "bbbbbb", true},
		{"past the end of b", "aaaaaaa", "aaaaaaaa", "bbbbbb", true},
		{"an edit in the middle", "aaXbbb", "aaaaaaaa", "bbbbbb", false},
		{"an edit past the end", "aaaaaaX", "aaaaaaaa", "bbbbbb", false},
		{"shorter than b", "aab", "aaaa", "bbbbbb", false},
		{"b's tail changed", "aabbbX", "aaaa", "bbbbbb", false},
		{"shared bytes either side", "abcxyz", "abcdef", "uvwxyz", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := tornMix([]byte(c.d), []byte(c.a), []byte(c.b)); got != c.want {
				t.Errorf("tornMix(%q, %q, %q) = %v, want %v", c.d, c.a, c.b, got, c.want)
			}
		})
	}
}
