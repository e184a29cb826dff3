package merge

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMerge(t *testing.T) {
	opt := Options{Ours: "now", Base: "base", Theirs: "before"}
	cases := []struct {
		name             string
		base, ours, thrs string
		want             string
		conflicts        []Conflict
	}{
		{name: "theirs alone", base: "a\nb\nc\n", ours: "a\nb\nc\n", thrs: "a\nB\nc\n", want: "a\nB\nc\n"},
		{name: "ours alone", base: "a\nb\nc\n", ours: "A\nb\nc\n", thrs: "a\nb\nc\n", want: "A\nb\nc\n"},
		{name: "apart", base: "1\n2\n3\n4\n5\n", ours: "one\n2\n3\n4\n5\n", thrs: "1\n2\n3\n4\nfive\n", want: "one\n2\n3\n4\nfive\n"},
		{name: "same change", base: "1\n2\n3\n", ours: "1\nx\n3\n", thrs: "1\nx\n3\n", want: "1\nx\n3\n"},
		{name: "next to each other", base: "1\n2\n3\n4\n", ours: "1\nB\n3\n4\n", thrs: "1\n2\nC\n4\n",
			want:      "1\n<<<<<<< now\nB\n3\n||||||| base\n2\n3\n=======\n2\nC\n>>>>>>> before\n4\n",
			conflicts: []Conflict{{2, 3}}},
		{name: "crlf", base: "1\r\n2\r\n3\r\n", ours: "1\r\nB\r\n3\r\n", thrs: "1\r\nb\r\n3\r\n",
			want:      "1\r\n<<<<<<< now\r\nB\r\n||||||| base\r\n2\r\n=======\r\nb\r\n>>>>>>> before\r\n3\r\n",
			conflicts: []Conflict{{2, 2}}},
		{name: "no final newline kept", base: "1\n2\n3", ours: "one\n2\n3", thrs: "1\n2\nthree", want: "one\n2\nthree"},
		{name: "no final newline in a conflict", base: "1\n2", ours: "1\nx", thrs: "1\ny",
			want:      "1\n<<<<<<< now\nx\n||||||| base\n2\n=======\ny\n>>>>>>> before\n",
			conflicts: []Conflict{{2, 2}}},
		{name: "invalid utf-8", base: "a\xff\nm\nb\n", ours: "a\xff\nm\nB\xfe\n", thrs: "A\xfd\nm\nb\n", want: "A\xfd\nm\nB\xfe\n"},
		{name: "deleted in ours", base: "1\n2\n3\n", ours: "1\n3\n", thrs: "1\nx\n3\n",
			want:      "1\n<<<<<<< now\n||||||| base\n2\n=======\nx\n>>>>>>> before\n3\n",
			conflicts: []Conflict{{1, 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Merge([]byte(c.base), []byte(c.ours), []byte(c.thrs), opt)
			if string(r.Bytes) != c.want {
				t.Errorf("merged\n%q\nwant\n%q", r.Bytes, c.want)
			}
			if r.Clean != (len(c.conflicts) == 0) || fmt.Sprint(r.Conflicts) != fmt.Sprint(c.conflicts) {
				t.Errorf("clean %v conflicts %v, want %v", r.Clean, r.Conflicts, c.conflicts)
			}
		})
	}
}

var cases = flag.Int("merge-cases", 2000, "random cases the differential test against git merge-file runs")

// TestAgainstGit merges random three-version files with Merge and with
// `git merge-file -p --diff3`. The two diff differently where lines
// repeat, so they may find different regions; what must hold is that
// Merge is never clean where git finds a conflict, and that where both
// are clean the bytes are the same. Where both find conflicts it counts
// how often the marked files are the same too, and it reports how often
// git is clean where Merge is not.
func TestAgainstGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	n := *cases
	if testing.Short() {
		n = 300
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var bothClean, bothConflict, sameMarkers, onlyGitClean int
	for i := range n {
		base, ours, theirs := threeVersions(rng)
		files := []string{"ours", "base", "theirs"}
		for k, data := range [][]byte{ours, base, theirs} {
			if err := os.WriteFile(filepath.Join(dir, files[k]), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(git, "merge-file", "-p", "--diff3", "-L", "now", "-L", "base", "-L", "before",
			filepath.Join(dir, "ours"), filepath.Join(dir, "base"), filepath.Join(dir, "theirs"))
		out, err := cmd.Output()
		gitClean := err == nil
		var ee *exec.ExitError
		if err != nil && (!errors.As(err, &ee) || ee.ExitCode() > 127) {
			t.Fatalf("case %d: git merge-file: %v", i, err)
		}
		r := Merge(base, ours, theirs, Options{Ours: "now", Base: "base", Theirs: "before"})
		switch {
		case r.Clean && !gitClean:
			t.Fatalf("case %d: clean where git finds a conflict\nbase %q\nours %q\ntheirs %q\nmerged %q\ngit %q", i, base, ours, theirs, r.Bytes, out)
		case r.Clean && gitClean:
			bothClean++
			if !bytes.Equal(r.Bytes, out) {
				t.Fatalf("case %d: both clean, bytes differ\nbase %q\nours %q\ntheirs %q\nmerged %q\ngit %q", i, base, ours, theirs, r.Bytes, out)
			}
		case !r.Clean && gitClean:
			onlyGitClean++
		default:
			bothConflict++
			if bytes.Equal(r.Bytes, out) {
				sameMarkers++
			}
		}
	}
	t.Logf("%d cases: both clean %d (same bytes), both in conflict %d (same markers in %d), git clean where Merge is not %d",
		n, bothClean, bothConflict, sameMarkers, onlyGitClean)
}

// threeVersions makes a base of mostly unique lines and two descendants,
// each a few random edits, inserts and deletes away; some in CRLF, some
// without a final newline.
func threeVersions(rng *rand.Rand) (base, ours, theirs []byte) {
	eol := "\n"
	if rng.IntN(4) == 0 {
		eol = "\r\n"
	}
	n := rng.IntN(30)
	lines := make([]string, n)
	for i := range lines {
		if rng.IntN(10) == 0 {
			lines[i] = "}" // a repeated line, as code has
		} else {
			lines[i] = fmt.Sprintf("line %d", i)
		}
	}
	side := func(tag string) []string {
		out := append([]string(nil), lines...)
		for e := rng.IntN(4); e > 0; e-- {
			switch at := rng.IntN(len(out) + 1); rng.IntN(3) {
			case 0: // edit
				if at < len(out) {
					out[at] = fmt.Sprintf("%s edit %d", tag, rng.IntN(3))
				}
			case 1: // insert
				ins := make([]string, 1+rng.IntN(3))
				for k := range ins {
					ins[k] = fmt.Sprintf("%s new %d", tag, rng.IntN(5))
				}
				out = append(out[:at], append(ins, out[at:]...)...)
			case 2: // delete
				if at < len(out) {
					k := min(len(out), at+1+rng.IntN(3))
					out = append(out[:at], out[k:]...)
				}
			}
		}
		return out
	}
	join := func(ls []string) []byte {
		s := strings.Join(ls, eol)
		if len(ls) > 0 && rng.IntN(5) != 0 {
			s += eol
		}
		return []byte(s)
	}
	b := join(lines)
	return b, join(side("ours")), join(side("theirs"))
}

func BenchmarkMerge60k(b *testing.B) {
	var base, ours, theirs strings.Builder
	for i := range 60000 {
		fmt.Fprintf(&base, "line %d\n", i)
		fmt.Fprintf(&ours, "line %d\n", i)
		if i%1000 == 0 {
			fmt.Fprintf(&theirs, "changed %d\n", i)
		} else {
			fmt.Fprintf(&theirs, "line %d\n", i)
		}
	}
	o, a, t := []byte(base.String()), []byte(ours.String()), []byte(theirs.String())
	a[0] = 'L' // ours changes line 1, theirs every thousandth line
	for b.Loop() {
		Merge(o, a, t, Options{})
	}
}
