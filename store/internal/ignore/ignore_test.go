package ignore

import (
	"bytes"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ignoreCase is a folder holding a .gitignore (top) and, when sub is not
// empty, sub/.gitignore; path is below the folder, a folder if dir.
type ignoreCase struct {
	top, sub string
	path     string
	dir      bool
	want     bool
}

// ignoreCases are the rules of gitignore(5), each checked by TestIgnoreMatch
// and, where git is installed, held to git by TestIgnoreMatchesGit.
var ignoreCases = []ignoreCase{
	// Lines: comments, blanks, escapes, trailing spaces, CRLF, a BOM.
	{top: "# c\nfoo", path: "# c"},
	{top: "# c\nfoo", path: "foo", want: true},
	{top: `\#c`, path: "#c", want: true},
	{top: " #c", path: " #c", want: true},
	{top: "\n\n   \n\nfoo\n", path: "foo", want: true},
	{top: "foo  ", path: "foo", want: true},
	{top: "foo  ", path: "foo  "},
	{top: "foo\\  ", path: "foo ", want: true},
	{top: "foo\\\\ ", path: `foo\`, want: true},
	{top: "foo \t", path: "foo \t", want: true},
	{top: "foo\r\nbar\r\n", path: "foo", want: true},
	{top: "foo\r\nbar\r\n", path: "bar", want: true},
	{top: "\xef\xbb\xbffoo", path: "foo", want: true},
	{top: "Foo", path: "foo"},
	// Negation, last match wins.
	{top: "!foo", path: "foo"},
	{top: "*.o\n!keep.o", path: "a.o", want: true},
	{top: "*.o\n!keep.o", path: "keep.o"},
	{top: "*.o\n!keep.o", path: "x/keep.o"},
	{top: "!keep.o\n*.o", path: "keep.o", want: true},
	{top: `\!x`, path: "!x", want: true},
	{top: "!", path: "!"},
	{top: "d/\n!d/f", path: "d/f", want: true}, // no file is re-included under an ignored folder
	{top: "d/*\n!d/f", path: "d/f"},
	{top: "d/*\n!d/f", path: "d/g", want: true},
	// Folders only.
	{top: "build/", path: "build", dir: true, want: true},
	{top: "build/", path: "build"},
	{top: "build/", path: "x/build", dir: true, want: true},
	{top: "build/", path: "build/a", want: true}, // a parent in the path is a folder
	{top: "a/b/", path: "a/b", dir: true, want: true},
	{top: "a/b/", path: "a/b"},
	{top: "/", path: "a"},
	// Anchoring: a "/" at the start or in the middle.
	{top: "/dist", path: "dist", want: true},
	{top: "/dist", path: "x/dist"},
	{top: "a/b", path: "a/b", want: true},
	{top: "a/b", path: "x/a/b"},
	{top: "doc/*.txt", path: "doc/a.txt", want: true},
	{top: "doc/*.txt", path: "doc/x/a.txt"},
	{top: "foo", path: "x/y/foo", want: true},
	{top: "foo", path: "foo/x", want: true},
	// Wildcards.
	{top: "*", path: "x/y", want: true},
	{top: "a?c", path: "abc", want: true},
	{top: "a?c", path: "ac"},
	{top: "/x?y", path: "x/y"},
	{top: "/x*y", path: "x/y"},
	{top: "x/a*", path: "x/abc", want: true},
	{top: "x/a*", path: "x/ba"},
	{top: "*.txt", path: "a.txt", want: true},
	{top: "*.txt", path: "a.txt.bak"},
	{top: "*a*b", path: "xaxxb", want: true},
	{top: "*a*b", path: "xaxxbc"},
	// "**".
	{top: "**/foo", path: "foo", want: true},
	{top: "**/foo", path: "a/b/foo", want: true},
	{top: "**/foo/bar", path: "foo/bar", want: true},
	{top: "**/foo/bar", path: "x/foo/bar", want: true},
	{top: "**/foo/bar", path: "x/foo/baz"},
	{top: "a/**/b", path: "a/b", want: true},
	{top: "a/**/b", path: "a/x/b", want: true},
	{top: "a/**/b", path: "a/x/y/b", want: true},
	{top: "a/**/b", path: "a/xb"},
	{top: "a/**/b", path: "x/a/b"},
	{top: "a/**", path: "a", dir: true},
	{top: "a/**", path: "a/x", want: true},
	{top: "a/**", path: "a/x/y", dir: true, want: true},
	{top: "a/**/", path: "a/x"},
	{top: "a/**/", path: "a/x", dir: true, want: true},
	{top: "**", path: "x/y", want: true},
	{top: "a**b", path: "axxb", want: true},
	{top: "x/a**b", path: "x/ay/b"},
	{top: "x/**b", path: "x/y/b"},
	{top: "x/a**/b", path: "x/ay/z/b", want: true}, // as git: see matchPath
	{top: "x/a**/b", path: "x/a/b", want: true},
	{top: "a**/b", path: "ay/z/b", want: true},
	{top: "x/b**", path: "x/by/z", want: true}, // x/by matches
	{top: "a/**/**/b", path: "a/b", want: true},
	{top: "a/**/**/b", path: "a/x/y/b", want: true},
	// Brackets.
	{top: "[abc]", path: "b", want: true},
	{top: "[abc]", path: "d"},
	{top: "[a-c]x", path: "bx", want: true},
	{top: "[a-c]x", path: "dx"},
	{top: "[!a]", path: "b", want: true},
	{top: "[!a]", path: "a"},
	{top: "[^a]", path: "b", want: true},
	{top: "[^a]", path: "a"},
	{top: "[]a]", path: "]", want: true},
	{top: "[]a]", path: "a", want: true},
	{top: "[!]a]", path: "b", want: true},
	{top: "[!]a]", path: "]"},
	{top: "[a-]", path: "-", want: true},
	{top: "[-a]", path: "-", want: true},
	{top: "[-a]", path: "b"},
	{top: "[a-c-e]", path: "-", want: true},
	{top: "[a-c-e]", path: "d"},
	{top: `[\]]`, path: "]", want: true},
	{top: `[a\-c]`, path: "b"},
	{top: `[a\-c]`, path: "-", want: true},
	{top: "[[:alpha:]]1", path: "x1", want: true},
	{top: "[[:alpha:]]1", path: "11"},
	{top: "[[:digit:][:upper:]]", path: "A", want: true},
	{top: "[[:digit:][:upper:]]", path: "7", want: true},
	{top: "[[:digit:][:upper:]]", path: "a"},
	{top: "[![:lower:]]", path: "a"},
	{top: "[![:lower:]]", path: "_", want: true},
	{top: "[[:punct:]]", path: "~", want: true},
	{top: "[[:xdigit:]]", path: "F", want: true},
	{top: "[[:xdigit:]]", path: "g"},
	{top: "[[:space:]]x", path: " x", want: true},
	{top: "[[:space:]]x", path: "\vx"},
	{top: "[[:alpha]", path: ":", want: true}, // no ":]": a set of "[:alph"
	{top: "[[:foo:]]", path: "f"},             // no such class: matches nothing
	{top: "[abc", path: "[abc"},               // no "]": matches nothing
	{top: "[abc", path: "a"},
	{top: "*[", path: "a["},
	{top: "a[/]b", path: "a/b"},
	{top: "a[!x]b", path: "a/b"},
	// Backslash escapes.
	{top: `\*`, path: "*", want: true},
	{top: `\*`, path: "a"},
	{top: `\a`, path: "a", want: true},
	{top: `\[a]`, path: "[a]", want: true},
	{top: `a\`, path: "a"},
	{top: `a\?`, path: "a?", want: true},
	{top: `a\?`, path: "ab"},
	// Nested folders: a pattern applies below its own folder, and a
	// deeper folder's patterns come after its parents'.
	{sub: "x", path: "sub/x", want: true},
	{sub: "x", path: "x"},
	{sub: "x", path: "sub/d/x", want: true},
	{sub: "/a", path: "sub/a", want: true},
	{sub: "/a", path: "sub/b/a"},
	{sub: "/a", path: "a"},
	{sub: "b/c", path: "sub/b/c", want: true},
	{sub: "b/c", path: "b/c"},
	{sub: "**/c", path: "sub/c", want: true},
	{top: "foo", sub: "!foo", path: "sub/foo"},
	{top: "foo", sub: "!foo", path: "foo", want: true},
	{top: "!foo", sub: "foo", path: "sub/foo", want: true},
	{top: "*.o", sub: "!*.o", path: "sub/d/a.o"},
	{top: "sub/a", sub: "!a", path: "sub/a"},
	{top: "sub/", sub: "!x", path: "sub/x", want: true},
	{top: "sub/*\n!sub/.gitignore", sub: "!x", path: "sub/x"},
}

// decide is whether the walk leaves c.path out, by the patterns as a
// .ckptignore (which skips folders and files): the path itself or a
// folder it is in is skipped. The folder holding c.top is domain.
func (c ignoreCase) decide(domain []string) bool {
	top := (&Set{}).With(nil, Parse([]byte(c.top), domain))
	sub := top.With(nil, Parse([]byte(c.sub), append(domain[:len(domain):len(domain)], "sub")))
	rel := strings.Split(c.path, "/")
	elems := append(domain[:len(domain):len(domain)], rel...)
	for j := range rel {
		ig := top
		if j > 0 && rel[0] == "sub" {
			ig = sub
		}
		if ig.Skip(elems[:len(domain)+j+1], j < len(rel)-1 || c.dir) {
			return true
		}
	}
	return false
}

func TestIgnoreMatch(t *testing.T) {
	for _, c := range ignoreCases {
		for _, domain := range [][]string{nil, {"p", "q"}} {
			if got := c.decide(domain); got != c.want {
				t.Errorf("in %q, .gitignore %q, sub/.gitignore %q: %q (folder %v) ignored %v, want %v", domain, c.top, c.sub, c.path, c.dir, got, c.want)
			}
		}
	}
}

// TestIgnoreGitFoldersOnly: .gitignore patterns skip folders only,
// .ckptignore ones folders and files, and a .ckptignore cannot bring back
// a folder a .gitignore skips.
func TestIgnoreGitFoldersOnly(t *testing.T) {
	ig := (&Set{}).With(Parse([]byte(".env\nbuild/\n*.log\n"), nil), Parse([]byte("*.tmp\n!build/\n"), nil))
	for _, c := range []struct {
		path      string
		dir, want bool
	}{
		{".env", false, false},
		{"a.log", false, false},
		{"logs.log", true, true},
		{"build", true, true},
		{"x.tmp", false, true},
		{"d/x.tmp", true, true},
		{"src", true, false},
	} {
		if got := ig.Skip(strings.Split(c.path, "/"), c.dir); got != c.want {
			t.Errorf("skip(%q, folder %v) = %v, want %v", c.path, c.dir, got, c.want)
		}
	}
}

// randomIgnoreCases makes n cases over a small alphabet, each with a few
// paths.
func randomIgnoreCases(rng *rand.Rand, n int) []ignoreCase {
	tokens := []string{"a", "b", "*", "?", "**", "/", "[a-c]", "[!a]", "a", "b", "/", "*", "/**/", "**/", "/**",
		"***", "[", "]", "[]a]", "[^b]", "[[:alpha:]]", `\`, `\*`, `\/`, " ", `\ `}
	names := []string{"a", "b", "ab", "ba", "bb", "sub", "a b", "a ", "[", "]", "*", `\`}
	pattern := func() string {
		var sb strings.Builder
		if rng.Intn(5) == 0 {
			sb.WriteString("!")
		}
		for k := 1 + rng.Intn(4); k > 0; k-- {
			sb.WriteString(tokens[rng.Intn(len(tokens))])
		}
		if rng.Intn(5) == 0 {
			sb.WriteString("/")
		}
		return sb.String()
	}
	patterns := func(max int) string {
		var ps []string
		for k := rng.Intn(max + 1); k > 0; k-- {
			ps = append(ps, pattern())
		}
		return strings.Join(ps, "\n")
	}
	var cs []ignoreCase
	for len(cs) < n {
		top, sub := patterns(4), ""
		if rng.Intn(2) == 0 {
			sub = patterns(2)
		}
		for k := 0; k < 6; k++ {
			var el []string
			for m := 1 + rng.Intn(4); m > 0; m-- {
				el = append(el, names[rng.Intn(len(names))])
			}
			cs = append(cs, ignoreCase{top: top, sub: sub, path: strings.Join(el, "/"), dir: rng.Intn(3) == 0})
		}
	}
	return cs
}

// TestIgnoreMatchesGit holds the matcher to git: each case's folder gets
// its .gitignore files (and its folder paths are made), git check-ignore
// says which paths it ignores, and the walk must skip the same ones. Git
// takes a path's parents as folders and a last element that does not
// exist as a file.
func TestIgnoreMatchesGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed: nothing to hold the matcher to")
	}
	cases := append(append([]ignoreCase(nil), ignoreCases...), randomIgnoreCases(rand.New(rand.NewSource(1)), 900)...)
	root := t.TempDir()
	env := append(os.Environ(), "HOME="+root, "XDG_CONFIG_HOME="+root, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	initCmd := exec.Command(gitBin, "init", "-q", root)
	initCmd.Env = env
	if out, err := initCmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	os.Remove(filepath.Join(root, ".git", "info", "exclude"))

	// Each listed case has a folder of its own; random ones with the same
	// rules share one.
	folder := map[[3]string]string{}
	var stdin bytes.Buffer
	rels := make([]string, len(cases))
	for i, c := range cases {
		key := [3]string{c.top, c.sub}
		if i < len(ignoreCases) {
			key[2] = strconv.Itoa(i)
		}
		f, ok := folder[key]
		if !ok {
			f = "c" + strconv.Itoa(len(folder))
			folder[key] = f
			put(t, root, f+"/.gitignore", c.top)
			if c.sub != "" {
				put(t, root, f+"/sub/.gitignore", c.sub)
			}
		}
		rels[i] = f + "/" + c.path
		if c.dir {
			if err := os.MkdirAll(filepath.Join(root, rels[i]), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		stdin.WriteString(rels[i])
		stdin.WriteByte(0)
	}
	cmd := exec.Command(gitBin, "-c", "core.ignorecase=false", "check-ignore", "--no-index", "--stdin", "-z", "-n", "-v")
	cmd.Dir, cmd.Env, cmd.Stdin = root, env, &stdin
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil // nothing ignored
	}
	if err != nil {
		t.Fatalf("git check-ignore: %v", err)
	}
	// Four fields a path: source, line, pattern ("" if none, "!..." for a
	// negated pattern, which un-ignores) and the path.
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(fields) != 4*len(cases) {
		t.Fatalf("git check-ignore gave %d fields for %d paths", len(fields), len(cases))
	}
	bad, ignoredN := 0, 0
	for i, c := range cases {
		src, pat, p := fields[4*i], fields[4*i+2], fields[4*i+3]
		if p != rels[i] {
			t.Fatalf("git check-ignore answered for %q, asked %q", p, rels[i])
		}
		fi, err := os.Lstat(filepath.Join(root, rels[i]))
		c.dir = err == nil && fi.IsDir() // another case may have made it a folder
		gitSays := pat != "" && !strings.HasPrefix(pat, "!")
		if gitSays {
			ignoredN++
		}
		if got := c.decide([]string{strings.SplitN(rels[i], "/", 2)[0]}); got != gitSays {
			if bad++; bad <= 20 {
				t.Errorf(".gitignore %q, sub/.gitignore %q: %q (folder %v) ignored %v, git says %v (%s:%s)", c.top, c.sub, c.path, c.dir, got, gitSays, src, pat)
			}
		}
	}
	t.Logf("%d paths, %d of them ignored by git", len(cases), ignoredN)
}

// put writes data at root/rel, making its folders.
func put(t *testing.T, root, rel, data string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
