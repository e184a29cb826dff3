package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/agent/hooktest"
)

// TestHookScenariosThroughBinary replays every recorded session through the
// built binary, one process per hook call as the agents run it, from the
// project folder with a clean environment.
func TestHookScenariosThroughBinary(t *testing.T) {
	bin := buildHookBinary(t)
	run := func(t testing.TB, c hooktest.Call) hooktest.Result {
		return runBinary(bin, c.Root, c.Stdin, hookEnv(c.Env), "hook", c.Agent)
	}
	for agentName, files := range hooktest.Scenarios(t, filepath.Join("..", "testdata", "hooks")) {
		for _, f := range files {
			t.Run(agentName+"/"+filepath.Base(f), func(t *testing.T) {
				hooktest.Replay(t, f, run)
			})
		}
	}
}

// TestHookNeverFails: usage errors and bad input still exit 0, print
// nothing on stderr, and answer Gemini with {}.
func TestHookNeverFails(t *testing.T) {
	bin := buildHookBinary(t)
	root := t.TempDir()
	env := hookEnv(map[string]string{"CKPT_ROOT": root})
	cases := []struct {
		args  []string
		stdin string
		out   string
	}{
		{[]string{"hook"}, "{}", ""},
		{[]string{"hook", "no-such-agent"}, "{}", ""},
		{[]string{"hook", "claude", "--bogus"}, "{}", ""},
		{[]string{"hook", "gemini", "extra"}, "{}", "{}\n"},
		{[]string{"hook", "gemini"}, "not json", "{}\n"},
		{[]string{"hook", "claude"}, "", ""},
		{[]string{"hook", "codex", "--root", filepath.Join(root, "missing", "dir")}, `{"hook_event_name":"UserPromptSubmit","prompt":"x"}`, ""},
		{[]string{"hook", "opencode"}, `{"event":"tool.execute.before","tool":"write","args":{"filePath":"/etc/passwd"}}`, ""},
	}
	for _, c := range cases {
		r := runBinary(bin, root, []byte(c.stdin), env, c.args...)
		if r.Code != 0 || r.Stderr != "" || r.Stdout != c.out {
			t.Errorf("ckpt %s < %q: exit %d, stdout %q, stderr %q", strings.Join(c.args, " "), c.stdin, r.Code, r.Stdout, r.Stderr)
		}
	}
}

const userClaudeSettings = `{
  "permissions": {
    "allow": ["Bash(go test:*)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "./scripts/guard.sh"
          }
        ]
      }
    ]
  }
}
`

// BenchmarkHookPreWrite measures one pre-write hook call as an agent makes
// it: a process started with the event on standard input, capturing a
// new 4 KiB file in the session's open turn. A new prompt (not timed)
// comes every 20 writes, so turns stay the size real ones are.
func BenchmarkHookPreWrite(b *testing.B) {
	bin := buildHookBinary(b)
	root := b.TempDir()
	env := hookEnv(map[string]string{"CLAUDE_PROJECT_DIR": root})
	prompt := fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":"bench","cwd":%q,"prompt":"bench"}`, root)
	content := bytes.Repeat([]byte("0123456789abcdef\n"), 241)
	events := make([][]byte, b.N)
	for i := range events {
		p := filepath.Join(root, "src", fmt.Sprintf("f%06d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			b.Fatal(err)
		}
		events[i] = []byte(fmt.Sprintf(`{"hook_event_name":"PreToolUse","session_id":"bench","cwd":%q,"tool_name":"Edit","tool_use_id":"t%d","tool_input":{"file_path":%q,"old_string":"0","new_string":"1"}}`, root, i, p))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%20 == 0 {
			b.StopTimer()
			if r := runBinary(bin, root, []byte(prompt), env, "hook", "claude"); r.Code != 0 {
				b.Fatal(r)
			}
			b.StartTimer()
		}
		if r := runBinary(bin, root, events[i], env, "hook", "claude"); r.Code != 0 || r.Stderr != "" {
			b.Fatal(r)
		}
	}
}

// BenchmarkHookIgnored measures a call ckpt has no use for (a shell tool
// under a broad matcher): decoded and dropped before the store is opened.
func BenchmarkHookIgnored(b *testing.B) {
	bin := buildHookBinary(b)
	root := b.TempDir()
	env := hookEnv(map[string]string{"CLAUDE_PROJECT_DIR": root})
	ev := []byte(`{"hook_event_name":"PreToolUse","session_id":"bench","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := runBinary(bin, root, ev, env, "hook", "claude"); r.Code != 0 {
			b.Fatal(r)
		}
	}
}

// pluginHarness loads ckpt's opencode plugin in Node with a stand-in for
// Bun's $ that runs the command with the piped body as standard input, then
// plays a session: a message, an edit whose after-event lacks args (the
// plugin remembers them by call id), a read it must not forward, and an
// apply_patch that moves a file.
const pluginHarness = `
import { execFileSync } from "node:child_process"
import { writeFileSync, rmSync, mkdirSync } from "node:fs"
const [plugin, dir] = process.argv.slice(2)
const mod = await import(plugin)
const calls = []
const $ = (strings, ...vals) => {
  const args = strings[1].replace("<", "").trim().split(/\s+/)
  const p = (async () => {
    const body = await vals[1].text()
    calls.push(JSON.parse(body).event)
    execFileSync(vals[0], args, { input: body, cwd: dir, stdio: ["pipe", "pipe", "pipe"] })
  })()
  p.quiet = () => p
  p.nothrow = () => p
  return p
}
const hooks = await mod.CkptPlugin({ $, directory: dir })
await hooks["chat.message"]({ sessionID: "ses_1", messageID: "msg_1" }, { message: { id: "msg_1" }, parts: [{ type: "text", text: "tidy the readme\nplease" }, { type: "text", text: "injected", synthetic: true }] })
await hooks["tool.execute.before"]({ tool: "edit", sessionID: "ses_1", callID: "c1" }, { args: { filePath: "README.md", oldString: "a", newString: "b" } })
writeFileSync(dir + "/README.md", "b\n")
await hooks["tool.execute.after"]({ tool: "edit", sessionID: "ses_1", callID: "c1" }, { title: "", output: "", metadata: {} })
await hooks["tool.execute.before"]({ tool: "read", sessionID: "ses_1", callID: "c2" }, { args: { filePath: "README.md" } })
const patch = "*** Begin Patch\n*** Update File: src/a.txt\n*** Move to: lib/a.txt\n@@\n-a\n+A\n*** End Patch"
await hooks["tool.execute.before"]({ tool: "apply_patch", sessionID: "ses_1", callID: "c3" }, { args: { patchText: patch } })
rmSync(dir + "/src/a.txt")
mkdirSync(dir + "/lib")
writeFileSync(dir + "/lib/a.txt", "A\n")
await hooks["tool.execute.after"]({ tool: "apply_patch", sessionID: "ses_1", callID: "c3", args: { patchText: patch } }, { title: "", output: "", metadata: {} })
console.log(JSON.stringify(calls))
`

// BenchmarkHookStartup runs `ckpt hook claude` on an event it ignores:
// the cost of starting the binary and reaching the hook, which every agent
// tool call pays. scripts or hyperfine compare it across builds.
func BenchmarkHookStartup(b *testing.B) {
	root := b.TempDir()
	event := []byte(`{"session_id":"s1","cwd":"` + root + `","hook_event_name":"Notification","message":"hi"}`)
	for b.Loop() {
		cmd := exec.Command(ckptBin, "hook", "claude")
		cmd.Stdin = bytes.NewReader(event)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			b.Fatalf("hook: %v %q", err, out)
		}
	}
}

// BenchmarkHookPreWriteAgents is BenchmarkHookPreWrite for each agent's
// own payloads, in one run, so their costs sit beside Claude Code's:
// the prompt event (not timed) every 20 writes, then one pre-write event
// per call as the agent sends it. Cursor has no pre-write event: its
// afterFileEdit sweeps the tree (here a tree of the files written so far).
func BenchmarkHookPreWriteAgents(b *testing.B) {
	bin := buildHookBinary(b)
	type shape struct{ agent, prompt, write string }
	// %[1]q is the project, %[2]q the file, %[3]d the call's number.
	shapes := []shape{
		{"claude", `{"hook_event_name":"UserPromptSubmit","session_id":"bench","cwd":%[1]q,"prompt":"bench"}`,
			`{"hook_event_name":"PreToolUse","session_id":"bench","cwd":%[1]q,"tool_name":"Edit","tool_use_id":"t%[3]d","tool_input":{"file_path":%[2]q,"old_string":"0","new_string":"1"}}`},
		{"pi", `{"event":"input","session":"bench","cwd":%[1]q,"text":"bench"}`,
			`{"event":"tool_call","session":"bench","cwd":%[1]q,"tool":"edit","callId":"c%[3]d","input":{"path":%[2]q}}`},
		{"copilot", `{"hook_event_name":"UserPromptSubmit","session_id":"bench","cwd":%[1]q,"prompt":"bench"}`,
			`{"hook_event_name":"PreToolUse","session_id":"bench","cwd":%[1]q,"tool_name":"Edit","tool_input":{"path":%[2]q,"old_str":"0","new_str":"1"}}`},
		{"cline", `{"hookName":"prompt_submit","taskId":"bench","workspaceRoots":[%[1]q],"userPromptSubmit":{"prompt":"bench"}}`,
			`{"hookName":"tool_call","taskId":"bench","workspaceRoots":[%[1]q],"tool_call":{"id":"c%[3]d","name":"editor","input":{"path":%[2]q,"old_text":"0","new_text":"1"}},"preToolUse":{"toolName":"editor","parameters":{"path":%[2]q}}}`},
		{"qwen", `{"hook_event_name":"UserPromptSubmit","session_id":"bench","prompt_id":"p%[3]d","cwd":%[1]q,"prompt":"bench"}`,
			`{"hook_event_name":"PreToolUse","session_id":"bench","prompt_id":"p","cwd":%[1]q,"tool_name":"edit","tool_input":{"file_path":%[2]q,"old_string":"0","new_string":"1"}}`},
		{"droid", `{"hook_event_name":"UserPromptSubmit","session_id":"bench","cwd":%[1]q,"prompt":"bench"}`,
			`{"hook_event_name":"PreToolUse","session_id":"bench","cwd":%[1]q,"tool_name":"Edit","tool_input":{"file_path":%[2]q,"old_str":"0","new_str":"1"}}`},
		{"windsurf", `{"agent_action_name":"pre_user_prompt","trajectory_id":"bench","tool_info":{"user_prompt":"bench","cwd":%[1]q}}`,
			`{"agent_action_name":"pre_write_code","trajectory_id":"bench","tool_info":{"file_path":%[2]q,"cwd":%[1]q,"edits":[]}}`},
		{"cursor", `{"hook_event_name":"beforeSubmitPrompt","conversation_id":"bench","workspace_roots":[%[1]q],"prompt":"bench"}`,
			`{"hook_event_name":"afterFileEdit","conversation_id":"bench","workspace_roots":[%[1]q],"file_path":%[2]q,"edits":[]}`},
	}
	content := bytes.Repeat([]byte("0123456789abcdef\n"), 241)
	for _, sh := range shapes {
		b.Run(sh.agent, func(b *testing.B) {
			root := b.TempDir()
			env := hookEnv(map[string]string{"CKPT_ROOT": root})
			events := make([][]byte, b.N)
			for i := range events {
				p := filepath.Join(root, "src", fmt.Sprintf("f%06d.go", i))
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, content, 0o644); err != nil {
					b.Fatal(err)
				}
				events[i] = []byte(fmt.Sprintf(sh.write, root, p, i))
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%20 == 0 {
					b.StopTimer()
					if r := runBinary(bin, root, []byte(fmt.Sprintf(sh.prompt, root, "", i)), env, "hook", sh.agent); r.Code != 0 {
						b.Fatal(r)
					}
					b.StartTimer()
				}
				if r := runBinary(bin, root, events[i], env, "hook", sh.agent); r.Code != 0 || r.Stderr != "" || r.Stdout != "" {
					b.Fatal(r)
				}
			}
		})
	}
}
