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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
	build := exec.Command("go", "build", "-o", ckptBin, "..")
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

// --- the command line's contract ---

func TestVersionAndUsage(t *testing.T) {
	root := t.TempDir()
	r := ckptOK(t, root, "--version")
	if strings.TrimSpace(r.Stdout) == "" {
		t.Errorf("--version printed nothing\n%s", r)
	}
	for _, args := range [][]string{
		{"no-such-command"},
		{"capture", "a.txt"},        // no --turn
		{"seal", "a.txt"},           // no --turn
		{"show"},                    // no turn
		{"rewind"},                  // no turn
		{"log", "--no-such-flag"},   // unknown flag
		{"rewind", "1", "--bogus"},  // unknown flag
		{"capture", "--turn"},       // flag without its value
		{"prune", "--keep", "many"}, // not a number
	} {
		if r := ckpt(t, root, args...); r.Code != 2 {
			t.Errorf("want usage exit 2\n%s", r)
		}
	}
	if pathExists(filepath.Join(root, ".osfoundry")) {
		t.Errorf("usage errors created a store")
	}
}

func TestReadOnlyCommandsCreateNoStore(t *testing.T) {
	root := t.TempDir()
	writeText(t, root, "a.txt", "a\n")
	for _, args := range [][]string{{"log"}, {"log", "--json"}, {"show", "1"}, {"show", "1", "--json"},
		{"diff", "1"}, {"verify"}, {"rewind", "1", "--dry-run"}, {"undo", "--dry-run"}} {
		r := ckpt(t, root, args...)
		if r.Killed || r.Code < 0 {
			t.Errorf("crashed\n%s", r)
		}
		if pathExists(filepath.Join(root, ".osfoundry")) {
			t.Fatalf("%v created a store", args)
		}
	}
}

func TestStoreCreatedPrivateAndIgnored(t *testing.T) {
	root := t.TempDir()
	writeTexts(t, root, map[string]string{".env": "SECRET=1\n", "a.txt": "a\n"})
	ckptOK(t, root, "capture", "--turn", "1", "--label", "first", ".env", "a.txt")
	writeText(t, root, ".env", "SECRET=2\n")
	ckptOK(t, root, "seal", "--turn", "1", ".env", "a.txt")

	gi, err := os.ReadFile(filepath.Join(root, ".osfoundry", ".gitignore"))
	if err != nil {
		t.Fatalf("store has no .osfoundry/.gitignore: %v", err)
	}
	if strings.TrimSpace(string(gi)) != "*" {
		t.Errorf(".osfoundry/.gitignore holds %q, want *", gi)
	}
	n := 0
	filepath.WalkDir(storeFolder(root), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Error(err)
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			t.Error(err)
			return nil
		}
		switch {
		case d.IsDir() && info.Mode().Perm() != 0o700:
			t.Errorf("store folder %s has mode %v, want 0700", p, info.Mode().Perm())
		case info.Mode().IsRegular() && info.Mode().Perm() != 0o600:
			t.Errorf("store file %s has mode %v, want 0600", p, info.Mode().Perm())
		}
		n++
		return nil
	})
	if n < 2 {
		t.Errorf("store folder holds %d entries after a capture", n)
	}
	// The secret's pre-image is kept (that is why the store is private).
	blobFile(t, root, "SECRET=1\n")
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

func TestLogJSON(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	p.turn(t, "1", "first turn", []string{"a.txt", "new.txt"}, func() {
		writeTexts(t, p.root, map[string]string{"a.txt": "a1\n", "new.txt": "n\n"})
	})
	p.turn(t, "fix-login", "second \x1b[2J turn", []string{"b.txt"}, func() {
		writeText(t, p.root, "b.txt", "b1\n")
	})
	es := ckptLog(t, p.root)
	if len(es) != 2 {
		t.Fatalf("log --json: %d entries, want 2: %+v", len(es), es)
	}
	if es[0].Turn != "fix-login" || es[1].Turn != "1" {
		t.Errorf("log --json order %q, %q; want newest first: fix-login, 1", es[0].Turn, es[1].Turn)
	}
	if es[0].At < es[1].At {
		t.Errorf("at %q of the newer turn sorts before %q", es[0].At, es[1].At)
	}
	for _, e := range es {
		if e.Kind != "agent" || e.State != "active" || e.HandEdited != 0 {
			t.Errorf("turn %s: kind %q state %q hand_edited %d; want agent active 0", e.Turn, e.Kind, e.State, e.HandEdited)
		}
		at, err := time.Parse(wantAtLayout, e.At)
		if err != nil || time.Since(at) > time.Hour || time.Until(at) > time.Minute {
			t.Errorf("turn %s: at %q is not a UTC time of this run (%v)", e.Turn, e.At, err)
		}
	}
	if es[1].Label != "first turn" || es[1].Files != 2 || es[0].Files != 1 {
		t.Errorf("labels/files: %+v", es)
	}
	if es[0].Label != "second \x1b[2J turn" {
		t.Errorf("JSON label %q, want the raw label", es[0].Label)
	}
	// The text log escapes control characters: no raw ESC reaches a terminal.
	if r := ckptOK(t, p.root, "log"); strings.ContainsRune(r.Stdout, 0x1b) || !strings.Contains(r.Stdout, "fix-login") {
		t.Errorf("text log shows a raw escape or lacks a turn:\n%q", r.Stdout)
	}

	// A change made after the agent's write counts as hand_edited.
	writeText(t, p.root, "b.txt", "b by hand\n")
	es = ckptLog(t, p.root)
	if e := findEntry(t, es, "fix-login"); e.HandEdited != 1 {
		t.Errorf("after editing b.txt by hand: turn fix-login hand_edited %d, want 1", e.HandEdited)
	}
	if e := findEntry(t, es, "1"); e.HandEdited != 0 {
		t.Errorf("turn 1 hand_edited %d, want 0", e.HandEdited)
	}
}

func TestShowStatuses(t *testing.T) {
	const big = 9 << 20 // over the default 8 MiB limit
	p := newTestProject(t, map[string]string{
		"mod.txt":  "mod 0\n",
		"gone.txt": "gone 0\n",
		"same.txt": "same 0\n",
		"hand.txt": "hand 0\n",
		"lost.txt": "lost 0\n",
		"big.bin":  strings.Repeat("x", big),
	})
	paths := []string{"mod.txt", "new.txt", "gone.txt", "same.txt", "hand.txt", "lost.txt", "big.bin"}
	p.turn(t, "1", "statuses", paths, func() {
		writeTexts(t, p.root, map[string]string{
			"mod.txt": "mod 1\n", "new.txt": "new 1\n", "hand.txt": "hand 1\n",
			"lost.txt": "lost 1\n", "big.bin": strings.Repeat("y", big),
		})
		removePath(t, p.root, "gone.txt")
	})
	writeText(t, p.root, "hand.txt", "hand 2, after the agent\n")
	if err := os.Remove(blobFile(t, p.root, "lost 0\n")); err != nil {
		t.Fatal(err)
	}

	s := ckptShow(t, p.root, "1")
	want := map[string]string{
		"mod.txt":  "modified",
		"new.txt":  "created",
		"gone.txt": "deleted",
		"same.txt": "unchanged",
		"hand.txt": "hand_edited",
		"lost.txt": "missing_blob",
		"big.bin":  "skipped",
	}
	wantPre := map[string]string{"new.txt": "absent", "big.bin": "skipped"}
	got := s.statuses()
	for path, st := range want {
		if got[path] != st {
			t.Errorf("show 1 --json: %s status %q, want %q", path, got[path], st)
		}
	}
	if len(s.Files) != len(want) {
		t.Errorf("show 1 --json lists %d files, want %d: %+v", len(s.Files), len(want), s.Files)
	}
	for _, f := range s.Files {
		pre := wantPre[f.Path]
		if pre == "" {
			pre = "content"
		}
		if f.Pre != pre {
			t.Errorf("show 1 --json: %s pre %q, want %q", f.Path, f.Pre, pre)
		}
	}
	if e := findEntry(t, ckptLog(t, p.root), "1"); e.HandEdited != 1 || e.Files != len(paths) {
		t.Errorf("log: turn 1 files %d hand_edited %d, want %d and 1", e.Files, e.HandEdited, len(paths))
	}

	// A rewind over the missing blob and the skipped file restores the rest
	// and fails those two with a reason.
	o := ckptOp(t, p.root, 3, "rewind", "1", "--yes")
	if !sameSet(o.failedPaths(), []string{"big.bin", "lost.txt"}) {
		t.Errorf("rewind failed %v, want big.bin and lost.txt", o.Failed)
	}
	for _, f := range o.Failed {
		if strings.TrimSpace(f.Reason) == "" {
			t.Errorf("failed %s without a reason", f.Path)
		}
	}
	if !sameSet(o.HandEdited, []string{"hand.txt"}) {
		t.Errorf("rewind hand_edited %v, want [hand.txt]", o.HandEdited)
	}
	for name, content := range map[string]string{"mod.txt": "mod 0\n", "gone.txt": "gone 0\n", "hand.txt": "hand 0\n", "same.txt": "same 0\n", "lost.txt": "lost 1\n"} {
		if got := readText(t, p.root, name); got != content {
			t.Errorf("after rewind %s holds %q, want %q", name, got, content)
		}
	}
	if pathExists(filepath.Join(p.root, "new.txt")) {
		t.Errorf("after rewind new.txt still exists")
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

func TestRewindPlanChangesNothing(t *testing.T) {
	p := newRewindProject(t)
	r := ckptCode(t, p.root, 4, "rewind", "1", "--dry-run")
	requireSnapshot(t, p.root, p.s2, "rewind --dry-run")
	wantSubstrings(t, "rewind 1 --dry-run plan", r.Stdout+r.Stderr, "a.txt", "b.txt")

	// No terminal and no --yes: the plan is printed and nothing changes.
	r = ckptCode(t, p.root, 4, "rewind", "1")
	requireSnapshot(t, p.root, p.s2, "rewind without --yes and without a terminal")
	wantSubstrings(t, "rewind 1 plan", r.Stdout+r.Stderr, "a.txt", "b.txt")

	o := ckptOp(t, p.root, 4, "rewind", "1", "--dry-run")
	if o.Applied {
		t.Errorf("rewind --dry-run --json says applied")
	}
	if !sameSet(o.HandEdited, []string{"a.txt"}) {
		t.Errorf("dry-run plan hand_edited %v, want [a.txt]", o.HandEdited)
	}
	requireSnapshot(t, p.root, p.s2, "rewind --dry-run --json")
	for _, e := range ckptLog(t, p.root) {
		if e.Kind != "agent" || e.State != "active" {
			t.Errorf("after plans only, log has %+v", e)
		}
	}
	// Nothing to undo is an error, plan or not.
	ckptCode(t, p.root, 1, "undo", "--dry-run")
	ckptCode(t, p.root, 1, "undo", "--yes")
}

func TestRewindUndoRedo(t *testing.T) {
	p := newRewindProject(t)

	// rewind 2: b.txt and run.sh (with its executable bit) come back.
	o := ckptOp(t, p.root, 0, "rewind", "2", "--yes")
	afterOp1 := withPaths(p.s2, p.s0, "b.txt", "run.sh")
	requireSnapshot(t, p.root, afterOp1, "rewind 2")
	if o.Op != "op-1" || !o.Applied || !sameSet(o.Restored, []string{"b.txt", "run.sh"}) || len(o.Failed) != 0 {
		t.Errorf("rewind 2 --json: %+v", o)
	}
	es := ckptLog(t, p.root)
	if e := findEntry(t, es, "2"); e.State != "rewound" {
		t.Errorf("turn 2 state %q after its rewind", e.State)
	}
	if e := findEntry(t, es, "op-1"); e.Kind != "rewind" || e.State != "active" || e.Target != "2" || !sameSet(e.Turns, []string{"2"}) {
		t.Errorf("log op-1: %+v", e)
	}
	if es[0].Turn != "op-1" {
		t.Errorf("log newest entry is %q, want op-1", es[0].Turn)
	}

	// A rewound turn cannot be rewound again.
	r := ckptCode(t, p.root, 1, "rewind", "2", "--yes")
	if !strings.Contains(strings.ToLower(r.Stderr), "rewound") {
		t.Errorf("refusal does not say the turn is rewound:\n%s", r)
	}
	requireSnapshot(t, p.root, afterOp1, "refused rewind")

	// rewind 1 also keeps the change made by hand, and removes the folder
	// the turn created.
	o = ckptOp(t, p.root, 0, "rewind", "1", "--yes")
	requireSnapshot(t, p.root, p.s0, "rewind 1")
	if o.Op != "op-2" || !sameSet(o.HandEdited, []string{"a.txt"}) || !sameSet(o.Deleted, []string{"n1/new.txt"}) {
		t.Errorf("rewind 1 --json: %+v", o)
	}

	// undo walks back newest first, bringing the hand edit back.
	o = ckptOp(t, p.root, 0, "undo", "--yes")
	requireSnapshot(t, p.root, afterOp1, "undo of op-2")
	if o.Op != "op-3" {
		t.Errorf("undo --json op %q, want op-3", o.Op)
	}
	es = ckptLog(t, p.root)
	if e := findEntry(t, es, "op-3"); e.Kind != "undo" || e.Target != "op-2" {
		t.Errorf("log op-3: %+v", e)
	}
	if e := findEntry(t, es, "op-2"); e.State != "undone" {
		t.Errorf("op-2 state %q after its undo", e.State)
	}
	if e := findEntry(t, es, "1"); e.State != "active" {
		t.Errorf("turn 1 state %q after the undo of its rewind", e.State)
	}
	ckptOp(t, p.root, 0, "undo", "--yes")
	requireSnapshot(t, p.root, p.s2, "undo of op-1")
	if r := ckptCode(t, p.root, 1, "undo", "--yes"); !strings.Contains(strings.ToLower(r.Stderr), "nothing to undo") {
		t.Errorf("third undo:\n%s", r)
	}

	// redo re-applies the most recently undone rewind: op-1.
	o = ckptOp(t, p.root, 0, "redo", "--yes")
	requireSnapshot(t, p.root, afterOp1, "redo")
	if e := findEntry(t, ckptLog(t, p.root), o.Op); e.Kind != "redo" || e.Target != "op-1" {
		t.Errorf("log %s: %+v, want a redo of op-1", o.Op, e)
	}
	// op-2 is still undone and could be redone, but a new rewind empties
	// the redo stack.
	ckptOp(t, p.root, 0, "rewind", "1", "--yes")
	requireSnapshot(t, p.root, p.s0, "second rewind 1")
	if r := ckptCode(t, p.root, 1, "redo", "--yes"); !strings.Contains(strings.ToLower(r.Stderr), "nothing to redo") {
		t.Errorf("redo after a new rewind:\n%s", r)
	}
	ckptOp(t, p.root, 0, "undo", "--yes")
	requireSnapshot(t, p.root, afterOp1, "undo of the second rewind 1")
	ckptOp(t, p.root, 0, "undo", "--yes") // the redo
	requireSnapshot(t, p.root, p.s2, "undo of the redo")
	if r := ckptOK(t, p.root, "verify"); r.Code != 0 {
		t.Errorf("verify:\n%s", r)
	}
}

func TestUndoRefusedOverNewerTurn(t *testing.T) {
	p := newRewindProject(t)
	ckptOp(t, p.root, 0, "rewind", "1", "--yes")
	requireSnapshot(t, p.root, p.s0, "rewind 1")
	p.turn(t, "3", "later work", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "a 3\n") })
	now := snapshotDir(t, p.root)

	// Undoing the rewind would overwrite a.txt, which turn 3 wrote since.
	r := ckptCode(t, p.root, 1, "undo", "--yes")
	if !regexp.MustCompile(`\b3\b`).MatchString(r.Stderr) {
		t.Errorf("refused undo does not name turn 3:\n%s", r)
	}
	requireSnapshot(t, p.root, now, "refused undo")
	if e := ckptLog(t, p.root)[0]; e.Turn != "3" {
		t.Errorf("a refused undo left a log entry: %+v", e)
	}
	ckptOp(t, p.root, 0, "undo", "--yes", "--force")
	requireSnapshot(t, p.root, p.s2, "forced undo")
}

func TestRewoundTurnGetsNewID(t *testing.T) {
	p := newRewindProject(t)
	ckptOp(t, p.root, 0, "rewind", "1", "--yes")

	// Turn 1 is rewound: a capture naming it starts turn 1.2 with the same
	// label, and a seal naming it goes there too.
	p.turn(t, "1", "", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "a 1.2\n") })
	t12 := findEntry(t, ckptLog(t, p.root), "1.2")
	if t12.State != "active" || t12.Label != "add the widget" || t12.Kind != "agent" || t12.Files != 1 {
		t.Errorf("log 1.2: %+v, want an active agent turn of 1 file labelled like turn 1", t12)
	}
	s := ckptShow(t, p.root, "1.2")
	if len(s.Files) != 1 || s.Files[0].Path != "a.txt" || s.Files[0].Status != "modified" {
		t.Errorf("show 1.2: %+v, want a.txt modified", s)
	}
	if got := findEntry(t, ckptLog(t, p.root), "1"); got.State != "rewound" || got.Files != 2 {
		t.Errorf("turn 1 after 1.2 began: %+v", got)
	}

	// Rewound again, turn 1 takes the next free id: 1.3.
	ckptOp(t, p.root, 0, "rewind", "1.2", "--yes")
	if got := readText(t, p.root, "a.txt"); got != "a 0\n" {
		t.Errorf("rewind 1.2 left a.txt %q, want its pre-image \"a 0\"", got)
	}
	p.turn(t, "1", "", []string{"keep.txt"}, func() { writeText(t, p.root, "keep.txt", "changed\n") })
	findEntry(t, ckptLog(t, p.root), "1.3")
}

// --- damage ---

func TestCorruptionFoundAndContained(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n", "b.txt": "b 0\n", "c.txt": "c 0\n", "d.txt": "d 0\n"})
	all := []string{"a.txt", "b.txt", "c.txt", "d.txt"}
	p.turn(t, "1", "four files", all, func() {
		writeTexts(t, p.root, map[string]string{"a.txt": "a 1\n", "b.txt": "b 1\n", "c.txt": "c 1\n", "d.txt": "d 1\n"})
	})
	ckptOK(t, p.root, "capture", "--turn", "2", "e.txt")
	writeText(t, p.root, "e.txt", "e 2\n")
	// The record file the seal appends to is the one that changes with it
	// (caches and locks aside).
	storeBefore := snapshotDir(t, storeFolder(p.root))
	ckptOK(t, p.root, "seal", "--turn", "2", "e.txt")
	var records []string
	for _, d := range diffPaths(storeBefore, snapshotDir(t, storeFolder(p.root))) {
		if !strings.Contains(d, "cache") && !strings.Contains(d, "lock") && !strings.HasPrefix(d, "blobs/") && !strings.Contains(d, "error") {
			records = append(records, d)
		}
	}
	if len(records) != 1 {
		t.Fatalf("want one record file changed by seal, found %v", records)
	}
	record := filepath.Join(storeFolder(p.root), records[0])

	// A flipped byte, a missing blob, a blob holding another file's bytes,
	// and a record cut short.
	flipped := blobFile(t, p.root, "a 0\n")
	b, err := os.ReadFile(flipped)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x5a
	if err := os.WriteFile(flipped, b, 0o600); err != nil {
		t.Fatal(err)
	}
	missing := blobFile(t, p.root, "b 0\n")
	if err := os.Remove(missing); err != nil {
		t.Fatal(err)
	}
	swapped := blobFile(t, p.root, "d 0\n")
	other, err := os.ReadFile(blobFile(t, p.root, "c 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(swapped, other, 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(record)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(record, fi.Size()-7); err != nil {
		t.Fatal(err)
	}

	r := ckpt(t, p.root, "verify")
	if r.Code == 0 {
		t.Fatalf("verify passed a damaged store\n%s", r)
	}
	for _, f := range []string{flipped, missing, swapped, record} {
		// A missing blob may be named without its suffix: which form was
		// meant cannot be known once it is gone.
		if name := strings.TrimSuffix(filepath.Base(f), ".zst"); !strings.Contains(r.Stdout+r.Stderr, name) {
			t.Errorf("verify does not name the damaged %s\n%s", name, r)
		}
	}
	if name := filepath.Base(blobFile(t, p.root, "c 0\n")); strings.Contains(r.Stdout+r.Stderr, name) {
		t.Errorf("verify names the sound blob %s\n%s", name, r)
	}

	t.Run("show marks damaged blobs missing_blob", func(t *testing.T) {
		// store.StatusMissingBlob: "also a blob that fails its hash".
		s := ckptShow(t, p.root, "1")
		for path, want := range map[string]string{"a.txt": "missing_blob", "b.txt": "missing_blob", "d.txt": "missing_blob", "c.txt": "modified"} {
			if got := s.statuses()[path]; got != want {
				t.Errorf("show 1 --json: %s is %q, want %q", path, got, want)
			}
		}
	})

	o := ckptOp(t, p.root, 3, "rewind", "1", "--yes")
	if !sameSet(o.failedPaths(), []string{"a.txt", "b.txt", "d.txt"}) {
		t.Errorf("rewind over damaged blobs failed %+v, want a.txt, b.txt, d.txt", o.Failed)
	}
	for _, f := range o.Failed {
		if strings.TrimSpace(f.Reason) == "" {
			t.Errorf("failed %s without a reason", f.Path)
		}
	}
	for path, want := range map[string]string{"a.txt": "a 1\n", "b.txt": "b 1\n", "d.txt": "d 1\n", "c.txt": "c 0\n"} {
		if got := readText(t, p.root, path); got != want {
			t.Errorf("after the rewind %s holds %q, want %q (bad bytes must never be written)", path, got, want)
		}
	}
}

func TestRootFound(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTexts(t, root, map[string]string{"sub/dir/x.txt": "x 0\n", "top.txt": "top 0\n"})
	sub := filepath.Join(root, "sub", "dir")

	// No --root, no $CKPT_ROOT: the walk up from sub/dir stops at .git.
	// Paths on the command line are relative to the working directory;
	// in output they are relative to the root.
	if r := ckptDo(t, ckptCall{Dir: sub}, "capture", "--turn", "1", "x.txt", "../../top.txt"); r.Code != 0 {
		t.Fatalf("capture from a subfolder\n%s", r)
	}
	if pathExists(filepath.Join(sub, ".osfoundry")) || !pathExists(storeFolder(root)) {
		t.Fatalf("the store is not at the root found by walking up to .git")
	}
	r := ckptDo(t, ckptCall{Dir: sub}, "show", "1", "--json")
	var s showDoc
	decodeJSON(t, r, &s)
	var paths []string
	for _, f := range s.Files {
		paths = append(paths, f.Path)
	}
	if !sameSet(paths, []string{"sub/dir/x.txt", "top.txt"}) {
		t.Errorf("show 1 --json paths %v, want root-relative sub/dir/x.txt and top.txt", paths)
	}

	// --root names the root exactly, from anywhere.
	elsewhere := t.TempDir()
	r = ckptDo(t, ckptCall{Dir: elsewhere}, "log", "--json", "--root", root)
	var es []logRow
	decodeJSON(t, r, &es)
	if r.Code != 0 || len(es) != 1 || es[0].Turn != "1" {
		t.Errorf("log --json --root from elsewhere: %+v\n%s", es, r)
	}
	if pathExists(filepath.Join(elsewhere, ".osfoundry")) {
		t.Errorf("log created a store in the working directory")
	}
	// $CKPT_ROOT too, and a capture outside the root is refused.
	writeText(t, elsewhere, "out.txt", "outside\n")
	r = ckptDo(t, ckptCall{Root: root, Dir: elsewhere}, "capture", "--turn", "2", "out.txt")
	if r.Code != 1 || !strings.Contains(r.Stderr, "out.txt") || !strings.Contains(strings.ToLower(r.Stderr), "outside") {
		t.Errorf("capture of a file outside the root: want exit 1 and a message naming it and the reason\n%s", r)
	}
}

func TestSymlinkKeptAsLink(t *testing.T) {
	p := newTestProject(t, map[string]string{"target.txt": "the target\n"})
	if err := os.Symlink("target.txt", filepath.Join(p.root, "link")); err != nil {
		t.Fatal(err)
	}
	s0 := snapshotDir(t, p.root)
	p.turn(t, "1", "replace a link", []string{"link", "newlink"}, func() {
		removePath(t, p.root, "link")
		writeText(t, p.root, "link", "now a regular file\n")
		if err := os.Symlink("link", filepath.Join(p.root, "newlink")); err != nil {
			t.Fatal(err)
		}
	})
	ckptOp(t, p.root, 0, "rewind", "1", "--yes")
	requireSnapshot(t, p.root, s0, "rewind over a replaced link")
	ckptOp(t, p.root, 0, "undo", "--yes")
	if fi, err := os.Lstat(filepath.Join(p.root, "link")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("undo: link is not the agent's regular file again (%v)", err)
	}
	if target, err := os.Readlink(filepath.Join(p.root, "newlink")); err != nil || target != "link" {
		t.Errorf("undo: newlink → %q, %v", target, err)
	}
	if got := readText(t, p.root, "target.txt"); got != "the target\n" {
		t.Errorf("the link's target was written through: %q", got)
	}
}

func TestUnchangedFilesNotRewritten(t *testing.T) {
	p := newTestProject(t, map[string]string{"same.txt": "same\n", "back.txt": "back 0\n", "mod.txt": "mod 0\n"})
	old := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, n := range []string{"same.txt", "back.txt", "mod.txt"} {
		if err := os.Chtimes(filepath.Join(p.root, n), old, old); err != nil {
			t.Fatal(err)
		}
	}
	p.turn(t, "1", "", []string{"same.txt", "back.txt", "mod.txt"}, func() {
		writeTexts(t, p.root, map[string]string{"back.txt": "back 1\n", "mod.txt": "mod 1\n"})
	})
	// back.txt is put back by hand, with its old mtime.
	writeText(t, p.root, "back.txt", "back 0\n")
	if err := os.Chtimes(filepath.Join(p.root, "back.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	o := ckptOp(t, p.root, 0, "rewind", "1", "--yes")
	if !sameSet(o.Restored, []string{"mod.txt"}) {
		t.Errorf("rewind restored %v, want only mod.txt", o.Restored)
	}
	for _, n := range []string{"same.txt", "back.txt"} {
		fi, err := os.Stat(filepath.Join(p.root, n))
		if err != nil {
			t.Fatal(err)
		}
		if !fi.ModTime().Equal(old) {
			t.Errorf("%s already held its pre-image but was rewritten (mtime %v)", n, fi.ModTime())
		}
	}
	if got := readText(t, p.root, "mod.txt"); got != "mod 0\n" {
		t.Errorf("mod.txt holds %q", got)
	}
}

func TestWriteAndRm(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n", "b.txt": "b 0\n"})
	s0 := snapshotDir(t, p.root)
	if r := ckptDo(t, ckptCall{Root: p.root, Stdin: []byte("a from stdin\n")}, "write", "--turn", "1", "--label", "write and rm", "a.txt"); r.Code != 0 {
		t.Fatalf("write\n%s", r)
	}
	if r := ckptDo(t, ckptCall{Root: p.root, Stdin: []byte("brand new\n")}, "write", "--turn", "1", "dir/new.txt"); r.Code != 0 {
		t.Fatalf("write of a new file in a new folder\n%s", r)
	}
	ckptOK(t, p.root, "rm", "--turn", "1", "b.txt")
	if got := readText(t, p.root, "a.txt"); got != "a from stdin\n" {
		t.Errorf("write left a.txt %q", got)
	}
	if pathExists(filepath.Join(p.root, "b.txt")) {
		t.Errorf("rm left b.txt")
	}
	want := map[string]string{"a.txt": "modified", "dir/new.txt": "created", "b.txt": "deleted"}
	if got := ckptShow(t, p.root, "1").statuses(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("show 1: %v, want %v (write and rm seal: nothing is hand_edited)", got, want)
	}
	ckptOp(t, p.root, 0, "rewind", "1", "--yes")
	requireSnapshot(t, p.root, s0, "rewind of write and rm")
}

func TestPrune(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n"})
	for i := 1; i <= 4; i++ {
		id := strconv.Itoa(i)
		p.turn(t, id, "", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "a "+id+"\n") })
	}
	// Rewinding turn 4 keeps "a 4" as the bytes its undo needs.
	ckptOp(t, p.root, 0, "rewind", "4", "--yes")
	before := snapshotDir(t, storeFolder(p.root))
	ckptCode(t, p.root, 4, "prune", "--keep", "2", "--dry-run") // a plan shown, nothing changed
	if d := snapshotDiff(filesOnly(before), filesOnly(snapshotDir(t, storeFolder(p.root)))); len(d) > 0 {
		t.Errorf("prune --dry-run changed the store:\n  %s", strings.Join(d, "\n  "))
	}
	ckptOK(t, p.root, "prune", "--keep", "2")
	var turns []string
	for _, e := range ckptLog(t, p.root) {
		if e.Kind == "agent" {
			turns = append(turns, e.Turn)
		}
	}
	if !sameSet(turns, []string{"3", "4"}) {
		t.Errorf("after prune --keep 2 the turns are %v, want 3 and 4", turns)
	}
	// Turn 1's pre-image "a 0" is referred to by nothing kept.
	if n := countBlobs(t, p.root, "a 0\n"); n != 0 {
		t.Errorf("prune kept the blob of a pruned turn's pre-image")
	}
	ckptOK(t, p.root, "verify")
	ckptOp(t, p.root, 0, "undo", "--yes")
	if got := readText(t, p.root, "a.txt"); got != "a 4\n" {
		t.Errorf("undo after prune left a.txt %q, want \"a 4\"", got)
	}
	ckptOp(t, p.root, 0, "rewind", "3", "--yes")
	if got := readText(t, p.root, "a.txt"); got != "a 2\n" {
		t.Errorf("rewind 3 after prune left a.txt %q, want \"a 2\"", got)
	}
}

// countBlobs counts the blobs of content in root's store.
func countBlobs(t testing.TB, root, content string) int {
	sum := hexSHA256([]byte(content))
	n := 0
	filepath.WalkDir(storeFolder(root), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (d.Name() == sum || d.Name() == sum+".zst") {
			n++
		}
		return nil
	})
	return n
}

func TestDemo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	r := ckptDo(t, ckptCall{Dir: t.TempDir()}, "demo", "--no-ui", "--dir", dir)
	if r.Code != 0 || !strings.Contains(r.Stdout, dir) {
		t.Fatalf("demo --no-ui --dir: want exit 0 and the folder's path\n%s", r)
	}
	es := ckptLog(t, dir)
	agents, hand := 0, 0
	for _, e := range es {
		if e.Kind == "agent" {
			agents++
			hand += e.HandEdited
		}
	}
	if agents < 3 || hand < 1 {
		t.Errorf("demo: %d agent turns, %d files changed since the agent; want at least 3 and 1", agents, hand)
	}
	statuses := map[string]bool{}
	for _, e := range es {
		for _, f := range ckptShow(t, dir, e.Turn).Files {
			statuses[f.Status] = true
		}
	}
	for _, s := range []string{"created", "deleted", "hand_edited"} {
		if !statuses[s] {
			t.Errorf("demo has no file %s (statuses %v)", s, statuses)
		}
	}
	if !pathExists(filepath.Join(dir, ".env")) {
		t.Errorf("demo project has no .env")
	}
	ckptOK(t, dir, "verify")
}
