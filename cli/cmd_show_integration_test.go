package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

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

// TestShowAgentOfRewoundTurn: a rewound turn's files are back as before
// it; show names the operation, and --agent (show and diff) gives what the
// agent did.
func TestShowAgentOfRewoundTurn(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n", "gone.txt": "gone 0\n"})
	p.turn(t, "1", "work", []string{"a.txt", "new.txt", "gone.txt"}, func() {
		writeTexts(t, p.root, map[string]string{"a.txt": "a 1\n", "new.txt": "new 1\n"})
		removePath(t, p.root, "gone.txt")
	})
	ckptOK(t, p.root, "rewind", "1", "--yes")
	r := ckptOK(t, p.root, "show", "1")
	if !strings.Contains(r.Stdout, "rewound by op-") || !strings.Contains(r.Stdout, "--agent") {
		t.Fatalf("show of a rewound turn does not say so\n%s", r)
	}
	r = ckptOK(t, p.root, "show", "1", "--agent")
	for _, want := range []string{"M  modified     a.txt", "A  created      new.txt", "D  deleted      gone.txt"} {
		if !strings.Contains(r.Stdout, want) {
			t.Fatalf("show --agent lacks %q\n%s", want, r)
		}
	}
	r = ckptOK(t, p.root, "show", "1", "--agent", "--json")
	if !strings.Contains(strings.Join(strings.Fields(r.Stdout), " "), `"path": "new.txt", "pre": "absent", "status": "created"`) {
		t.Fatalf("show --agent --json\n%s", r)
	}
	r = ckptOK(t, p.root, "diff", "1", "--agent", "--color", "never")
	for _, want := range []string{"-a 0", "+a 1", "+new 1", "-gone 0", "+++ b/a.txt\t(as turn 1 left it)"} {
		if !strings.Contains(r.Stdout, want) {
			t.Fatalf("diff --agent lacks %q\n%s", want, r)
		}
	}
	r = ckptOK(t, p.root, "diff", "1", "--agent", "--color", "never", filepath.Join(p.root, "a.txt"))
	if strings.Contains(r.Stdout, "new 1") || !strings.Contains(r.Stdout, "+a 1") {
		t.Fatalf("diff --agent PATH\n%s", r)
	}
	r = ckptOK(t, p.root, "diff", "1", "--color", "never")
	if strings.TrimSpace(r.Stdout) != "" || !strings.Contains(r.Stderr, "--agent") {
		t.Fatalf("diff of a rewound turn against the disk\n%s", r)
	}
}

// A turn rewound, its rewind undone, redone and undone again is active:
// show and diff say nothing of the redo, which the undo took back.
func TestShowOfATurnWhoseRedoWasUndone(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n"})
	p.turn(t, "1", "work", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "a 1\n") })
	for _, op := range []string{"rewind 1", "undo", "redo", "undo"} {
		ckptOK(t, p.root, append(strings.Fields(op), "--yes")...)
	}
	if r := ckptOK(t, p.root, "show", "1"); strings.Contains(r.Stdout, "rewound") {
		t.Fatalf("show of an active turn says it was rewound\n%s", r)
	}
	if r := ckptOK(t, p.root, "diff", "1", "--color", "never"); !strings.Contains(r.Stdout, "+a 1") {
		t.Fatalf("diff of an active turn against the disk\n%s", r)
	}
}

// A change of mode alone (chmod +x) is a change: show marks the file
// modified and says "mode 644 → 755", and diff says the same.
func TestShowModeOnlyChange(t *testing.T) {
	p := newTestProject(t, map[string]string{"run.sh": "#!/bin/sh\n"})
	os.Chmod(filepath.Join(p.root, "run.sh"), 0o644)
	ckptOK(t, p.root, "exec", "--turn", "0", "--", "true")
	ckptOK(t, p.root, "exec", "--turn", "1", "--", "chmod", "755", "run.sh")
	if got := ckptShow(t, p.root, "1").statuses()["run.sh"]; got != "modified" {
		t.Errorf("show --json: run.sh %q, want modified", got)
	}
	for _, args := range [][]string{{"show", "1"}, {"show", "1", "--agent"}, {"diff", "1"}} {
		r := ckpt(t, p.root, args...)
		if !strings.Contains(r.Stdout, "mode 644 → 755") {
			t.Errorf("ckpt %v: %q, want it to say mode 644 → 755", args, r.Stdout)
		}
	}
}

// A file an agent's hook captured and has not sealed is being written:
// show marks it ~ and says "writing", in text and in JSON, until the seal.
func TestShowMarksAFileBeingWritten(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n"})
	ckptOK(t, p.root, "capture", "--turn", "1", "--label", "mid-write", "a.txt")
	writeText(t, p.root, "a.txt", "a 1, half written\n")
	out := ckptOK(t, p.root, "show", "1").Stdout
	if !strings.Contains(out, "~  writing      a.txt") {
		t.Errorf("show 1 before the seal does not mark a.txt ~ writing:\n%s", out)
	}
	var doc struct {
		Files []struct {
			Path    string `json:"path"`
			Status  string `json:"status"`
			Writing bool   `json:"writing"`
		} `json:"files"`
	}
	decodeJSON(t, ckptOK(t, p.root, "show", "1", "--json"), &doc)
	if len(doc.Files) != 1 || !doc.Files[0].Writing || doc.Files[0].Status != "modified" {
		t.Errorf("show 1 --json before the seal: %+v, want a.txt modified and writing", doc.Files)
	}
	ckptOK(t, p.root, "seal", "--turn", "1", "a.txt")
	out = ckptOK(t, p.root, "show", "1").Stdout
	if strings.Contains(out, "writing") || !strings.Contains(out, "M  modified     a.txt") {
		t.Errorf("show 1 after the seal:\n%s", out)
	}
}

// TestShowConversationFromEvents: pi keeps no transcript ckpt reads; its
// extension's prompt and end events (from a real run) bring the
// conversation, which show --conversation prints; a damaged conversation
// file is an error naming it, and the turn's files still show.
func TestShowConversationFromEvents(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "alpha\n"})
	data, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", "pi", "recorded.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rootJSON, _ := json.Marshal(p.root)
	for _, l := range strings.Split(strings.ReplaceAll(string(data), "{{ROOT}}", strings.Trim(string(rootJSON), `"`)), "\n") {
		var line struct {
			Event json.RawMessage `json:"event"`
		}
		if json.Unmarshal([]byte(l), &line) != nil || line.Event == nil {
			continue
		}
		if ev := string(line.Event); strings.Contains(ev, `"event":"input"`) || strings.Contains(ev, `"event":"agent_end"`) {
			ckptDo(t, ckptCall{Root: p.root, Stdin: line.Event}, "hook", "pi")
		}
	}
	out := ckptOK(t, p.root, "show", "1", "--conversation").Stdout
	for _, want := range []string{"prompt\n  Edit the files for the ckpt harness", "reply\n  Done: the files are edited.",
		"tool calls (4)", "ok     write  new.txt", "ok     edit   a.txt", "ok     bash   printf 'sea\\n' > b.txt && rm c.txt", "from pi's events, kept in .osfoundry/checkpoints/conversations/1.json"} {
		if !strings.Contains(out, want) {
			t.Errorf("show --conversation lacks %q:\n%s", want, out)
		}
	}
	file := filepath.Join(storeFolder(p.root), "conversations", "1.json")
	if err := os.WriteFile(file, []byte(`{"v":1,"prompt":`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := ckptCode(t, p.root, exitError, "show", "1", "--conversation")
	if !strings.Contains(r.Stderr, file) || !strings.Contains(r.Stderr, "damaged") {
		t.Errorf("a damaged conversation file: %s", r)
	}
	ckptOK(t, p.root, "show", "1")
	os.Remove(file)
	r = ckptCode(t, p.root, exitError, "show", "1", "--conversation")
	if !strings.Contains(r.Stderr, "pi's events brought no conversation") {
		t.Errorf("no conversation file: %s", r)
	}
}

// TestShowAgentGolden: show and show --agent of a rewound turn, word for
// word (ages made fixed), in testdata/ (`go test ./cli -run
// TestShowAgentGolden -update` writes them).
func TestShowAgentGolden(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n", "gone.txt": "gone 0\n"})
	p.turn(t, "1", "work", []string{"a.txt", "new.txt", "gone.txt"}, func() {
		writeTexts(t, p.root, map[string]string{"a.txt": "a 1\n", "new.txt": "new 1\n"})
		removePath(t, p.root, "gone.txt")
	})
	ckptOK(t, p.root, "rewind", "1", "--yes")
	age := regexp.MustCompile(`\b\d+[smhd] ago\b`)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"show_rewound", []string{"show", "1"}},
		{"show_rewound_agent", []string{"show", "1", "--agent"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := age.ReplaceAllString(ckptOK(t, p.root, c.args...).Stdout, "AGE ago")
			golden.RequireEqual(t, out)
		})
	}
}

// TestShowPurgedPath: a purged path's line says so once, its reason
// (which has parentheses of its own) not wrapped in another pair.
func TestShowPurgedPath(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n", ".env": "KEY=secret value\n"})
	p.turn(t, "1", "work", []string{"a.txt", ".env"}, func() {
		writeTexts(t, p.root, map[string]string{"a.txt": "a 1\n", ".env": "KEY=another secret\n"})
	})
	ckptOK(t, p.root, "purge", ".env", "--yes")
	out := ckptOK(t, p.root, "show", "1").Stdout
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, ".env") {
			line = l
		}
	}
	if !strings.Contains(line, "purged") || !strings.Contains(line, "(ckpt purge)") {
		t.Errorf("show 1 does not mark .env purged:\n%s", out)
	}
	if strings.Contains(line, "((") || strings.Contains(line, "))") {
		t.Errorf("show 1 doubles the parentheses of .env's reason: %q", line)
	}
}

// A path that changed kind (a folder became a file, a file a folder, a
// link a folder, a folder a link) is marked T and says which kinds, in
// the style of a mode change, with --agent too, and its JSON adds
// "became" beside "pre"; a file whose bytes alone changed adds nothing.
// Rewound, the folder is back: no T, and --agent still says it.
func TestShowKindChange(t *testing.T) {
	p := newTestProject(t, map[string]string{"d/a.txt": "a\n", "f": "f\n", "l.txt": "l\n", "m.txt": "m\n"})
	if err := os.Symlink("l.txt", filepath.Join(p.root, "lnk")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(p.root, "lnk2"), 0o755); err != nil {
		t.Fatal(err)
	}
	ckptOK(t, p.root, "exec", "--turn", "0", "--", "true")
	ckptOK(t, p.root, "exec", "--turn", "1", "--", "sh", "-c",
		"rm -r d && echo file > d; rm f && mkdir f && echo in > f/x; rm lnk && mkdir lnk; rmdir lnk2 && ln -s l.txt lnk2; echo m2 > m.txt")
	want := []string{"T  modified     d  (folder → file)", "T  modified     f  (file → folder)",
		"T  modified     lnk  (link → folder)", "T  modified     lnk2  (folder → link)", "M  modified     m.txt\n"}
	for _, args := range [][]string{{"show", "1"}, {"show", "1", "--agent"}} {
		r := ckptOK(t, p.root, args...)
		for _, w := range want {
			if !strings.Contains(r.Stdout, w) {
				t.Errorf("ckpt %v lacks %q\n%s", args, w, r.Stdout)
			}
		}
	}
	became := map[string]string{}
	for _, f := range ckptShow(t, p.root, "1").Files {
		became[f.Path] = f.Became
	}
	for path, kind := range map[string]string{"d": "content", "f": "dir", "lnk": "dir", "lnk2": "symlink", "m.txt": "", "f/x": "", "d/a.txt": ""} {
		if became[path] != kind {
			t.Errorf("show --json: %s became %q, want %q", path, became[path], kind)
		}
	}

	q := newTestProject(t, map[string]string{"d/a.txt": "a\n"})
	ckptOK(t, q.root, "exec", "--turn", "0", "--", "true")
	ckptOK(t, q.root, "exec", "--turn", "1", "--", "sh", "-c", "rm -r d && echo file > d")
	ckptOK(t, q.root, "rewind", "1", "--yes")
	if r := ckptOK(t, q.root, "show", "1"); strings.Contains(r.Stdout, "T  ") || strings.Contains(r.Stdout, "→") {
		t.Errorf("show of the rewound turn still says a kind changed\n%s", r.Stdout)
	}
	if r := ckptOK(t, q.root, "show", "1", "--agent"); !strings.Contains(r.Stdout, want[0]) {
		t.Errorf("show --agent of the rewound turn lacks %q\n%s", want[0], r.Stdout)
	}
}
