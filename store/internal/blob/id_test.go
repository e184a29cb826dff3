package blob

import (
	"errors"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/format"
)

func TestParse(t *testing.T) {
	good := Of([]byte("hello\n")).String()
	if good != "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03" {
		t.Fatalf("Of(hello) = %s, not its SHA-256", good)
	}
	for _, tc := range []struct {
		name string
		in   string
		ok   bool
	}{
		{"sha256", good, true},
		{"zeros", strings.Repeat("0", 64), true},
		{"empty", "", false},
		{"short", good[:63], false},
		{"long", good + "0", false},
		{"upper", strings.ToUpper(good), false},
		{"not hex", "g" + good[1:], false},
		{"not hex at the end", good[:63] + "G", false},
		{"path", "../" + good[3:], false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := Parse(tc.in)
			if (err == nil) != tc.ok {
				t.Fatalf("Parse(%q) = %v, %v; want ok=%v", tc.in, id, err, tc.ok)
			}
			if b, ok := Decode([]byte(tc.in)); ok != tc.ok || b != id {
				t.Fatalf("Decode(%q) = %v, %v; Parse gave %v", tc.in, b, ok, id)
			}
			var text ID
			if terr := text.UnmarshalText([]byte(tc.in)); (terr == nil) != tc.ok || text != id {
				t.Fatalf("UnmarshalText(%q) = %v, %v; Parse gave %v, %v", tc.in, text, terr, id, err)
			}
			if !tc.ok {
				if !errors.Is(err, format.ErrCorrupt) || id != (ID{}) {
					t.Fatalf("Parse(%q) = %v, %v; want the zero id and ErrCorrupt", tc.in, id, err)
				}
				return
			}
			if out, _ := id.MarshalText(); string(out) != tc.in {
				t.Fatalf("MarshalText() = %q, want %q", out, tc.in)
			}
			if id.String() != tc.in || id.Short() != tc.in[:12] {
				t.Fatalf("String() = %q, Short() = %q; want %q", id.String(), id.Short(), tc.in)
			}
		})
	}
}
