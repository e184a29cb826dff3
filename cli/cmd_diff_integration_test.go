package cli

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// hostileDiffProject is a folder whose turn wrote files that try to
// retitle the terminal, clear it and paint it, a deletion, a creation and a
// name with an escape in it.
func hostileDiffProject(t *testing.T) (testProject, map[string]string) {
	before := map[string]string{
		"a.txt":              "one\ntwo\nthree\n",
		"gone.txt":           "bye\n",
		"odd\x1b[2Jname.txt": "x\n",
	}
	p := newTestProject(t, before)
	p.turn(t, "1", "hostile", []string{"a.txt", "gone.txt", "new.txt", "odd\x1b[2Jname.txt"}, func() {
		writeTexts(t, p.root, map[string]string{
			"a.txt":              "one\nTWO\x1b]0;pwned\x07\x1b[2J\x1b[31mred\nthree\n",
			"new.txt":            "\x1b[H\x1b[2Jcleared\n",
			"odd\x1b[2Jname.txt": "y\n",
		})
		removePath(t, p.root, "gone.txt")
	})
	return p, before
}

// ttyRun runs ckpt with standard output on a pseudo-terminal and returns
// what the terminal received.
func ttyRun(t *testing.T, root string, env []string, args ...string) string {
	t.Helper()
	controller, terminal := openPTY(t)
	env = append([]string{"NO_COLOR=", "TERM=xterm-256color", "PAGER=cat"}, env...) // unless the case says otherwise
	cmd := ckptCommand(context.Background(), ckptCall{Root: root, Env: env}, args...)
	cmd.Stdout = terminal
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	terminal.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&out, controller); close(done) }() // ends with EIO once the program exits
	if err := cmd.Wait(); err != nil {
		t.Fatalf("ckpt %v: %v\n%s", args, err, stderr.String())
	}
	<-done
	return out.String()
}

// sgr matches the colour sequences ckpt itself writes.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

func TestDiffAtTerminalEscapes(t *testing.T) {
	p, _ := hostileDiffProject(t)
	for _, c := range []struct {
		name      string
		env, args []string
		colored   bool
	}{
		{"auto", nil, []string{"diff", "1"}, true},
		{"NO_COLOR", []string{"NO_COLOR=1"}, []string{"diff", "1"}, false},
		{"never", nil, []string{"diff", "1", "--color=never"}, false},
		{"dumb terminal", []string{"TERM=dumb"}, []string{"diff", "1"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := ttyRun(t, p.root, c.env, c.args...)
			rest := sgr.ReplaceAllString(out, "")
			if i := strings.IndexAny(rest, "\x1b\x07\u009b"); i >= 0 {
				t.Errorf("a raw control sequence reached the terminal at byte %d: %q", i, rest[max(0, i-20):min(len(rest), i+20)])
			}
			if got := sgr.MatchString(out); got != c.colored {
				t.Errorf("coloured %v, want %v:\n%s", got, c.colored, out)
			}
			for _, want := range []string{"pwned", "cleared", "name.txt", "-two", "/dev/null"} {
				if !strings.Contains(rest, want) {
					t.Errorf("terminal output lacks %q:\n%s", want, rest)
				}
			}
		})
	}
}

func TestDiffPipedAppliesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	p, before := hostileDiffProject(t)
	// --color=always colours a pipe too, and then escapes like a terminal.
	r := ckptOK(t, p.root, "diff", "1", "--color", "always")
	if !sgr.MatchString(r.Stdout) || strings.ContainsAny(sgr.ReplaceAllString(r.Stdout, ""), "\x1b\x07") {
		t.Errorf("--color=always: want colour and escapes\n%q", r.Stdout)
	}

	r = ckptOK(t, p.root, "diff", "1")
	if !strings.HasPrefix(r.Stdout, "--- a/") || !strings.Contains(r.Stdout, "\x1b]0;pwned\x07") {
		t.Fatalf("piped diff is not raw:\n%q", r.Stdout)
	}
	apply := exec.Command("git", "apply", "-R", "-")
	apply.Dir = p.root
	apply.Env = ckptEnv("", nil)
	apply.Stdin = strings.NewReader(r.Stdout)
	if out, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("git apply -R: %v\n%s\npatch:\n%q", err, out, r.Stdout)
	}
	for name, want := range before {
		if got := readText(t, p.root, name); got != want {
			t.Errorf("%q after git apply -R holds %q, want %q", name, got, want)
		}
	}
	if pathExists(p.root + "/new.txt") {
		t.Errorf("git apply -R left new.txt, which the turn created")
	}

	ckptCode(t, p.root, 2, "diff", "1", "--color", "sometimes")
}

// A path named on the command line limits the diff to it, whichever place
// it has among the turn's files.
func TestDiffOnlyNamedPaths(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
	p.turn(t, "1", "", []string{"a.txt", "b.txt", "c.txt"}, func() {
		writeTexts(t, p.root, map[string]string{"a.txt": "A\n", "b.txt": "B\n", "c.txt": "C\n"})
	})
	for _, name := range []string{"a.txt", "b.txt"} {
		r := ckptOK(t, p.root, "diff", "1", name)
		if n := strings.Count(r.Stdout, "\n--- "); !strings.HasPrefix(r.Stdout, "--- ") || n != 0 || !strings.Contains(r.Stdout, name) {
			t.Errorf("diff 1 %s shows other files:\n%s", name, r.Stdout)
		}
	}
}

// TestDiffThroughPager: at a terminal the diff goes through $PAGER, as
// git's does; --no-pager and PAGER=cat print it straight.
func TestDiffThroughPager(t *testing.T) {
	p, _ := hostileDiffProject(t)
	paged := sgr.ReplaceAllString(ttyRun(t, p.root, []string{"PAGER=sed s/^/paged:/"}, "diff", "1"), "")
	if !strings.Contains(paged, "paged:--- a/a.txt") {
		t.Errorf("the diff did not go through $PAGER:\n%s", paged)
	}
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{[]string{"PAGER=sed s/^/paged:/"}, []string{"diff", "1", "--no-pager"}},
		{[]string{"PAGER=cat"}, []string{"diff", "1"}},
	} {
		out := ttyRun(t, p.root, c.env, c.args...)
		if strings.Contains(out, "paged:") || !strings.Contains(out, "--- a/a.txt") {
			t.Errorf("%v %v: want the diff printed straight:\n%s", c.env, c.args, out)
		}
	}
}

func TestDiff(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "b.txt": "bee\n"})
	p.turn(t, "1", "", []string{"a.txt", "b.txt"}, func() {
		writeTexts(t, p.root, map[string]string{"a.txt": "one\nTWO\nthree\n", "b.txt": "bee\n"})
	})
	r := ckptOK(t, p.root, "diff", "1", "a.txt")
	wantSubstrings(t, "diff 1 a.txt", r.Stdout, "a.txt", "-two", "+TWO")
	r = ckptOK(t, p.root, "diff", "1")
	wantSubstrings(t, "diff 1", r.Stdout, "-two", "+TWO")
}
