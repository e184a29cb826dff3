package cli

// Whole-program tests: they build the ckpt binary once and drive it through
// the surface CONTRACT.md describes (commands, flags, JSON, exit codes), the way
// an agent's hook or a user at a shell would.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/agent/hooktest"
)

// ckptBin is the binary built by TestMain.
var ckptBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ckpt-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	ckptBin = filepath.Join(dir, "ckpt")
	// The tests' binary honours CKPT_FAILPOINT, which the crash tests set;
	// a release build ignores it (TestReleaseBuildIgnoresFailpoints).
	build := exec.Command("go", "build", "-tags", "ckptfailpoint", "-o", ckptBin, "..")
	build.Stdout = os.Stderr
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building ckpt:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// ckptRun is one finished run of the binary.
type ckptRun struct {
	Args     []string
	Stdout   string
	Stderr   string
	Code     int  // exit code; -1 when killed by a signal
	Killed   bool // ended by SIGKILL
	Duration time.Duration
}

func (r ckptRun) String() string {
	return fmt.Sprintf("ckpt %s: exit %d (killed %v)\nstdout:\n%s\nstderr:\n%s",
		strings.Join(r.Args, " "), r.Code, r.Killed, r.Stdout, r.Stderr)
}

// ckptCall says how to run the binary: the project root (exported as
// CKPT_ROOT), the working directory (the root when empty), extra
// environment and standard input (empty, never a terminal, when nil).
type ckptCall struct {
	Root  string
	Dir   string
	Env   []string
	Stdin []byte
}

// ckptTimeout bounds every run so that a lock that is never released shows
// as a failure instead of a hung test.
const ckptTimeout = 3 * time.Minute

// ckptEnv is the environment for a run: the test's own, without any ckpt or
// git settings that could leak in from the caller's shell.
func ckptEnv(root string, extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "CKPT_") || strings.HasPrefix(kv, "GIT_") {
			continue
		}
		env = append(env, kv)
	}
	if root != "" {
		env = append(env, "CKPT_ROOT="+root)
	}
	// No background maintenance outliving a test's folder.
	env = append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "CKPT_BACKGROUND=off")
	return append(env, extra...)
}

// ckptCommand prepares a run without starting it.
func ckptCommand(ctx context.Context, c ckptCall, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, ckptBin, args...)
	cmd.Dir = c.Dir
	if cmd.Dir == "" {
		cmd.Dir = c.Root
	}
	cmd.Env = ckptEnv(c.Root, c.Env)
	if c.Stdin != nil {
		cmd.Stdin = bytes.NewReader(c.Stdin)
	}
	return cmd
}

// ckptDo runs the binary and reports how it ended; it fails the test only
// when the binary could not be started at all.
func ckptDo(t testing.TB, c ckptCall, args ...string) ckptRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ckptTimeout)
	defer cancel()
	cmd := ckptCommand(ctx, c, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	r := ckptRun{Args: args, Stdout: stdout.String(), Stderr: stderr.String(), Duration: time.Since(start)}
	r.Code, r.Killed = exitStatus(t, err, cmd)
	if ctx.Err() != nil {
		t.Fatalf("ckpt %s did not finish within %v\n%s", strings.Join(args, " "), ckptTimeout, r)
	}
	return r
}

// exitStatus turns cmd.Wait's error into an exit code.
func exitStatus(t testing.TB, err error, cmd *exec.Cmd) (code int, killed bool) {
	t.Helper()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running %v: %v", cmd.Args, err)
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return -1, ws.Signal() == syscall.SIGKILL
	}
	return cmd.ProcessState.ExitCode(), false
}

// ckpt runs the binary on root with the root as working directory.
func ckpt(t testing.TB, root string, args ...string) ckptRun {
	t.Helper()
	return ckptDo(t, ckptCall{Root: root}, args...)
}

// ckptOK runs the binary and fails the test unless it exits 0.
func ckptOK(t testing.TB, root string, args ...string) ckptRun {
	t.Helper()
	r := ckpt(t, root, args...)
	if r.Code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	return r
}

// ckptCode runs the binary and fails the test unless it exits with want.
func ckptCode(t testing.TB, root string, want int, args ...string) ckptRun {
	t.Helper()
	r := ckpt(t, root, args...)
	if r.Code != want {
		t.Fatalf("want exit %d\n%s", want, r)
	}
	return r
}

// --- JSON shapes of CONTRACT.md ---

// logRow is one element of `log --json`.
type logRow struct {
	Turn       string   `json:"turn"`
	Label      string   `json:"label"`
	At         string   `json:"at"`
	Kind       string   `json:"kind"`
	State      string   `json:"state"`
	Files      int      `json:"files"`
	HandEdited int      `json:"hand_edited"`
	Target     string   `json:"target"`
	Turns      []string `json:"turns"`
	Source     *struct {
		Agent   string `json:"agent"`
		Session string `json:"session"`
		Prompt  string `json:"prompt"`
	} `json:"source"`
}

// showRow is one element of `show --json`'s files.
type showRow struct {
	Path   string `json:"path"`
	Pre    string `json:"pre"`
	Status string `json:"status"`
	Became string `json:"became"`
}

// showDoc is `show --json`.
type showDoc struct {
	Turn  string    `json:"turn"`
	Files []showRow `json:"files"`
}

// opDoc is `rewind|undo|redo --json`.
type opDoc struct {
	Op       string   `json:"op"`
	Restored []string `json:"restored"`
	Deleted  []string `json:"deleted"`
	Failed   []struct {
		Path   string `json:"path"`
		Reason string `json:"reason"`
	} `json:"failed"`
	HandEdited []string `json:"hand_edited"`
	Applied    bool     `json:"applied"`
}

func (o opDoc) failedPaths() []string {
	var ps []string
	for _, f := range o.Failed {
		ps = append(ps, f.Path)
	}
	sort.Strings(ps)
	return ps
}

// wantAtLayout is CONTRACT.md's fixed layout for `at`.
const wantAtLayout = "2006-01-02T15:04:05.000000000Z"

var wantAtPattern = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$`)

// decodeJSON decodes out of r's stdout, failing the test with the run.
func decodeJSON(t testing.TB, r ckptRun, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.Stdout), v); err != nil {
		t.Fatalf("decoding JSON: %v\n%s", err, r)
	}
}

// ckptLog runs `log --json` and decodes it, checking every entry's keys.
func ckptLog(t testing.TB, root string) []logRow {
	t.Helper()
	r := ckptOK(t, root, "log", "--json")
	var raw []map[string]json.RawMessage
	decodeJSON(t, r, &raw)
	for i, e := range raw {
		for _, k := range []string{"turn", "label", "at", "kind", "state", "files", "hand_edited"} {
			if _, ok := e[k]; !ok {
				t.Fatalf("log --json entry %d lacks %q\n%s", i, k, r)
			}
		}
		if !bytes.HasPrefix(e["turn"], []byte(`"`)) {
			t.Fatalf("log --json entry %d: turn is %s, want a string", i, e["turn"])
		}
	}
	var es []logRow
	decodeJSON(t, r, &es)
	for _, e := range es {
		if !wantAtPattern.MatchString(e.At) {
			t.Fatalf("log --json: turn %s at %q, want layout %s", e.Turn, e.At, wantAtLayout)
		}
	}
	return es
}

// findEntry returns the log entry with id, failing the test if none.
func findEntry(t testing.TB, es []logRow, id string) logRow {
	t.Helper()
	for _, e := range es {
		if e.Turn == id {
			return e
		}
	}
	t.Fatalf("log has no entry %q: %+v", id, es)
	return logRow{}
}

// ckptShow runs `show TURN --json` and decodes it.
func ckptShow(t testing.TB, root, turn string) showDoc {
	t.Helper()
	r := ckptOK(t, root, "show", turn, "--json")
	var s showDoc
	decodeJSON(t, r, &s)
	if s.Turn != turn {
		t.Fatalf("show %s --json: turn %q", turn, s.Turn)
	}
	return s
}

// statuses maps path → status of a show result.
func (s showDoc) statuses() map[string]string {
	m := map[string]string{}
	for _, f := range s.Files {
		m[f.Path] = f.Status
	}
	return m
}

// ckptOp runs an operation with --json and decodes its result; wantCode
// is the exit code it must end with.
func ckptOp(t testing.TB, root string, wantCode int, args ...string) opDoc {
	t.Helper()
	r := ckptCode(t, root, wantCode, append(args, "--json")...)
	var raw map[string]json.RawMessage
	decodeJSON(t, r, &raw)
	for _, k := range []string{"op", "restored", "deleted", "failed", "hand_edited", "applied"} {
		if _, ok := raw[k]; !ok {
			t.Fatalf("%s --json lacks %q\n%s", args[0], k, r)
		}
	}
	var o opDoc
	decodeJSON(t, r, &o)
	return o
}

// --- the folder as bytes ---

// fsNode is what one path of a folder holds.
type fsNode struct {
	Kind byte        // 'f' file, 'd' folder, 'l' symlink
	Perm fs.FileMode // permission bits (files and folders)
	Data string      // file bytes or link target
}

func (e fsNode) String() string {
	switch e.Kind {
	case 'd':
		return fmt.Sprintf("folder %v", e.Perm)
	case 'l':
		return fmt.Sprintf("link → %q", e.Data)
	}
	return fmt.Sprintf("file %v %d bytes sha256 %.12s", e.Perm, len(e.Data), hexSHA256([]byte(e.Data)))
}

// skipInSnapshot names the top-level entries a snapshot leaves out: git's
// own folder and ckpt's store.
var skipInSnapshot = map[string]bool{".git": true, ".osfoundry": true}

// snapshotDir reads every file, folder and link under root (paths relative,
// '/' separated), leaving out .git and .osfoundry.
func snapshotDir(t testing.TB, root string) map[string]fsNode {
	t.Helper()
	snap := map[string]fsNode{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if skipInSnapshot[rel] {
			return filepath.SkipDir
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			snap[rel] = fsNode{Kind: 'l', Data: target}
		case info.IsDir():
			snap[rel] = fsNode{Kind: 'd', Perm: info.Mode().Perm()}
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			snap[rel] = fsNode{Kind: 'f', Perm: info.Mode().Perm(), Data: string(b)}
		default:
			return fmt.Errorf("%s: unexpected file type %v", p, info.Mode())
		}
		return nil
	})
	if err != nil {
		t.Fatalf("snapshot of %s: %v", root, err)
	}
	return snap
}

// snapshotDiff lists the paths where got differs from want, each with what
// was wanted and what was found.
func snapshotDiff(want, got map[string]fsNode) []string {
	var out []string
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: missing (want %v)", p, w))
		case g != w:
			out = append(out, fmt.Sprintf("%s: got %v, want %v", p, g, w))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			out = append(out, fmt.Sprintf("%s: unexpected %v", p, g))
		}
	}
	sort.Strings(out)
	return out
}

// diffPaths is snapshotDiff reduced to the paths.
func diffPaths(want, got map[string]fsNode) []string {
	var ps []string
	for _, d := range snapshotDiff(want, got) {
		ps = append(ps, d[:strings.Index(d, ":")])
	}
	return ps
}

// filesOnly drops the folders of a snapshot.
func filesOnly(s map[string]fsNode) map[string]fsNode {
	out := map[string]fsNode{}
	for p, e := range s {
		if e.Kind != 'd' {
			out[p] = e
		}
	}
	return out
}

// requireSnapshot fails the test when root differs from want.
func requireSnapshot(t testing.TB, root string, want map[string]fsNode, what string) {
	t.Helper()
	if d := snapshotDiff(want, snapshotDir(t, root)); len(d) > 0 {
		t.Fatalf("%s: folder differs:\n  %s", what, strings.Join(d, "\n  "))
	}
}

// writeTexts writes name → content under root (creating folders), 0644.
func writeTexts(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func writeText(t testing.TB, root, name, content string) {
	t.Helper()
	writeTexts(t, root, map[string]string{name: content})
}

func readText(t testing.TB, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func removePath(t testing.TB, root, name string) {
	t.Helper()
	if err := os.Remove(filepath.Join(root, filepath.FromSlash(name))); err != nil {
		t.Fatal(err)
	}
}

func pathExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// copyTree copies src to dst (which must not exist), keeping modes and links.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -a %s %s: %v\n%s", src, dst, err, out)
	}
}

func hexSHA256(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// storeFolder is the store folder of a project root.
func storeFolder(root string) string {
	return filepath.Join(root, ".osfoundry", "checkpoints")
}

// blobFile finds the blob holding content in root's store: the compressed
// `<sha>.zst` or a raw seed blob `<sha>`.
func blobFile(t testing.TB, root, content string) string {
	t.Helper()
	sum := hexSHA256([]byte(content))
	var found []string
	filepath.WalkDir(storeFolder(root), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (d.Name() == sum || d.Name() == sum+".zst") {
			found = append(found, p)
		}
		return nil
	})
	if len(found) != 1 {
		t.Fatalf("want one blob for sha256 %s in the store, found %v", sum, found)
	}
	return found[0]
}

// wantSubstrings fails when s lacks any of subs.
func wantSubstrings(t testing.TB, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s: want %q in:\n%s", what, sub, s)
		}
	}
}

func sortedCopy(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	return out
}

func sameSet(a, b []string) bool {
	a, b = sortedCopy(a), sortedCopy(b)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// testProject is a small folder with the states a test moves it through.
type testProject struct {
	root string
}

func newTestProject(t *testing.T, files map[string]string) testProject {
	t.Helper()
	p := testProject{root: t.TempDir()}
	writeTexts(t, p.root, files)
	return p
}

// turn captures paths for turn id, lets edit change the folder the way an
// agent would, then seals the same paths.
func (p testProject) turn(t *testing.T, id, label string, paths []string, edit func()) {
	t.Helper()
	args := []string{"capture", "--turn", id}
	if label != "" {
		args = append(args, "--label", label)
	}
	ckptOK(t, p.root, append(args, paths...)...)
	edit()
	ckptOK(t, p.root, append([]string{"seal", "--turn", id}, paths...)...)
}

// rewindProject is a folder after two sealed agent turns and one change by
// hand, with the snapshots of each stage.
type rewindProject struct {
	testProject
	s0, s1, s2 map[string]fsNode // before turn 1, after turn 1, now
}

func newRewindProject(t *testing.T) rewindProject {
	p := rewindProject{testProject: newTestProject(t, map[string]string{
		"a.txt": "a 0\n", "b.txt": "b 0\n", "keep.txt": "untouched\n", "run.sh": "#!/bin/sh\necho 0\n",
	})}
	if err := os.Chmod(filepath.Join(p.root, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	p.s0 = snapshotDir(t, p.root)
	p.turn(t, "1", "add the widget", []string{"a.txt", "n1/new.txt"}, func() {
		writeTexts(t, p.root, map[string]string{"a.txt": "a 1\n", "n1/new.txt": "new 1\n"})
	})
	p.s1 = snapshotDir(t, p.root)
	p.turn(t, "2", "polish", []string{"b.txt", "run.sh"}, func() {
		writeTexts(t, p.root, map[string]string{"b.txt": "b 2\n", "run.sh": "#!/bin/sh\necho 2\n"})
		if err := os.Chmod(filepath.Join(p.root, "run.sh"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	writeText(t, p.root, "a.txt", "a by hand\n")
	p.s2 = snapshotDir(t, p.root)
	return p
}

// withPaths returns s with the entries of paths taken from src.
func withPaths(s, src map[string]fsNode, paths ...string) map[string]fsNode {
	out := map[string]fsNode{}
	for k, v := range s {
		out[k] = v
	}
	for _, p := range paths {
		if e, ok := src[p]; ok {
			out[p] = e
		} else {
			delete(out, p)
		}
	}
	return out
}

// buildHookBinary builds ckpt into a temporary folder of t's.
func buildHookBinary(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ckpt")
	out, err := exec.Command("go", "build", "-tags", "ckptfailpoint", "-o", bin, "..").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// hookEnv is a clean environment: nothing of the test's own CKPT_ROOT or
// agent variables leaks into the hook.
func hookEnv(extra map[string]string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}

func runBinary(bin, dir string, stdin []byte, env []string, args ...string) hooktest.Result {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	return hooktest.Result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

// gitRun runs git in dir with a fixed identity and no user configuration.
func gitRun(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Site Owner", "-c", "user.email=owner@example.com",
		"-c", "init.defaultBranch=main", "-c", "advice.detachedHead=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = ckptEnv("", nil)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
