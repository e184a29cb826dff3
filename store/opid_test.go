package store

import "testing"

func TestParseOpID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want OpID
		ok   bool
	}{
		{"op-1", 1, true},
		{"op-42", 42, true},
		{"op-0", 0, false},
		{"op-01", 0, false},
		{"op-", 0, false},
		{"op-+1", 0, false},
		{"op--1", 0, false},
		{"3", 0, false},
		{"op-99999999999999999999999", 0, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseOpID(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("ParseOpID(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
			}
			if tc.ok && got.String() != tc.in {
				t.Fatalf("String() = %q, want %q", got.String(), tc.in)
			}
		})
	}
}
