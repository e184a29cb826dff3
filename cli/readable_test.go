package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogCountAndPaths: -n keeps the newest rows; paths after -- keep the
// turns that touched them, a folder standing for what is under it.
func TestLogCountAndPaths(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a\n", "src/b.txt": "b\n"})
	p.turn(t, "1", "first", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "A\n") })
	p.turn(t, "2", "second", []string{"src/b.txt"}, func() { writeText(t, p.root, "src/b.txt", "B\n") })
	p.turn(t, "3", "third", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "AA\n") })
	rows := func(r ckptRun) []string {
		var ids []string
		for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			ids = append(ids, strings.Fields(l)[0])
		}
		return ids
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"log", "-n", "2"}, "3 2"},
		{[]string{"log", "--max-count=1"}, "3"},
		{[]string{"log", "--", "a.txt"}, "3 1"},
		{[]string{"log", "--", "src"}, "2"},
		{[]string{"log", "-n", "1", "--", "a.txt"}, "3"},
	} {
		if got := strings.Join(rows(ckptOK(t, p.root, c.args...)), " "); got != c.want {
			t.Errorf("%v: rows %q, want %q", c.args, got, c.want)
		}
	}
	var js []logJSON
	decodeJSON(t, ckptOK(t, p.root, "log", "--json", "-n", "1", "--", "src/b.txt"), &js)
	if len(js) != 1 || js[0].Turn != "2" {
		t.Errorf("log --json -n 1 -- src/b.txt: %+v", js)
	}
	if r := ckptOK(t, p.root, "log", "--", "nothing.txt"); !strings.Contains(r.Stdout, "no turn touched nothing.txt") {
		t.Errorf("no match: %s", r)
	}
	ckptCode(t, p.root, exitUsage, "log", "-n", "-1")
}

// TestShowHeader: show names the turn, its state and its label once at
// the top, and a shell command once above the files it changed.
func TestShowHeader(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
	p.turn(t, "1", "restyle", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "A\n") })
	ckptOK(t, p.root, "exec", "--turn", "1", "--", "sh", "-c", "echo B > b.txt; echo C > c.txt")
	out := ckptOK(t, p.root, "show", "1").Stdout
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "turn 1  active") || strings.TrimSpace(lines[1]) != "restyle" {
		t.Errorf("header:\n%s", out)
	}
	if n := strings.Count(out, "$ sh -c"); n != 1 {
		t.Errorf("the command is shown %d times, want once:\n%s", n, out)
	}
	cmdAt := strings.Index(out, "$ sh -c")
	for _, f := range []string{"b.txt", "c.txt"} {
		if i := strings.Index(out, "  M  modified     "+f); i < cmdAt {
			t.Errorf("%s is not listed under its command:\n%s", f, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour into a pipe:\n%q", out)
	}
}

// TestShowConversation: a turn a hook recorded with a transcript path
// shows the prompt, the reply and the calls from it; a turn with none,
// or a transcript gone, is an error naming why, and the turn is intact.
func TestShowConversation(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "alpha\nbeta\ngamma\n"})
	tr := filepath.Join(t.TempDir(), "session.jsonl")
	data, err := os.ReadFile(filepath.Join("..", "transcript", "testdata", "claude.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr, []byte(strings.ReplaceAll(string(data), "/home/user/project", p.root)), 0o600); err != nil {
		t.Fatal(err)
	}
	ev := map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt_id": "9e13a053-4939-42f3-9acc-9bf454ba11ab",
		"transcript_path": tr, "cwd": p.root, "prompt": "Edit the files for the ckpt harness"}
	js, _ := json.Marshal(ev)
	ckptDo(t, ckptCall{Root: p.root, Stdin: js}, "hook", "claude")
	out := ckptOK(t, p.root, "show", "1", "--conversation").Stdout
	for _, want := range []string{"prompt\n  Edit the files for the ckpt harness", "reply\n  Done: new.txt is written",
		"tool calls (5)", "ok     Write  new.txt", "failed Bash   make check", "from " + tr} {
		if !strings.Contains(out, want) {
			t.Errorf("show --conversation lacks %q:\n%s", want, out)
		}
	}
	var doc conversationJSON
	decodeJSON(t, ckptOK(t, p.root, "show", "1", "--conversation", "--json"), &doc)
	if doc.Prompt != "Edit the files for the ckpt harness" || len(doc.Calls) != 5 || doc.Calls[4].State != "failed" {
		t.Errorf("--json: %+v", doc)
	}
	var log []logJSON
	decodeJSON(t, ckptOK(t, p.root, "log", "--json"), &log)
	if log[0].Source == nil || log[0].Source.Transcript != tr {
		t.Errorf("the turn does not keep its transcript: %+v", log[0].Source)
	}
	os.Remove(tr)
	r := ckptCode(t, p.root, exitError, "show", "1", "--conversation")
	if !strings.Contains(r.Stderr, tr) {
		t.Errorf("a missing transcript: %s", r)
	}
	ckptOK(t, p.root, "show", "1")
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
