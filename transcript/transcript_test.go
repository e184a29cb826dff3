package transcript

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// callsOf lists calls as "name target state" for comparing.
func callsOf(cs []Call) []string {
	var out []string
	for _, c := range cs {
		st := string(c.State)
		if st == "" {
			st = "?"
		}
		out = append(out, c.Name+" | "+c.Target+" | "+st)
	}
	return out
}

// TestRecorded reads each agent's recorded transcript: the turn the
// harness's prompt started, its reply and its calls in order.
func TestRecorded(t *testing.T) {
	const harness = "Edit the files for the ckpt harness"
	const shellPrompt = "Write hello.txt, then run a shell command."
	const done = "Done: the files are edited."
	for _, tc := range []struct {
		agent  string
		file   string // "": AGENT.jsonl
		want   Want
		prompt string
		reply  string
		calls  []string
	}{
		{"claude", "", Want{PromptID: "9e13a053-4939-42f3-9acc-9bf454ba11ab"}, harness,
			"Done: new.txt is written, a.txt says BETA, and b.txt holds sea.\nThere is no check target.",
			[]string{
				"Write | /home/user/project/new.txt | ok",
				"Read | /home/user/project/a.txt | ok",
				"Edit | /home/user/project/a.txt | ok",
				"Bash | printf 'sea\\n' > b.txt | ok",
				"Bash | make check | failed",
			}},
		{"codex", "", Want{PromptID: "01a22cc0-f030-7032-8bd0-6880e84e1d4c"}, harness,
			"Done: new.txt is written, a.txt says BETA, and b.txt holds sea.",
			[]string{
				"apply_patch | new.txt, a.txt | ok",
				"exec_command | printf 'sea\\n' > b.txt | ok",
				"shell | cat missing.txt | failed",
			}},
		{"gemini", "", Want{Label: harness}, harness,
			"Done: new.txt is written, a.txt says BETA, and b.txt holds sea.",
			[]string{
				"write_file | /home/user/project/new.txt | ok",
				"replace | a.txt | ok",
				"run_shell_command | printf 'sea\\n' > b.txt | ok",
				"run_shell_command | false | failed",
			}},
		// Transcripts the real agents kept in the harness's runs.
		{"claude", "claude-real.jsonl", Want{PromptID: "895f9c52-c878-4c78-b0ef-72c8cd7e0140"}, harness, done,
			[]string{
				"Write | /home/user/project/new.txt | ok",
				"Read | /home/user/project/a.txt | ok",
				"Edit | /home/user/project/a.txt | ok",
				"Bash | printf 'sea\\n' > b.txt | ok",
			}},
		{"codex", "codex-real.jsonl", Want{PromptID: "01a231b9-02e5-74c1-8628-f6675296c07d"}, harness, done,
			[]string{
				"apply_patch | new.txt, a.txt | ok",
				"exec_command | printf 'sea\\n' > b.txt | ok",
			}},
		{"codex", "codex-real-code-mode.jsonl", Want{PromptID: "01a231b9-23f1-7ac3-8e29-78fef6673728"}, harness, done,
			[]string{
				`exec | const r = await tools.apply_patch("*** Begin Patch\n*** Add File: new.txt\n+made by the agent\n*** Update File: a.txt\n@@\n alpha\n-beta\n+BETA\n*** End Patch\n"); ⏎ text(JSON.stringify(r)); | ok`,
				"apply_patch | /home/user/project/a.txt, /home/user/project/new.txt | ok",
				`exec | const r = await tools.exec_command({cmd: "printf 'sea\\n' \u003e b.txt"}); ⏎ text(JSON.stringify(r)); | ok`,
				"exec_command | printf 'sea\\n' > b.txt | ok",
			}},
		{"gemini", "gemini-real.jsonl", Want{Label: harness}, harness, done,
			[]string{
				"write_file | /home/user/project/new.txt | ok",
				"replace | a.txt | ok",
				"run_shell_command | printf 'sea\\n' > b.txt | ok",
			}},
		{"qwen", "", Want{Label: shellPrompt}, shellPrompt,
			"Done: the file is written and the command ran.",
			[]string{
				"write_file | /home/user/project/hello.txt | ok",
				"run_shell_command | echo shell-line >> notes.txt && sed -i s/one/ONE/ old.txt | ok",
			}},
		{"copilot", "", Want{Label: shellPrompt}, shellPrompt,
			"Done: the file is written and the command ran.",
			[]string{
				"create | /home/user/project/hello.txt | ok",
				"bash | echo shell-line >> notes.txt && sed -i s/one/ONE/ old.txt | ok",
			}},
	} {
		t.Run(tc.agent+"/"+tc.file, func(t *testing.T) {
			if tc.file == "" {
				tc.file = tc.agent + ".jsonl"
			}
			c, err := Read(tc.agent, filepath.Join("testdata", tc.file), tc.want)
			if err != nil {
				t.Fatal(err)
			}
			if c.Prompt != tc.prompt {
				t.Errorf("prompt %q, want %q", c.Prompt, tc.prompt)
			}
			if c.Reply != tc.reply {
				t.Errorf("reply %q, want %q", c.Reply, tc.reply)
			}
			if got := strings.Join(callsOf(c.Calls), "\n"); got != strings.Join(tc.calls, "\n") {
				t.Errorf("calls:\n%s\nwant:\n%s", got, strings.Join(tc.calls, "\n"))
			}
			if c.Skipped != 0 {
				t.Errorf("%d lines skipped in a recorded transcript", c.Skipped)
			}
		})
	}
}

// TestPick finds a turn by label and time when the format has no prompt
// ids, and the earlier turn of a session when asked for it.
func TestPick(t *testing.T) {
	at := func(s string) time.Time { return parseTime(s) }
	c, err := Read("claude", "testdata/claude.jsonl", Want{Label: "What does a.txt hold?", At: at("2026-11-30T13:58:00Z")})
	if err != nil {
		t.Fatal(err)
	}
	if c.Reply != "Three lines: alpha, beta, gamma." || len(c.Calls) != 0 {
		t.Errorf("the question-only turn: %+v", c.Turn)
	}
	// No label match (a cut label of another prompt), no id: the nearest
	// prompt in time.
	c, err = Read("claude", "testdata/claude.jsonl", Want{Label: "something else", At: at("2026-11-30T13:59:30Z")})
	if err != nil || c.Prompt != "Edit the files for the ckpt harness" {
		t.Errorf("by time: %v %+v", err, c)
	}
	// Nothing near.
	_, err = Read("claude", "testdata/claude.jsonl", Want{Label: "something else", At: at("2026-12-30T13:59:30Z")})
	if !errors.Is(err, ErrNoTurn) {
		t.Errorf("far away: %v, want ErrNoTurn", err)
	}
	// A long label cut with an ellipsis still matches its prompt.
	if !labelMatches("Edit the files for the…", "Edit  the files for the ckpt harness\nand more") {
		t.Error("a cut label does not match its prompt")
	}
}

// TestMissingAndOdd: a missing file, an unknown agent and a FIFO are
// errors naming the file; none blocks or panics.
func TestMissingAndOdd(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read("claude", filepath.Join(dir, "none.jsonl"), Want{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := Read("aider", "testdata/claude.jsonl", Want{}); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("unknown agent: %v", err)
	}
	if _, err := Read("claude", dir, Want{}); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("a folder: %v", err)
	}
}

// TestHostile: damaged lines are skipped and counted, a line over MaxLine
// is skipped unread, and escape sequences come back raw for the caller to
// escape.
func TestHostile(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"type":"user","timestamp":"2026-11-30T13:59:31Z","message":{"content":"clear \u001b[2J\u001b]0;pwned\u0007 me"}}` + "\n")
	b.WriteString("{not json\n")
	b.WriteString(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"x","name":"Bash","input":{"command":"`)
	b.Write(bytes.Repeat([]byte("A"), MaxLine+10))
	b.WriteString(`"}}]}}` + "\n")
	b.WriteString(`{"type":"assistant","message":{"content":[{"type":"text","text":"ok"}]}}` + "\n")
	b.WriteString(`{"type":"assistant","message":{"content":7}}` + "\n")
	b.WriteString(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"nobody"}]}}`)
	turns, skipped, err := ReadFrom("claude", &b)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 1 || turns[0].Reply != "ok" || len(turns[0].Calls) != 0 {
		t.Fatalf("turns %+v", turns)
	}
	if !strings.Contains(turns[0].Prompt, "\x1b[2J") {
		t.Error("the prompt should come back raw")
	}
	if skipped != 3 {
		t.Errorf("skipped %d lines, want 3 (damaged, too long, wrong shape)", skipped)
	}
}

// TestHugeFile reads only the tail of a transcript over MaxRead.
func TestHugeFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a file over 64 MiB")
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	filler := `{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("x", 1<<20) + `"}]}}` + "\n"
	f.WriteString(`{"type":"user","message":{"content":"first"}}` + "\n")
	for range MaxRead/len(filler) + 2 {
		f.WriteString(filler)
	}
	f.WriteString(`{"type":"user","message":{"content":"last"}}` + "\n")
	f.WriteString(`{"type":"assistant","message":{"content":[{"type":"text","text":"the end"}]}}` + "\n")
	f.Close()
	c, err := Read("claude", path, Want{Label: "last"})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Truncated || c.Reply != "the end" {
		t.Errorf("truncated %v reply %q", c.Truncated, c.Reply)
	}
	if _, err := Read("claude", path, Want{Label: "first"}); !errors.Is(err, ErrNoTurn) {
		t.Errorf("the head past MaxRead should not be read: %v", err)
	}
}

// FuzzRead: no transcript, of any agent, makes Read panic or keep more
// than its limits.
func FuzzRead(f *testing.F) {
	for _, a := range []string{"claude", "codex", "gemini", "qwen", "copilot"} {
		data, err := os.ReadFile(filepath.Join("testdata", a+".jsonl"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(a, data)
	}
	f.Add("gemini", []byte("{\n \"messages\": [{\"type\":\"user\",\"content\":\"hi\"}]\n}"))
	f.Add("claude", []byte("\x1b[2J\n\x00\xff\n{}\n[]\nnull\n"))
	f.Fuzz(func(t *testing.T, agent string, data []byte) {
		if !Readable(agent) {
			return
		}
		turns, _, _ := ReadFrom(agent, bytes.NewReader(data))
		for _, tr := range turns {
			if len(tr.Prompt) > MaxText+64 || len(tr.Reply) > MaxText+64 || len(tr.Calls) > MaxCalls {
				t.Fatalf("over the limits: %d %d %d", len(tr.Prompt), len(tr.Reply), len(tr.Calls))
			}
		}
	})
}

// TestGeminiWhole reads Gemini CLI's older recording, one JSON object.
func TestGeminiWhole(t *testing.T) {
	doc := "{\n  \"sessionId\": \"s\",\n  \"messages\": [\n" +
		`{"id":"1","type":"user","content":"fix it","timestamp":"2026-11-30T13:17:02Z"},` +
		`{"id":"2","type":"gemini","content":"fixed","toolCalls":[{"name":"write_file","args":{"file_path":"a.go"},"status":"success"}]}` +
		"]\n}\n"
	turns, skipped, err := ReadFrom("gemini", strings.NewReader(doc))
	if err != nil || skipped != 0 || len(turns) != 1 {
		t.Fatalf("%v %d %+v", err, skipped, turns)
	}
	if got := callsOf(turns[0].Calls); turns[0].Reply != "fixed" || len(got) != 1 || got[0] != "write_file | a.go | ok" {
		t.Errorf("%+v", turns[0])
	}
}
