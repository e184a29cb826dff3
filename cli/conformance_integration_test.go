package cli

// CONTRACT.md's items that no other e2e test drives through the binary:
// revert --session, diff --agent, purge, verify --json's pack counts and
// prune's argument checks.

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// claudeSession plays Claude Code's hooks for one prompt of session that
// runs cmd in its shell tool, as claudeEvents does for session s1.
func claudeSession(t *testing.T, root, session, prompt, cmd string) {
	t.Helper()
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	send := func(js string) {
		t.Helper()
		r := ckptDo(t, ckptCall{Root: root, Stdin: []byte(js), Env: []string{"CLAUDE_PROJECT_DIR=" + root}}, "hook", "claude")
		if r.Code != 0 || r.Stderr != "" {
			t.Fatalf("hook %s\n%s", js, r)
		}
	}
	head := fmt.Sprintf(`"session_id":%s,"cwd":%s`, q(session), q(root))
	send(fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit",%s,"prompt":%s}`, head, q(prompt)))
	tool := fmt.Sprintf(`%s,"tool_name":"Bash","tool_use_id":%s,"tool_input":{"command":%s}`, head, q(prompt), q(cmd))
	send(`{"hook_event_name":"PreToolUse",` + tool + `}`)
	sh := exec.Command("sh", "-c", cmd)
	sh.Dir = root
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	send(`{"hook_event_name":"PostToolUse",` + tool + `,"tool_response":{}}`)
	send(fmt.Sprintf(`{"hook_event_name":"Stop",%s}`, head))
}

// revert --session S takes out every active turn of session S, newest
// first, keeping another session's change between them; the log keeps
// each turn's session, the turns show reverted, and undo gives it back.
func TestRevertSession(t *testing.T) {
	root := t.TempDir()
	writeTexts(t, root, map[string]string{"f.txt": lines20(nil), "b.txt": "b 0\n"})
	claudeSession(t, root, "s1", "line one", `sed -i.bak 's/^line 1$/one by s1/' f.txt && rm f.txt.bak`)
	claudeSession(t, root, "s2", "line ten", `sed -i.bak 's/^line 10$/ten by s2/' f.txt && rm f.txt.bak`)
	claudeSession(t, root, "s1", "b", `echo 'b by s1' > b.txt`)
	before := snapshotDir(t, root)

	sessions := map[string]string{}
	for _, e := range ckptLog(t, root) {
		if e.Source == nil || e.Source.Agent != "claude" {
			t.Fatalf("turn %s: source %+v, want claude's", e.Turn, e.Source)
		}
		sessions[e.Turn] = e.Source.Session
	}
	if fmt.Sprint(sessions) != "map[1:s1 2:s2 3:s1]" {
		t.Fatalf("log --json sessions %v", sessions)
	}

	dry := ckptCode(t, root, exitPlanShown, "revert", "--session", "s1", "--dry-run")
	wantSubstrings(t, "revert --session s1 --dry-run", dry.Stdout, "session s1", "turns 3, 1", "b.txt", "f.txt", "merged")
	requireSnapshot(t, root, before, "after revert --session --dry-run")

	var o revertDoc
	decodeJSON(t, ckptCode(t, root, 0, "revert", "--session", "s1", "--yes", "--json"), &o)
	if got := readText(t, root, "f.txt"); got != lines20(map[int]string{10: "ten by s2"}) {
		t.Errorf("f.txt after revert --session s1:\n%s", got)
	}
	if got := readText(t, root, "b.txt"); got != "b 0\n" {
		t.Errorf("b.txt after revert --session s1: %q", got)
	}
	if !slices.Equal(o.Merged, []string{"f.txt"}) || len(o.Conflicts) != 0 {
		t.Errorf("revert --json: merged %v conflicts %+v", o.Merged, o.Conflicts)
	}
	es := ckptLog(t, root)
	for turn, want := range map[string]string{"1": "reverted", "2": "active", "3": "reverted"} {
		if got := findEntry(t, es, turn).State; got != want {
			t.Errorf("turn %s is %s after revert --session s1, want %s", turn, got, want)
		}
	}
	if e := findEntry(t, es, o.Op); e.Kind != "revert" || !sameSet(e.Turns, []string{"1", "3"}) {
		t.Errorf("the revert's log row: %+v", e)
	}
	ckptOK(t, root, "undo", "--yes")
	requireSnapshot(t, root, before, "after undoing revert --session")

	// A session with no active turn, and a turn with a session, are
	// mistakes that change nothing.
	r := ckptCode(t, root, exitError, "revert", "--session", "nobody", "--yes")
	wantSubstrings(t, "revert --session nobody", r.Stderr, "nobody")
	ckptCode(t, root, exitUsage, "revert", "1", "--session", "s1", "--yes")
	requireSnapshot(t, root, before, "after mistaken reverts")
}

// diff --agent is the agent's own change, pre-image → what it left, also
// after a hand edit and for a rewound turn; plain diff is pre-image → now.
func TestDiffAgent(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n", "b.txt": "b 0\n"})
	p.turn(t, "1", "one", []string{"a.txt", "b.txt"}, func() {
		writeTexts(t, p.root, map[string]string{"a.txt": "a by agent\n", "b.txt": "b by agent\n"})
	})
	writeText(t, p.root, "a.txt", "a by hand\n")

	agent := ckptOK(t, p.root, "diff", "1", "--agent").Stdout
	wantSubstrings(t, "diff 1 --agent", agent, "-a 0", "+a by agent", "-b 0", "+b by agent")
	if strings.Contains(agent, "by hand") {
		t.Errorf("diff --agent shows the hand edit:\n%s", agent)
	}
	now := ckptOK(t, p.root, "diff", "1", "a.txt").Stdout
	wantSubstrings(t, "diff 1 a.txt", now, "-a 0", "+a by hand")
	if strings.Contains(now, "b.txt") {
		t.Errorf("diff 1 a.txt shows b.txt:\n%s", now)
	}
	one := ckptOK(t, p.root, "--agent", "diff", "1", "b.txt").Stdout
	if strings.Contains(one, "a.txt") || !strings.Contains(one, "+b by agent") {
		t.Errorf("diff --agent 1 b.txt:\n%s", one)
	}

	ckptOK(t, p.root, "rewind", "1", "--yes")
	if got := ckptOK(t, p.root, "diff", "1", "--agent").Stdout; got != agent {
		t.Errorf("diff --agent of the rewound turn:\n%s\nwant as before the rewind:\n%s", got, agent)
	}
}

// purge PATH removes every kept copy of PATH: without --yes it says what
// it would change and exits 4; with it the bytes are gone from the store,
// show marks the path purged, and a rewind reports it not restored (exit 3)
// while restoring the rest.
func TestPurgeThroughBinary(t *testing.T) {
	const secret = "TOKEN=correct-horse-battery"
	p := newTestProject(t, map[string]string{".env": secret + "\n", "a.txt": "a 0\n"})
	p.turn(t, "1", "one", []string{".env", "a.txt"}, func() {
		writeTexts(t, p.root, map[string]string{".env": "TOKEN=rotated-value\n", "a.txt": "a 1\n"})
	})
	if storeHolds(t, p.root, secret) == "" {
		t.Fatalf("the store never held the secret")
	}
	before := snapshotDir(t, p.root)
	r := ckptCode(t, p.root, exitPlanShown, "purge", ".env")
	wantSubstrings(t, "purge .env", r.Stdout, ".env", "--yes")
	requireSnapshot(t, p.root, before, "after purge without --yes")
	if storeHolds(t, p.root, secret) == "" {
		t.Fatalf("purge without --yes removed the secret")
	}

	ckptOK(t, p.root, "purge", ".env", "--yes")
	if f := storeHolds(t, p.root, secret); f != "" {
		t.Errorf("the secret's bytes are still in %s after purge --yes", f)
	}
	st := ckptShow(t, p.root, "1").statuses()
	if st[".env"] != "purged" || st["a.txt"] != "modified" {
		t.Errorf("show after purge: %v", st)
	}
	o := ckptOp(t, p.root, exitPartial, "rewind", "1", "--yes")
	if !slices.Equal(o.failedPaths(), []string{".env"}) || !strings.Contains(o.Failed[0].Reason, "purged") {
		t.Errorf("rewind after purge: failed %+v", o.Failed)
	}
	if got := readText(t, p.root, "a.txt"); got != "a 0\n" {
		t.Errorf("a.txt after the rewind: %q", got)
	}
	if got := readText(t, p.root, ".env"); got != "TOKEN=rotated-value\n" {
		t.Errorf(".env after the rewind: %q, want it left as it is", got)
	}
	ckptOK(t, p.root, "verify")
	ckptCode(t, p.root, exitUsage, "purge")
}

// verifyDoc is `verify --json`.
type verifyDoc struct {
	OK       bool `json:"ok"`
	Findings []struct {
		File   string `json:"file"`
		Reason string `json:"reason"`
	} `json:"findings"`
	Packs *int `json:"packs"`
	Loose *int `json:"loose"`
}

// verify --json counts the store's pack files and loose blobs; prune
// puts the loose ones into a pack.
func TestVerifyJSONCountsPacksAndLoose(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n", "big.txt": strings.Repeat("a line of text\n", 200)})
	p.turn(t, "1", "one", []string{"a.txt", "big.txt"}, func() {
		writeTexts(t, p.root, map[string]string{"a.txt": "a 1\n", "big.txt": strings.Repeat("another line\n", 200)})
	})
	verify := func() verifyDoc {
		t.Helper()
		var v verifyDoc
		decodeJSON(t, ckptOK(t, p.root, "verify", "--json"), &v)
		if !v.OK || len(v.Findings) != 0 || v.Packs == nil || v.Loose == nil {
			t.Fatalf("verify --json: %+v", v)
		}
		return v
	}
	if v := verify(); *v.Packs != 0 || *v.Loose != 4 {
		t.Errorf("before prune: packs %d loose %d, want 0 and the 4 blobs kept", *v.Packs, *v.Loose)
	}
	ckptOK(t, p.root, "prune", "--keep", "5")
	if v := verify(); *v.Packs != 1 || *v.Loose != 0 {
		t.Errorf("after prune: packs %d loose %d, want 1 and 0", *v.Packs, *v.Loose)
	}
	// --keep 0 would drop every turn: a usage error, nothing dropped.
	r := ckptCode(t, p.root, exitUsage, "prune", "--keep", "0")
	wantSubstrings(t, "prune --keep 0", r.Stderr, "--keep 0")
	ckptCode(t, p.root, exitUsage, "prune")
	findEntry(t, ckptLog(t, p.root), "1")
}

// doctor --json is an array, one object per agent, each with every key
// CONTRACT.md names, and each check with check, ok, blocking, detail and
// fix (blocking false and fix "" where they do not apply); the checks are
// among those it names.
func TestDoctorJSONShape(t *testing.T) {
	root := t.TempDir()
	ckptOK(t, root, "install", "claude", "--no-first-copy")
	r := ckptDo(t, ckptCall{Root: root, Env: []string{"HOME=" + t.TempDir()}}, "doctor", "--json")
	if r.Code != 0 && r.Code != 1 {
		t.Fatalf("doctor --json: want exit 0 or 1\n%s", r)
	}
	var ds []map[string]json.RawMessage
	decodeJSON(t, r, &ds)
	known := []string{"installed", "binary", "trusted", "approved", "modes", "-p mode", "version", "last event", "errors"}
	agents := map[string]bool{}
	for _, d := range ds {
		for _, k := range []string{"agent", "installed", "config", "hook_exe", "version", "version_tested", "last_event", "errors", "last_error", "capture", "checks", "left_open"} {
			if _, ok := d[k]; !ok {
				t.Errorf("doctor --json object %s lacks %q", d["agent"], k)
			}
		}
		var name string
		json.Unmarshal(d["agent"], &name)
		agents[name] = true
		var checks []map[string]json.RawMessage
		if err := json.Unmarshal(d["checks"], &checks); err != nil || len(checks) == 0 {
			t.Fatalf("%s: checks %s: %v", name, d["checks"], err)
		}
		for _, c := range checks {
			for _, k := range []string{"check", "ok", "blocking", "detail", "fix"} {
				if _, ok := c[k]; !ok {
					t.Errorf("%s: check %s lacks %q", name, c["check"], k)
				}
			}
			var check string
			json.Unmarshal(c["check"], &check)
			if !slices.Contains(known, check) {
				t.Errorf("%s: check %q is none of %v", name, check, known)
			}
		}
	}
	for _, a := range []string{"claude", "gemini", "codex", "opencode", "pi", "copilot", "cline", "qwen"} {
		if !agents[a] {
			t.Errorf("doctor --json has no object for %s", a)
		}
	}
	var claude []struct {
		Installed bool `json:"installed"`
		Config    string
	}
	decodeJSON(t, ckptOK(t, root, "doctor", "claude", "--json"), &claude)
	if len(claude) != 1 || !claude[0].Installed {
		t.Errorf("doctor claude --json after install: %+v", claude)
	}
}

// Operation ids are their own namespace: a capture under op-N is refused,
// and a rewind or revert of op-N says it names an operation, changing
// nothing.
func TestOperationIDIsNoTurn(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n"})
	p.turn(t, "1", "one", []string{"a.txt"}, func() { writeText(t, p.root, "a.txt", "a 1\n") })
	ckptOK(t, p.root, "rewind", "1", "--yes")
	before := snapshotDir(t, p.root)
	r := ckptCode(t, p.root, exitError, "capture", "--turn", "op-2", "a.txt")
	wantSubstrings(t, "capture --turn op-2", r.Stderr, "op-2", "operation")
	for _, verb := range []string{"rewind", "revert"} {
		r := ckptCode(t, p.root, exitError, verb, "op-1", "--yes")
		wantSubstrings(t, verb+" op-1", r.Stderr, "op-1", "operation", "ckpt undo")
	}
	requireSnapshot(t, p.root, before, "after op ids given as turns")
	if es := ckptLog(t, p.root); len(es) != 2 {
		t.Errorf("log after refused op ids: %+v", es)
	}
}
