package diffview

import (
	"github.com/charmbracelet/x/ansi"
	"strings"
	"testing"
)

// TestKeep: a kept hunk shows the old side's lines as kept, not the new
// ones; its header says so; the counts and the later hunks' new line
// numbers are those of the result; Changes names each hunk's lines.
func TestKeep(t *testing.T) {
	var old, new []string
	for i := 1; i <= 30; i++ {
		l := "line " + strings.Repeat("x", i%5) + string(rune('a'+i%26))
		old = append(old, l)
		switch i {
		case 3:
			new = append(new, "THREE", "THREE and a half")
		case 20:
		default:
			new = append(new, l)
		}
	}
	d := Compute([]byte(strings.Join(old, "\n")+"\n"), []byte(strings.Join(new, "\n")+"\n"), Options{})
	ch := d.Changes()
	if len(ch) != 2 || ch[0] != (Change{2, 1, 2, 2}) || ch[1] != (Change{19, 1, 20, 0}) {
		t.Fatalf("Changes: %+v", ch)
	}
	k := d.Keep([]int{0})
	if k.Added != 0 || k.Deleted != 1 || !k.Kept(0) || k.Kept(1) || len(k.Hunks(Unified)) != 2 {
		t.Fatalf("kept: +%d -%d, kept %v %v, %d hunks", k.Added, k.Deleted, k.Kept(0), k.Kept(1), len(k.Hunks(Unified)))
	}
	var kept, hdr []string
	for _, r := range k.Rows() {
		switch r.Kind {
		case RowKept:
			kept = append(kept, r.Text)
		case RowAdd:
			t.Errorf("a kept hunk shows the new line %q", r.Text)
		case RowHunk:
			hdr = append(hdr, r.Text)
		}
	}
	if strings.Join(kept, "|") != old[2] {
		t.Errorf("kept rows %q, want %q", kept, old[2])
	}
	if hdr[0] != "@@ -1,6 +1,6 @@ kept as it is now" || hdr[1] != "@@ -17,7 +17,6 @@" {
		t.Errorf("headers %q", hdr)
	}
	if got := k.Changes(); len(got) != 2 || got[0] != ch[0] || got[1] != ch[1] {
		t.Errorf("a kept diff's Changes are not the diff's: %+v", got)
	}
	for i := range k.Len(Unified) {
		if w := ansi.StringWidth(k.Line(i, 60, Unified, DefaultStyles())); w > 60 {
			t.Fatalf("row %d is %d wide", i, w)
		}
	}
}
