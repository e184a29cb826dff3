package agent

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ckpt-dev/ckpt/agent/hooktest"
	"github.com/ckpt-dev/ckpt/store"
)

// inProcess runs hook calls through Hook, with only the call's environment.
func inProcess(t testing.TB, c hooktest.Call) hooktest.Result {
	var out bytes.Buffer
	err := Hook(c.Agent, bytes.NewReader(c.Stdin), &out, HookOptions{Getenv: func(k string) string { return c.Env[k] }})
	if err != nil {
		// Hook's errors are logged in the store; the scenario's
		// "logged" lines and the empty-log check judge them.
		t.Logf("hook %s: %v", c.Agent, err)
	}
	return hooktest.Result{Stdout: out.String()}
}

func TestReplayScenarios(t *testing.T) {
	for agentName, files := range hooktest.Scenarios(t, filepath.Join("..", "testdata", "hooks")) {
		if !Known(agentName) {
			t.Errorf("scenarios for unknown agent %q", agentName)
			continue
		}
		for _, f := range files {
			t.Run(agentName+"/"+filepath.Base(f), func(t *testing.T) {
				hooktest.Replay(t, f, inProcess)
			})
		}
	}
}

func TestPatchPaths(t *testing.T) {
	patch := "*** Begin Patch\r\n" +
		"*** Add File: docs/new file.md\r\n+hello\r\n+*** Delete File: body/line.txt\r\n" +
		"*** Delete File: gone.txt\n" +
		"*** Update File: src/a.go\n*** Move to: src/b.go\n@@ func a\n- a\n+ b\n" +
		"*** Update File: src/a.go\n" +
		"  *** Update File: indented/not/a/header\n" +
		"*** End Patch"
	got := patchPaths(patch)
	want := []string{"docs/new file.md", "gone.txt", "src/a.go", "src/b.go"}
	if !slices.Equal(got, want) {
		t.Fatalf("patchPaths = %q, want %q", got, want)
	}
	if p := patchPaths("no headers here\n+*** Add File: x\n"); len(p) != 0 {
		t.Fatalf("paths from body lines: %q", p)
	}
}

func TestParse(t *testing.T) {
	env := func(k string) string {
		return map[string]string{"CLAUDE_PROJECT_DIR": "/p", "GEMINI_PROJECT_DIR": "/g"}[k]
	}
	cases := []struct {
		name, agent, in string
		do              action
		paths           []string
		text, prompt    string
		project         string
		err             bool
	}{
		{"claude prompt", "claude", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt_id":"p","prompt":"hi"}`, startTurn, nil, "hi", "p", "/p", false},
		{"claude write", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/p/a"}}`, beforeWrite, []string{"/p/a"}, "", "", "/p", false},
		{"claude notebook", "claude", `{"hook_event_name":"PostToolUse","tool_name":"NotebookEdit","tool_input":{"notebook_path":"/p/n.ipynb"}}`, afterWrite, []string{"/p/n.ipynb"}, "", "", "/p", false},
		{"claude failure", "claude", `{"hook_event_name":"PostToolUseFailure","tool_name":"Write","tool_input":{"file_path":"/p/a"}}`, ignore, nil, "", "", "/p", false},
		{"claude bash", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf x"}}`, shellBefore, nil, "", "", "/p", false},
		{"claude write without path", "claude", `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{}}`, beforeWrite, nil, "", "", "/p", true},
		{"claude garbage", "claude", `{"hook_event_name":`, ignore, nil, "", "", "", true},
		{"gemini prompt", "gemini", `{"hook_event_name":"BeforeAgent","prompt":"do it"}`, startTurn, nil, "do it", "", "/g", false},
		{"gemini old param", "gemini", `{"hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"absolute_path":"/g/x"}}`, beforeWrite, []string{"/g/x"}, "", "", "/g", false},
		{"gemini failed", "gemini", `{"hook_event_name":"AfterTool","tool_name":"replace","tool_input":{"file_path":"x"},"tool_response":{"error":"boom"}}`, ignore, nil, "", "", "/g", false},
		{"gemini null error", "gemini", `{"hook_event_name":"AfterTool","tool_name":"replace","tool_input":{"file_path":"x"},"tool_response":{"error":null}}`, afterWrite, []string{"/g/x"}, "", "", "/g", false},
		{"codex prompt", "codex", `{"hook_event_name":"UserPromptSubmit","turn_id":"t9","prompt":"go"}`, startTurn, nil, "go", "t9", "", false},
		{"codex patch string", "codex", `{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":"*** Begin Patch\n*** Delete File: a\n*** End Patch"}`, beforeWrite, []string{"a"}, "", "", "", false},
		{"codex argv", "codex", `{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":["apply_patch","*** Begin Patch\n*** Add File: b\n+x\n*** End Patch"]}}`, beforeWrite, []string{"b"}, "", "", "", false},
		{"codex empty patch", "codex", `{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** End Patch"}}`, beforeWrite, nil, "", "", "", true},
		{"codex shell", "codex", `{"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":["rm","x"]}}`, ignore, nil, "", "", "", false},
		{"opencode message", "opencode", `{"event":"chat.message","directory":"/o","sessionID":"s","messageID":"m","text":"hey"}`, startTurn, nil, "hey", "m", "/o", false},
		{"opencode read", "opencode", `{"event":"tool.execute.before","directory":"/o","tool":"read","args":{"filePath":"x"}}`, ignore, nil, "", "", "/o", false},
		{"opencode multiedit", "opencode", `{"event":"tool.execute.after","directory":"/o","tool":"multiedit","args":{"filePath":"x"}}`, afterWrite, []string{"x"}, "", "", "/o", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, err := adapters[c.agent].parse([]byte(c.in), env)
			if (err != nil) != c.err {
				t.Fatalf("err = %v, want error %v", err, c.err)
			}
			if c.err {
				return
			}
			if ev.do != c.do || !slices.Equal(ev.paths, c.paths) || ev.text != c.text || ev.prompt != c.prompt || ev.project != c.project {
				t.Fatalf("got %+v", ev)
			}
		})
	}
}

func TestLabel(t *testing.T) {
	long := strings.Repeat("é", 200)
	for in, want := range map[string]string{
		"fix the bug\nin detail":   "fix the bug",
		"\n\n  second line first ": "second line first",
		"":                         "(empty prompt)",
		long:                       strings.Repeat("é", 119) + "…",
		"bad \xff byte":            "bad \uFFFD byte",
	} {
		got := Label(in)
		if got != want {
			t.Errorf("Label(%q) = %q, want %q", in, got, want)
		}
		if n := len([]rune(got)); n > maxLabel {
			t.Errorf("Label(%q) has %d characters", in, n)
		}
	}
}

// TestHookNeverInTheWay: bad input, unknown agents, a panic inside and an
// unusable root all end quietly, with Gemini still answered.
func TestHookNeverInTheWay(t *testing.T) {
	root := t.TempDir()
	getenv := func(k string) string { return map[string]string{"CKPT_ROOT": root}[k] }
	for _, in := range []string{"", "not json", `{"hook_event_name":"BeforeTool","tool_name":"write_file"}`, `[1,2]`} {
		var out bytes.Buffer
		_ = Hook("gemini", strings.NewReader(in), &out, HookOptions{Getenv: getenv})
		if out.String() != "{}\n" {
			t.Errorf("gemini reply to %q: %q", in, out.String())
		}
	}
	// Bad events create no store where there was none.
	if _, err := os.Stat(filepath.Join(root, ".osfoundry")); !os.IsNotExist(err) {
		t.Fatalf("a bad event created a store: %v", err)
	}
	var out bytes.Buffer
	if err := Hook("no-such-agent", strings.NewReader("{}"), &out, HookOptions{}); err == nil || out.Len() != 0 {
		t.Fatalf("unknown agent: %v, %q", err, out.String())
	}

	// A panic in an adapter is recovered and logged in the store.
	register(&adapter{name: "panicky", reply: "{}\n", parse: func([]byte, func(string) string) (event, error) {
		return event{do: startTurn}, nil
	}})
	defer delete(adapters, "panicky")
	adapters["panicky"].parse = func([]byte, func(string) string) (event, error) {
		var m map[string]int
		//lint:ignore SA5000 the panic is what this test is about
		m["x"] = 1 // nil map: panics
		return event{}, nil
	}
	if err := os.MkdirAll(filepath.Join(root, ".osfoundry", "checkpoints"), 0o700); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err := Hook("panicky", strings.NewReader("{}"), &out, HookOptions{Getenv: getenv})
	if err == nil || !strings.Contains(err.Error(), "internal error") || out.String() != "{}\n" {
		t.Fatalf("panic: err %v, out %q", err, out.String())
	}
	s, err := store.Open(root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lines, _ := s.Errors()
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "internal error") }) {
		t.Fatalf("panic not logged: %q", lines)
	}

	// A root that cannot hold a store: nothing to log to, still quiet.
	file := filepath.Join(t.TempDir(), "plain-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	in := `{"hook_event_name":"BeforeAgent","prompt":"x"}`
	if err := Hook("gemini", strings.NewReader(in), &out, HookOptions{Root: file}); err == nil || out.String() != "{}\n" {
		t.Fatalf("unusable root: err %v, out %q", err, out.String())
	}
}

// TestRewoundTurnContinues: when the user rewinds the session's turn while
// the agent goes on, the next write lands in the store's continuation turn
// and its seal follows it there.
func TestRewoundTurnContinues(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	call := func(in string) {
		t.Helper()
		in = strings.ReplaceAll(in, "ROOT", root)
		if err := Hook("claude", strings.NewReader(in), &bytes.Buffer{}, HookOptions{Root: root, Getenv: func(string) string { return "" }}); err != nil {
			t.Fatal(err)
		}
	}
	call(`{"hook_event_name":"UserPromptSubmit","session_id":"s","cwd":"ROOT","prompt":"edit a"}`)
	call(`{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"Write","tool_input":{"file_path":"ROOT/a.txt"}}`)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("b\n"), 0o644)
	call(`{"hook_event_name":"PostToolUse","session_id":"s","cwd":"ROOT","tool_name":"Write","tool_input":{"file_path":"ROOT/a.txt"}}`)

	s, err := store.Open(root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.PlanRewind("1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(p, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()

	call(`{"hook_event_name":"PreToolUse","session_id":"s","cwd":"ROOT","tool_name":"Write","tool_input":{"file_path":"ROOT/a.txt"}}`)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("c\n"), 0o644)
	call(`{"hook_event_name":"PostToolUse","session_id":"s","cwd":"ROOT","tool_name":"Write","tool_input":{"file_path":"ROOT/a.txt"}}`)

	s, err = store.Open(root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if lines, _ := s.Errors(); len(lines) > 0 {
		t.Fatalf("errors: %q", lines)
	}
	files, err := s.Files("1.2", true)
	if err != nil {
		t.Fatalf("continuation turn: %v", err)
	}
	if len(files) != 1 || files[0].Post == nil || files[0].Status != store.StatusModified {
		t.Fatalf("turn 1.2 files: %+v", files)
	}
	es, _ := s.Log(false)
	if es[0].ID != "1.2" || es[0].Source == nil || es[0].Source.Agent != "claude" || es[0].Source.Session != "s" {
		t.Fatalf("newest entry %+v", es[0])
	}
}

// TestParallelWritesOpenOneTurn: many pre-write calls at once with no turn
// open (ckpt installed mid-session) open exactly one turn between them.
func TestParallelWritesOpenOneTurn(t *testing.T) {
	root := t.TempDir()
	const n = 12
	var wg sync.WaitGroup
	for i := range n {
		p := filepath.Join(root, fmt.Sprintf("f%d.txt", i))
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		in := fmt.Sprintf(`{"hook_event_name":"BeforeTool","session_id":"g","cwd":%q,"tool_name":"write_file","tool_input":{"file_path":"f%d.txt"}}`, root, i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Hook("gemini", strings.NewReader(in), io.Discard, HookOptions{Getenv: func(string) string { return "" }}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s, err := store.Open(root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	es, err := s.Log(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Files != n {
		t.Fatalf("log: %+v", es)
	}
	if es[0].Source == nil || es[0].Source.Agent != "gemini" || es[0].Source.Session != "g" {
		t.Fatalf("source %+v", es[0].Source)
	}
}

func TestUnwrapRunQuotes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"Edit the files"`, "Edit the files"},
		{`""quoted by me""`, `"quoted by me"`},
		{`"word"`, `"word"`}, // no space: opencode run did not wrap it
		{`fix "the bug"`, `fix "the bug"`},
		{`"`, `"`},
		{"plain", "plain"},
	} {
		if got := unwrapRunQuotes(c.in); got != c.want {
			t.Errorf("unwrapRunQuotes(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestPatchPathsIndented: Codex trims whitespace around hunk headers, so
// indented headers count where a hunk may start; inside an update's body
// an indented line is a context line, as Codex reads it.
func TestPatchPathsIndented(t *testing.T) {
	cases := []struct {
		name, patch string
		want        []string
	}{
		{"indented update", "*** Begin Patch\n   *** Update File: a.go\n@@\n-a\n+b\n*** End Patch", []string{"a.go"}},
		{"indented markers all round", "  *** Begin Patch\n\t*** Add File: n.txt\n+x\n   *** Delete File: d.txt\n *** Update File: u.txt\n*** Move to: v.txt\n@@\n-a\n+b\n  *** End Patch  \n", []string{"n.txt", "d.txt", "u.txt", "v.txt"}},
		{"context line that looks like a header", "*** Begin Patch\n*** Update File: a.go\n@@\n  *** Add File: not-a-header\n-x\n+y\n*** End Patch", []string{"a.go"}},
		{"heredoc", "<<'EOF'\n*** Begin Patch\n  *** Delete File: d.txt\n*** End Patch\nEOF", []string{"d.txt"}},
		{"unframed, lenient", "  *** Update File: a.go\n@@\n-a\n+b\n", []string{"a.go"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := patchPaths(c.patch); !slices.Equal(got, c.want) {
				t.Errorf("patchPaths = %q, want %q", got, c.want)
			}
		})
	}
}

// TestGeminiReplaceTargets: a relative replace path resolves as Gemini
// CLI resolves it: under the project first, then the one file whose path
// ends the same way; ambiguity captures every candidate.
func TestGeminiReplaceTargets(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"top.txt", "src/pkg/util.go", "a/dup.txt", "b/dup.txt", "node_modules/x/util.go"} {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	cases := []struct {
		rel  string
		want []string
	}{
		{"top.txt", []string{"top.txt"}},
		{"pkg/util.go", []string{"src/pkg/util.go"}},
		{"util.go", []string{"src/pkg/util.go"}},
		{"dup.txt", []string{"dup.txt", "a/dup.txt", "b/dup.txt"}},
		{"nowhere.txt", []string{"nowhere.txt"}},
	}
	for _, c := range cases {
		got := geminiReplaceTargets(root, c.rel)
		var rel []string
		for _, g := range got {
			r, _ := filepath.Rel(root, g)
			rel = append(rel, filepath.ToSlash(r))
		}
		if !slices.Equal(rel, c.want) {
			t.Errorf("%s: got %q, want %q", c.rel, rel, c.want)
		}
	}
}
