package cli

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestRootFlagEitherSide: global flags work before and after the command.
func TestRootFlagEitherSide(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a\n"})
	p.turn(t, "1", "first", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "A\n") })
	elsewhere := t.TempDir()
	for _, args := range [][]string{
		{"--root", p.root, "log", "--json"},
		{"log", "--json", "--root", p.root},
		{"log", "--root=" + p.root, "--json"},
		{"--root=" + p.root, "show", "1", "--json"},
		{"show", "--root", p.root, "1", "--json"},
	} {
		r := ckptDo(t, ckptCall{Dir: elsewhere}, args...)
		if r.Code != 0 || !strings.Contains(r.Stdout, `"turn": "1"`) {
			t.Errorf("want exit 0 and turn 1\n%s", r)
		}
	}
}

// TestHelpOnEveryCommand: each command answers -h and --help on stdout
// with its usage and examples, and exits 0.
func TestHelpOnEveryCommand(t *testing.T) {
	root := t.TempDir()
	for _, c := range newRootCmd().Commands() {
		for _, flag := range []string{"--help", "-h"} {
			r := ckptCode(t, root, 0, c.Name(), flag)
			out := strings.ToLower(r.Stdout)
			if !strings.Contains(out, "usage") || !strings.Contains(out, "ckpt "+c.Name()) {
				t.Errorf("%s %s: no usage line\n%s", c.Name(), flag, r)
			}
			if c.Example != "" && !strings.Contains(out, "examples") {
				t.Errorf("%s %s: no examples\n%s", c.Name(), flag, r)
			}
			if r.Stderr != "" {
				t.Errorf("%s %s wrote to stderr\n%s", c.Name(), flag, r)
			}
		}
	}
	for _, args := range [][]string{{"completion", "--help"}, {"completion", "bash", "-h"}, {"man", "--help"}, {"help", "rewind"}} {
		if r := ckptCode(t, root, 0, args...); !strings.Contains(strings.ToLower(r.Stdout), "usage") {
			t.Errorf("no usage\n%s", r)
		}
	}
	r := ckptCode(t, root, 0, "--help")
	for _, c := range []string{"log", "rewind", "hook", "completion"} {
		if !strings.Contains(r.Stdout, c) {
			t.Errorf("ckpt --help does not list %s\n%s", c, r)
		}
	}
}

// TestForceFlagNamesItsCommand: undo's and redo's --force each say what
// they force, in their own name.
func TestForceFlagNamesItsCommand(t *testing.T) {
	root := newRootCmd()
	for _, name := range []string{"undo", "redo"} {
		c, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		f := c.Flags().Lookup("force")
		if f == nil {
			t.Fatalf("%s has no --force", name)
		}
		if !strings.HasPrefix(f.Usage, name+" even over") {
			t.Errorf("%s --force: usage %q", name, f.Usage)
		}
	}
}

// TestDidYouMean: a mistyped command names the nearest one.
func TestDidYouMean(t *testing.T) {
	r := ckptCode(t, t.TempDir(), 2, "lgo")
	if !strings.Contains(r.Stderr, `"log"`) || len(r.Stderr) > 200 {
		t.Errorf("want a short message suggesting log\n%s", r)
	}
}

// TestHookSilentOnMistakes: whatever the command line, `ckpt hook` exits 0
// and writes nothing on stderr; for Gemini it still answers {}.
func TestHookSilentOnMistakes(t *testing.T) {
	root := t.TempDir()
	for _, args := range [][]string{
		{"hook"},
		{"hook", "nobody"},
		{"hook", "claude", "extra"},
		{"hook", "--bogus", "claude"},
		{"--root", root, "hook", "gemini", "--nope"},
		{"hook", "gemini", "--root"},
		{"--json", "hook", "gemini"}, // another command's flag before hook
		{"--dry-run", "hook", "claude", "-n2"},
		{"hook", "claude"}, // empty event
	} {
		r := ckptDo(t, ckptCall{Root: root, Stdin: []byte{}}, args...)
		if r.Code != 0 || r.Stderr != "" {
			t.Errorf("want exit 0 and no stderr\n%s", r)
		}
		if strings.Contains(strings.Join(args, " "), "gemini") && strings.TrimSpace(r.Stdout) != "{}" {
			t.Errorf("gemini wants {} on stdout\n%s", r)
		}
	}
}

// TestNoTerminal: the UI without a terminal says what to do instead.
func TestNoTerminal(t *testing.T) {
	for _, args := range [][]string{nil, {"ui"}} {
		r := ckptCode(t, t.TempDir(), 1, args...)
		if !strings.Contains(r.Stderr, "needs a terminal") || strings.Contains(r.Stderr, "/dev/tty") {
			t.Errorf("want a friendly message\n%s", r)
		}
	}
}

// TestNoBuildOutputTracked: git tracks no binary and no file that
// .gitignore names.
func TestNoBuildOutputTracked(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if name == "ckpt" || strings.HasSuffix(name, ".test") {
			t.Errorf("%s is build output and is tracked", name)
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			continue // deleted in the work tree
		}
		head := make([]byte, 4)
		n, _ := io.ReadFull(f, head)
		f.Close()
		if magic := string(head[:n]); magic == "\x7fELF" || magic == "\xcf\xfa\xed\xfe" || magic == "\xfe\xed\xfa\xcf" {
			t.Errorf("%s is an executable and is tracked", name)
		}
	}
	ignored, err := exec.Command("git", "ls-files", "-ci", "--exclude-standard").Output()
	if err == nil && len(ignored) > 0 {
		t.Errorf("tracked files that .gitignore names:\n%s", ignored)
	}
}

func TestVersionString(t *testing.T) {
	defer func(v string) { version = v }(version)
	version = "1.2.3"
	if got := versionString(); got != "1.2.3" {
		t.Errorf("versionString with -X cli.version=1.2.3 = %q", got)
	}
	version = ""
	if got := versionString(); got == "" {
		t.Errorf("versionString from build info is empty")
	}
}

// TestCompletion: the scripts load in their shells' syntax, and turn ids
// complete with their labels.
func TestCompletion(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a\n"})
	p.turn(t, "1", "restyle the page", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "A\n") })
	p.turn(t, "2", "tidy\x1b[2J up", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "B\n") })
	for _, sh := range []string{"bash", "zsh", "fish"} {
		r := ckptOK(t, p.root, "completion", sh)
		if !strings.Contains(r.Stdout, "ckpt") {
			t.Errorf("completion %s: no script\n%s", sh, r)
		}
		if sh != "bash" {
			continue
		}
		script := filepath.Join(t.TempDir(), "ckpt.bash")
		if err := os.WriteFile(script, []byte(r.Stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("bash", "-c", "source "+script+" && complete -p ckpt").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "ckpt") {
			t.Errorf("bash cannot source the completion script: %v\n%s", err, out)
		}
	}
	r := ckptOK(t, p.root, "__complete", "rewind", "")
	for _, want := range []string{"1\trestyle the page", `2	tidy\x1b[2J up`} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("rewind completion lacks %q\n%s", want, r)
		}
	}
	if strings.Contains(r.Stdout, "\x1b") {
		t.Errorf("a label's escape reached the completion\n%s", r)
	}
	r = ckptOK(t, p.root, "__complete", "hook", "")
	if !strings.Contains(r.Stdout, "claude\n") {
		t.Errorf("hook does not complete agent names\n%s", r)
	}
}

// TestManPage: `ckpt man` writes a roff page naming the commands.
func TestManPage(t *testing.T) {
	r := ckptOK(t, t.TempDir(), "man")
	if !strings.HasPrefix(r.Stdout, ".TH CKPT 1") || !strings.Contains(r.Stdout, "rewind") {
		t.Errorf("not a man page\n%.400s", r.Stdout)
	}
	// ckpt's own options are --root alone: the commands' flags the root
	// steps over are not listed as its own.
	_, opts, _ := strings.Cut(r.Stdout, ".SH OPTIONS")
	opts, _, _ = strings.Cut(opts, ".SH ")
	if !strings.Contains(opts, "--root") || strings.Contains(opts, "--json") || strings.Contains(opts, "--dry-run") {
		t.Errorf("ckpt's options in the man page:\n%s", opts)
	}
}

// TestGeminiCommentedSettings: install and uninstall keep a commented
// Gemini settings file byte for byte; Claude's config stays strict JSON.
func TestGeminiCommentedSettings(t *testing.T) {
	root := t.TempDir()
	orig := "// my settings\n{\n  // the model\n  \"model\": \"x\", // fast\n  \"tools\": [\"a\",],\n  /* no hooks yet */\n}\n"
	writeText(t, root, ".gemini/settings.json", orig)
	ckptOK(t, root, "install", "gemini")
	installed := readText(t, root, ".gemini/settings.json")
	for _, c := range []string{"// my settings", "// the model", "// fast", "/* no hooks yet */", "hook gemini"} {
		if !strings.Contains(installed, c) {
			t.Errorf("installed settings lack %q:\n%s", c, installed)
		}
	}
	ckptOK(t, root, "uninstall", "gemini")
	if got := readText(t, root, ".gemini/settings.json"); got != orig {
		t.Errorf("uninstall left\n%q\nwant\n%q", got, orig)
	}

	writeText(t, root, ".claude/settings.local.json", "// mine\n{}\n")
	if r := ckptCode(t, root, 1, "install", "claude"); !strings.Contains(r.Stderr, "comments") {
		t.Errorf("claude: want comments refused\n%s", r)
	}
}

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

// TestBashCompletionBare: the bash script completes in a bash without the
// bash-completion package, where _get_comp_words_by_ref is missing.
func TestBashCompletionBare(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	p := newTestProject(t, map[string]string{"a.txt": "a\n"})
	p.turn(t, "1", "restyle the page", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "A\n") })
	script := filepath.Join(t.TempDir(), "ckpt.bash")
	if err := os.WriteFile(script, []byte(ckptOK(t, p.root, "completion", "bash").Stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := `source "$1"
type _get_comp_words_by_ref >/dev/null 2>&1 && echo "bash-completion is loaded"
complete() { :; }; compopt() { :; }
COMP_LINE="ckpt sho"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(ckpt sho); COMP_CWORD=1
__start_ckpt; echo "verbs: ${COMPREPLY[*]}"
COMP_LINE="ckpt show "; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(ckpt show ""); COMP_CWORD=2
__start_ckpt; echo "turns: ${COMPREPLY[*]}"`
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", prog, "bash", script)
	cmd.Env = append(ckptEnv(p.root, nil), "PATH="+filepath.Dir(ckptBin)+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	s := string(out)
	if strings.Contains(s, "not found") || !strings.Contains(s, "verbs: show") || !strings.Contains(s, "turns: 1") {
		t.Errorf("completion in a bare bash:\n%s", s)
	}
}

// TestFlagKindsAgree: a flag name means the same kind of flag in every
// command, valued or not, with one shorthand, so the root steps over it
// before any command's name as that command reads it.
func TestFlagKindsAgree(t *testing.T) {
	root := newRootCmd()
	valued := map[string]bool{}
	short := map[string]string{}
	for _, c := range root.Commands() {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			v := f.NoOptDefVal == ""
			if was, ok := valued[f.Name]; ok && was != v {
				t.Errorf("--%s takes a value in some commands and none in %s", f.Name, c.Name())
			}
			valued[f.Name] = v
			if f.Shorthand == "" {
				return
			}
			if was, ok := short[f.Shorthand]; ok && was != f.Name {
				t.Errorf("-%s is --%s in one command and --%s in %s", f.Shorthand, was, f.Name, c.Name())
			}
			short[f.Shorthand] = f.Name
		})
	}
	for name, v := range valued {
		f := root.Flags().Lookup(name)
		if !v && (f == nil || f.NoOptDefVal == "") {
			t.Errorf("the root does not know --%s takes no value", name)
		}
	}
}
