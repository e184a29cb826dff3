package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "ckpt" {
		os.Exit(runProxy(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// agentTimeout bounds one agent's run (several run at once, on a machine
// that may be busy).
const agentTimeout = 6 * time.Minute

// The project every agent starts from, and the prompt it is given. The
// prompt has spaces, so opencode wraps it in quotes, and the label must
// still come out without them.
var (
	setupTree = map[string]entry{
		"a.txt":    {Content: "alpha\nbeta\ngamma\n", Mode: 0o644},
		"b.txt":    {Content: "bee\n", Mode: 0o644},
		"keep.txt": {Content: "left alone\n", Mode: 0o644},
	}
	prompt = "Edit the files for the ckpt harness"
)

// editSteps are the edit-tool steps of agents with separate write and edit
// tools; shellStep changes b.txt through the agent's shell tool.
var (
	writeStep = step{kind: stepWrite, path: "new.txt", content: "made by the agent\n"}
	readStep  = step{kind: stepRead, path: "a.txt"}
	editStep  = step{kind: stepEdit, path: "a.txt", old: "beta", new: "BETA"}
	patchStep = step{kind: stepPatch, patch: "*** Begin Patch\n*** Add File: new.txt\n+made by the agent\n*** Update File: a.txt\n@@\n alpha\n-beta\n+BETA\n*** End Patch\n"}
	shellStep = step{kind: stepShell, command: "printf 'sea\\n' > b.txt"}
	// afterTree is the project once every step ran.
	afterTree = map[string]entry{
		"a.txt":    {Content: "alpha\nBETA\ngamma\n", Mode: 0o644},
		"b.txt":    {Content: "sea\n", Mode: 0o644},
		"keep.txt": {Content: "left alone\n", Mode: 0o644},
		"new.txt":  {Content: "made by the agent\n", Mode: 0o644},
	}
	// shellPath is the file the shell step changes.
	shellPath = "b.txt"
)

// agentSpec is how to run one agent.
type agentSpec struct {
	name string
	// variant names a second run of the same agent (its subtest and its
	// fixture, recorded-VARIANT.jsonl).
	variant string
	steps   []step
	// shellTool names the agent's shell tool as ckpt's installed hooks
	// would mention it, to tell whether ckpt covers shell commands yet.
	shellTool string
	// commandEnv is the agent's environment for a mock at url.
	commandEnv func(r *run, url string) []string
	handler    func(m *mock) http.Handler
	// approve installs with --approve (Codex).
	approve bool
	// prepare writes the agent's home config for a mock at url.
	prepare func(t *testing.T, r *run, url string)
	// finish, when set, runs after the agent (opencode keeps its plugin
	// dependencies for the next run).
	finish func(t *testing.T, r *run)
	// command is the headless agent run.
	command func(r *run, exe string) *exec.Cmd
	// call names a chat-API tool call for a step, in the agent's own
	// tools (nil: opencode's); probe is a tool the agent's requests offer.
	call  func(m *mock, st step) (string, map[string]any)
	probe string
	// setup and after are the project before and after the run, want the
	// statuses ckpt show must give (nil: the four first agents' ones).
	setup, after map[string]entry
	want         map[string]string
	// label is the turn's label when the agent gives hooks no prompt.
	label string
	// conversation: ckpt show --conversation shows the run's prompt,
	// reply and tool calls (see conversation_test.go).
	conversation bool
	// tools name the agent's tool for each kind of step, where the mock
	// speaks the agent's own API (nil: opencode's names, or call's).
	tools map[stepKind]string
}

// The scenario of the agents added later: the edit tools also rewrite the
// ignored .env, and the shell edits one file and deletes another.
var (
	envSetup = map[string]entry{
		".gitignore": {Content: ".env\n", Mode: 0o644},
		".env":       {Content: "SECRET=1\n", Mode: 0o644},
		"a.txt":      {Content: "alpha\nbeta\ngamma\n", Mode: 0o644},
		"b.txt":      {Content: "bee\n", Mode: 0o644},
		"c.txt":      {Content: "sea\n", Mode: 0o644},
		"keep.txt":   {Content: "left alone\n", Mode: 0o644},
	}
	envAfter = map[string]entry{
		".gitignore": {Content: ".env\n", Mode: 0o644},
		".env":       {Content: "SECRET=2\n", Mode: 0o644},
		"a.txt":      {Content: "alpha\nBETA\ngamma\n", Mode: 0o644},
		"b.txt":      {Content: "sea\n", Mode: 0o644},
		"keep.txt":   {Content: "left alone\n", Mode: 0o644},
		"new.txt":    {Content: "made by the agent\n", Mode: 0o644},
	}
	envWant = map[string]string{"a.txt": "content/modified", "new.txt": "absent/created", ".env": "content/modified",
		"b.txt": "content/modified", "c.txt": "content/deleted"}
	envWrite = step{kind: stepWrite, path: ".env", content: "SECRET=2\n"}
	envEdit  = step{kind: stepEdit, path: ".env", old: "SECRET=1", new: "SECRET=2"}
	envRead  = step{kind: stepRead, path: ".env"}
	envShell = step{kind: stepShell, command: "printf 'sea\\n' > b.txt && rm c.txt"}
	doneStep = step{kind: stepDone}
)

func (s agentSpec) setupTree() map[string]entry {
	if s.setup != nil {
		return s.setup
	}
	return setupTree
}

func (s agentSpec) afterTree() map[string]entry {
	if s.after != nil {
		return s.after
	}
	return afterTree
}

// run is one agent's run folder (see proxy.go).
type run struct {
	dir, bin, project, home string
	env                     []string
}

func (r *run) write(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(r.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

var specs = []agentSpec{claudeSpec, codexSpec, codexCodeModeSpec, geminiSpec, opencodeSpec, opencodePatchSpec,
	piSpec, copilotSpec, clineSpec, qwenSpec}

// TestRealAgents runs each agent whose executable $CKPT_AGENT_<NAME> names,
// with the ckpt binary $CKPT_BIN.
func TestRealAgents(t *testing.T) {
	if os.Getenv("CKPT_REAL_AGENTS") == "" {
		t.Skip("real agents not requested: scripts/real-agents.sh runs them (CKPT_REAL_AGENTS=1)")
	}
	ckpt := os.Getenv("CKPT_BIN")
	if ckpt == "" {
		t.Fatal("CKPT_BIN names no ckpt binary")
	}
	// The agents go side by side, each in its own folders with its own
	// mock (go test -parallel bounds how many); one agent's runs go one
	// after the other, since they share its caches (opencode's plugin
	// dependencies).
	var names []string
	byName := map[string][]agentSpec{}
	for _, s := range specs {
		if byName[s.name] == nil {
			names = append(names, s.name)
		}
		byName[s.name] = append(byName[s.name], s)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			exe := os.Getenv("CKPT_AGENT_" + strings.ToUpper(name))
			if exe == "" {
				t.Skipf("HARNESS %s: SKIPPED: $CKPT_AGENT_%s names no executable", name, strings.ToUpper(name))
			}
			for _, s := range byName[name] {
				sub := "run"
				if s.variant != "" {
					sub = s.variant
				}
				t.Run(sub, func(t *testing.T) { runAgent(t, s, ckpt, exe) })
			}
		})
	}
}

func runAgent(t *testing.T, s agentSpec, ckptBin, exe string) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	r := &run{dir: dir, bin: filepath.Join(dir, "bin"), project: filepath.Join(dir, "project"), home: filepath.Join(dir, "home")}
	for _, d := range []string{r.bin, r.project, r.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, e := range s.setupTree() {
		r.write(t, "project/"+p, e.Content)
	}
	version := agentVersion(exe)
	m := &mock{steps: s.steps, project: r.project, keep: os.Getenv("CKPT_HARNESS_DEBUG") != "", call: s.call, probe: s.probe}
	url, stop, err := serve(s.handler(m))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	r.env = []string{"HOME=" + r.home, "PATH=" + r.bin + ":" + os.Getenv("PATH"), "TERM=dumb", "NO_COLOR=1",
		"XDG_CONFIG_HOME=" + filepath.Join(r.home, ".config"), "XDG_DATA_HOME=" + filepath.Join(r.home, ".local/share"),
		"XDG_CACHE_HOME=" + filepath.Join(r.home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(r.home, ".local/state"),
		"TMPDIR=" + os.TempDir()}
	s.prepare(t, r, url)

	// ckpt under test at bin/ckpt for install, so the hooks name that path;
	// then the proxy takes its place.
	ckpt := filepath.Join(r.bin, "ckpt")
	copyFile(t, ckptBin, ckpt)
	install := []string{"install", s.name}
	if s.approve && os.Getenv("CKPT_HARNESS_NO_APPROVE") == "" {
		install = append(install, "--approve")
	}
	out, err := ckptRun(r, ckpt, install...)
	if err != nil {
		t.Fatalf("ckpt install %s: %v\n%s", s.name, err, out)
	}
	config, _ := os.ReadFile(filepath.Join(r.project, configFile[s.name]))
	shellCovered := strings.Contains(string(config), s.shellTool)
	if err := os.Rename(ckpt, filepath.Join(r.bin, realName)); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	copyFile(t, self, ckpt)
	if os.Getenv("CKPT_HARNESS_BROKEN") != "" {
		r.write(t, "bin/"+brokenName, "")
	}

	ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
	defer cancel()
	cmd := s.command(r, exe)
	cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	cmd.Dir, cmd.Env = r.project, append(slices.Clone(r.env), s.commandEnv(r, url)...)
	cmd.Stdin = nil
	cmd.WaitDelay = 5 * time.Second
	var agentOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &agentOut, &agentOut
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start).Round(100 * time.Millisecond)
	if s.finish != nil {
		s.finish(t, r)
	}
	explain := func() string {
		return fmt.Sprintf("agent output:\n%s\nmock:\n%s\nhook calls: %d", tail(agentOut.String(), 4000), m.Log(), countHookCalls(r))
	}
	if m.keep {
		// CKPT_HARNESS_DEBUG=DIR keeps every request the mock was sent.
		for i, b := range m.bodies {
			p := filepath.Join(os.Getenv("CKPT_HARNESS_DEBUG"), fmt.Sprintf("%s-request-%02d.json", s.name, i+1))
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Log(err)
			}
		}
	}
	if os.Getenv("CKPT_HARNESS_DEBUG") != "" {
		_ = os.WriteFile(filepath.Join(os.Getenv("CKPT_HARNESS_DEBUG"), s.name+"-output.txt"), agentOut.Bytes(), 0o644)
	}
	if err != nil {
		t.Fatalf("HARNESS %s %s: FAIL: the agent run: %v\n%s", s.name, version, err, explain())
	}

	recs, err := readHookLog(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("CKPT_HARNESS_RECORD") != "" {
		recordFixture(t, s, r, recs, version)
	}

	// The agent did what the script asked.
	if got := snapshot(r.project); !treesEqual(got, s.afterTree()) {
		t.Fatalf("HARNESS %s %s: FAIL: the agent did not carry out the script: the project holds\n%s\n%s", s.name, version, showTree(got), explain())
	}
	c := checker{t: t, r: r, ckpt: filepath.Join(r.bin, realName), name: s.name, version: version, explain: explain, spec: s}
	if _, err := os.Stat(filepath.Join(r.project, ".osfoundry", "checkpoints")); err != nil {
		c.fatalf("no store in the project: ckpt's hooks captured nothing (%d hook calls reached the proxy)", len(recs))
	}
	c.doctor(filepath.Dir(exe))
	shell := c.check(shellCovered)
	conv := c.conversation()
	if s.variant != "" {
		version += " (" + s.variant + ")"
	}
	t.Logf("HARNESS %s %s: ok: %d hook calls; edit tools captured, sealed, rewound and undone exactly; shell: %s; %s; %s",
		s.name, version, len(recs), shell, conv, took)
}

// countHookCalls is how many hook calls the proxy saw.
func countHookCalls(r *run) int {
	recs, _ := readHookLog(r.dir)
	return len(recs)
}

// configFile is each agent's project config, where install puts the hooks.
var configFile = map[string]string{
	"claude":   ".claude/settings.local.json",
	"codex":    ".codex/hooks.json",
	"gemini":   ".gemini/settings.json",
	"opencode": ".opencode/plugins/ckpt.ts",
	"pi":       ".pi/extensions/ckpt.ts",
	"copilot":  ".github/hooks/ckpt.json",
	"cline":    ".clinerules/hooks/PreToolUse",
	"qwen":     ".qwen/settings.json",
}

// checker runs ckpt's log, show, rewind and undo on a finished run.
type checker struct {
	t             *testing.T
	r             *run
	ckpt          string
	name, version string
	explain       func() string
	spec          agentSpec
}

func (c *checker) fatalf(format string, args ...any) {
	c.t.Helper()
	c.t.Fatalf("HARNESS %s %s: FAIL: %s\n%s", c.name, c.version, fmt.Sprintf(format, args...), c.explain())
}

func (c *checker) json(v any, args ...string) {
	c.t.Helper()
	out, err := ckptRun(c.r, c.ckpt, args...)
	if err != nil {
		c.fatalf("ckpt %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if err := json.Unmarshal(out, v); err != nil {
		c.fatalf("ckpt %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// check verifies the store against the script and returns the words for
// shell coverage.
func (c *checker) check(shellCovered bool) string {
	c.t.Helper()
	var log []struct {
		Turn   string `json:"turn"`
		Label  string `json:"label"`
		Kind   string `json:"kind"`
		State  string `json:"state"`
		Files  int    `json:"files"`
		Source *struct {
			Agent string `json:"agent"`
		} `json:"source"`
	}
	c.json(&log, "log", "--json")
	if len(log) != 1 || log[0].Kind != "agent" || log[0].Source == nil || log[0].Source.Agent != c.name {
		c.fatalf("want one agent turn from %s in the log, got %+v", c.name, log)
	}
	wantLabel := prompt
	if c.spec.label != "" {
		wantLabel = c.spec.label
	}
	if !strings.HasPrefix(log[0].Label, wantLabel) {
		c.fatalf("turn label %q, want %q", log[0].Label, wantLabel)
	}
	turn := log[0].Turn

	var show struct {
		Files []struct {
			Path   string `json:"path"`
			Pre    string `json:"pre"`
			Status string `json:"status"`
		} `json:"files"`
	}
	c.json(&show, "show", turn, "--json")
	got := map[string]string{}
	for _, f := range show.Files {
		got[f.Path] = f.Pre + "/" + f.Status
	}
	want := map[string]string{"a.txt": "content/modified", "new.txt": "absent/created", shellPath: "content/modified"}
	if c.spec.want != nil {
		want = c.spec.want
	}
	shellSeen := got[shellPath] != ""
	if !shellSeen {
		c.fatalf("the shell's change to %s is not in turn %s (the installed hooks %s the shell tool)", shellPath, turn,
			map[bool]string{true: "name", false: "do not name"}[shellCovered])
	}
	if !maps.Equal(got, want) {
		c.fatalf("ckpt show %s: got %v, want %v", turn, got, want)
	}
	shell := "the shell's change was captured and rewound"

	var op struct {
		Op      string   `json:"op"`
		Applied bool     `json:"applied"`
		Failed  []any    `json:"failed"`
		Deleted []string `json:"deleted"`
	}
	c.json(&op, "rewind", turn, "--yes", "--json")
	wantBefore := c.spec.setupTree()
	if now := snapshot(c.r.project); !op.Applied || len(op.Failed) > 0 || !treesEqual(now, wantBefore) {
		c.fatalf("ckpt rewind %s: %+v; the project holds\n%s\nwant\n%s", turn, op, showTree(now), showTree(wantBefore))
	}
	c.json(&op, "undo", "--yes", "--json")
	if now := snapshot(c.r.project); !op.Applied || len(op.Failed) > 0 || !treesEqual(now, c.spec.afterTree()) {
		c.fatalf("ckpt undo: %+v; the project holds\n%s\nwant\n%s", op, showTree(now), showTree(c.spec.afterTree()))
	}
	c.json(&log, "log", "--json")
	kinds := []string{}
	for _, l := range log {
		kinds = append(kinds, l.Kind)
	}
	if !slices.Equal(kinds, []string{"undo", "rewind", "agent"}) {
		c.fatalf("log after rewind and undo: kinds %v", kinds)
	}
	return shell
}

// doctor checks that `ckpt doctor AGENT` agrees that capture works here,
// with the agent's folder on $PATH so it reads the version too.
func (c *checker) doctor(agentDir string) {
	c.t.Helper()
	cmd := exec.Command(c.ckpt, "doctor", c.name, "--json", "--root", c.r.project)
	cmd.Dir = c.r.project
	cmd.Env = []string{"HOME=" + c.r.home, "PATH=" + agentDir + ":" + os.Getenv("PATH")}
	out, err := cmd.Output()
	var ds []struct {
		Capture bool   `json:"capture"`
		Version string `json:"version"`
		Tested  bool   `json:"version_tested"`
		Checks  []struct {
			Check, Detail string
			OK            bool
		} `json:"checks"`
	}
	if jerr := json.Unmarshal(out, &ds); err != nil || jerr != nil || len(ds) != 1 {
		c.fatalf("ckpt doctor %s: %v %v\n%s", c.name, err, jerr, out)
	}
	if !ds[0].Capture || !ds[0].Tested || ds[0].Version != c.version {
		c.fatalf("ckpt doctor %s disagrees: %s", c.name, out)
	}
}

func ckptRun(r *run, ckpt string, args ...string) ([]byte, error) {
	cmd := exec.Command(ckpt, append(args, "--root", r.project)...)
	cmd.Dir = r.project
	cmd.Env = []string{"HOME=" + r.home, "PATH=" + os.Getenv("PATH")}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return append(out.Bytes(), errb.Bytes()...), err
	}
	return out.Bytes(), nil
}

// versionNumber is a version as agents print it ("1.0.102.", "v0.73.1").
var versionNumber = regexp.MustCompile(`^v?([0-9]+(\.[0-9]+)+\S*?)\.?$`)

func agentVersion(exe string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, exe, "--version").CombinedOutput() // pi prints it on stderr
	if err != nil {
		return "(version unknown)"
	}
	// Numbers joined by dots: Copilot CLI's first run prints "Package
	// extraction took 5195ms" before its version.
	for _, w := range strings.Fields(string(out)) {
		if m := versionNumber.FindStringSubmatch(w); m != nil {
			return m[1]
		}
	}
	return strings.TrimSpace(string(out))
}

// copyFile puts the executable from at to: a hard link where it can, since
// a copy is open for writing while parallel subtests fork, and a child
// holding that descriptor makes exec fail with "text file busy".
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if os.Link(from, to) == nil {
		return
	}
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

func treesEqual(a, b map[string]entry) bool {
	return maps.Equal(a, b)
}

func showTree(tr map[string]entry) string {
	var keys []string
	for k := range tr {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s %o %q\n", k, tr[k].Mode, tr[k].Content)
	}
	return b.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// recordFixture prints the run's raw hook payloads and writes them as a
// scenario to testdata/hooks/AGENT/recorded.jsonl.
func recordFixture(t *testing.T, s agentSpec, r *run, recs []hookRecord, version string) {
	for _, rec := range recs {
		t.Logf("hook payload %s: %s", s.name, anonymise(rec.Event, r.dir))
	}
	note := fmt.Sprintf("Recorded from %s %s by the real-agent harness (CKPT_HARNESS_RECORD=1 scripts/real-agents.sh): %s.", s.name, version, scriptNote(s.steps))
	data := scenario(recs, r.dir, note)
	file := "recorded.jsonl"
	if s.variant != "" {
		file = "recorded-" + s.variant + ".jsonl"
	}
	path := filepath.Join("..", "testdata", "hooks", s.name, file)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", path)
}

func scriptNote(steps []step) string {
	var w []string
	for _, s := range steps {
		switch s.kind {
		case stepWrite:
			w = append(w, "write "+s.path)
		case stepEdit:
			w = append(w, "edit "+s.path)
		case stepPatch:
			w = append(w, "apply_patch adding new.txt and updating a.txt")
		case stepRead:
			w = append(w, "read "+s.path)
		case stepShell:
			w = append(w, "shell `"+s.command+"`")
		case stepDone:
			w = append(w, "finish")
		}
	}
	return strings.Join(w, ", ")
}
