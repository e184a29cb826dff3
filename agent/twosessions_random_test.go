package agent

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store"
)

// twoSessionsSeeds is how many random runs TestTwoSessionsRandom makes.
const twoSessionsSeeds = 24

// TestTwoSessionsRandom: Claude Code and Codex in one folder, their
// prompts, file-tool edits and shell calls interleaved at random (an edit
// or a command of one still under way while the other acts), each step
// through the hooks as the agents send them. Whatever the order:
//   - every path that changed is in some turn, and some turn holds what
//     it was before both sessions as its pre-image;
//   - a revert of any one turn never silently takes out the other
//     session's sealed edit: a file whose bytes are that edit's holds
//     them after the revert, unless the revert says it failed there (a
//     conflict), and undo gives back the folder;
//   - rewinding to the oldest turn of both gives back the folder as it
//     was before both sessions, and its undo the folder after.
//
// A failing run names its seed; CKPT_TWOSESSIONS_SEED=N runs that one
// alone, with its steps logged.
func TestTwoSessionsRandom(t *testing.T) {
	seeds := twoSessionsSeeds
	if testing.Short() {
		seeds = 8
	}
	if s := os.Getenv("CKPT_TWOSESSIONS_SEED"); s != "" {
		var n uint64
		fmt.Sscan(s, &n)
		t.Run(s, func(t *testing.T) { twoSessionsRun(t, n, true) })
		return
	}
	for n := range uint64(seeds) {
		t.Run(fmt.Sprint(n), func(t *testing.T) { twoSessionsRun(t, n, false) })
	}
}

// tsSession is one agent's session in the model: its turn, and the call
// under way (a shell command, or a file tool's write of edit).
type tsSession struct {
	name    string
	turns   int
	inTurn  bool
	cmd     string // the command running, "" none
	edit    string // the path a file tool is writing, "" none
	callSeq int
}

// tsWriter is who wrote a path last: a session's file tool (edit) or
// command, and the bytes.
type tsWriter struct {
	session string
	edit    bool
	data    string
}

func twoSessionsRun(t *testing.T, seed uint64, verbose bool) {
	root := sessionsRoot(t)
	rng := rand.New(rand.NewPCG(seed, 0x2535))
	var steps []string
	logf := func(format string, args ...any) {
		steps = append(steps, fmt.Sprintf(format, args...))
		if verbose {
			t.Logf(format, args...)
		}
	}
	fail := func(format string, args ...any) {
		t.Helper()
		if !verbose {
			t.Logf("steps of seed %d:\n%s", seed, strings.Join(steps, "\n"))
		}
		t.Fatalf("seed %d: "+format, append([]any{seed}, args...)...)
	}
	names := []string{"a.txt", "b.txt", "c.txt", "d.txt", "sub/e.txt", "n1.txt", "n2.txt", "sub/n3.txt"}
	disk := func(p string) (string, bool) {
		b, err := os.ReadFile(filepath.Join(root, p))
		return string(b), err == nil
	}
	put := func(p, data string) {
		if err := putFile(root, p, data); err != nil {
			fail("write %s: %v", p, err)
		}
	}
	for _, p := range names[:5] {
		put(p, p+" before\n")
	}
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	snap := func() map[string]string { return folderSnapshot(root) }
	hook := func(agentName string, ev map[string]any) {
		t.Helper()
		if err := sendHook(root, agentName, ev); err != nil {
			fail("%s %v: %v", agentName, ev["hook_event_name"], err)
		}
	}
	claude := &tsSession{name: "claude"}
	codex := &tsSession{name: "codex"}
	event := func(s *tsSession, name string, kv ...any) {
		ev := map[string]any{"session_id": s.name + "-1", "hook_event_name": name}
		if s == codex {
			ev["turn_id"] = fmt.Sprintf("t-%d", s.turns)
		}
		hook(s.name, withFields(ev, kv...))
	}
	bash := func(s *tsSession, name string) {
		event(s, name, "tool_name", "Bash", "tool_input", map[string]any{"command": s.cmd}, "tool_use_id", fmt.Sprintf("%s-%d", s.name, s.callSeq), "tool_response", "ok")
	}
	editEvent := func(s *tsSession, name, p string, exists bool) {
		id := fmt.Sprintf("%s-%d", s.name, s.callSeq)
		if s == claude {
			event(s, name, "tool_name", "Write", "tool_input", map[string]any{"file_path": filepath.Join(root, p), "content": "x"}, "tool_use_id", id)
			return
		}
		verb := "Update"
		if !exists {
			verb = "Add"
		}
		patch := "*** Begin Patch\n*** " + verb + " File: " + p + "\n@@\n+x\n*** End Patch\n"
		event(s, name, "tool_name", "apply_patch", "tool_input", map[string]any{"command": patch}, "tool_use_id", id, "tool_response", "ok")
	}
	last := map[string]tsWriter{}
	n := 0
	data := func(s *tsSession, how string) string {
		n++
		return fmt.Sprintf("%s %s %d\n", s.name, how, n)
	}

	// A first shell call, so the store has a baseline; then the folder
	// both sessions start from.
	claude.inTurn, claude.turns, claude.cmd = true, 1, "true"
	event(claude, "UserPromptSubmit", "prompt", "start")
	bash(claude, "PreToolUse")
	bash(claude, "PostToolUse")
	event(claude, "Stop")
	claude.inTurn, claude.cmd = false, ""
	before := snap()
	s0, err := store.Open(root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]bool{}
	if log, err := s0.Log(false); err == nil {
		for _, e := range log {
			first[e.ID] = true
		}
	}
	s0.Close()

	step := func(s *tsSession) {
		switch {
		case !s.inTurn:
			s.turns++
			s.inTurn = true
			logf("%s: prompt %d", s.name, s.turns)
			event(s, "UserPromptSubmit", "prompt", fmt.Sprintf("prompt %d", s.turns))
		case s.edit != "":
			d := data(s, "edit")
			logf("%s: edit writes %s, PostToolUse", s.name, s.edit)
			put(s.edit, d)
			last[s.edit] = tsWriter{s.name, true, d}
			_, exists := disk(s.edit)
			editEvent(s, "PostToolUse", s.edit, exists)
			s.edit = ""
		case s.cmd != "":
			switch r := rng.IntN(10); {
			case r < 3:
				logf("%s: command ends, PostToolUse", s.name)
				bash(s, "PostToolUse")
				s.cmd = ""
			case r < 4:
				p := names[rng.IntN(len(names))]
				if _, ok := disk(p); ok {
					logf("%s: command removes %s", s.name, p)
					os.Remove(filepath.Join(root, p))
					last[p] = tsWriter{session: s.name}
				}
			default:
				p := names[rng.IntN(len(names))]
				d := data(s, "cmd")
				logf("%s: command writes %s", s.name, p)
				put(p, d)
				last[p] = tsWriter{s.name, false, d}
			}
		default:
			switch r := rng.IntN(10); {
			case r < 4:
				s.callSeq++
				s.cmd = fmt.Sprintf("step %d of %s", s.callSeq, s.name)
				logf("%s: PreToolUse Bash %q", s.name, s.cmd)
				bash(s, "PreToolUse")
			case r < 8:
				s.callSeq++
				s.edit = names[rng.IntN(len(names))]
				_, exists := disk(s.edit)
				logf("%s: PreToolUse edit of %s", s.name, s.edit)
				editEvent(s, "PreToolUse", s.edit, exists)
			default:
				logf("%s: Stop", s.name)
				event(s, "Stop")
				s.inTurn = false
			}
		}
	}
	for range 20 + rng.IntN(30) {
		s := claude
		if rng.IntN(2) == 0 {
			s = codex
		}
		step(s)
	}
	// Both finish what they have under way and end their turns.
	for _, s := range []*tsSession{claude, codex} {
		for s.inTurn {
			if s.edit == "" && s.cmd != "" {
				logf("%s: command ends, PostToolUse", s.name)
				bash(s, "PostToolUse")
				s.cmd = ""
				continue
			}
			if s.edit == "" {
				logf("%s: Stop", s.name)
				event(s, "Stop")
				s.inTurn = false
				continue
			}
			step(s)
		}
	}
	after := snap()

	st, err := store.Open(root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	apply := func(what string, p *store.Plan, err error) *store.Result {
		t.Helper()
		if err != nil {
			fail("plan %s: %v", what, err)
		}
		res, err := st.Apply(p, nil)
		if err != nil {
			fail("%s: %v", what, err)
		}
		return res
	}
	log, err := st.Log(false)
	if err != nil {
		t.Fatal(err)
	}
	var turns []store.Entry // oldest first
	for i := len(log) - 1; i >= 0; i-- {
		if e := log[i]; e.Kind == store.KindAgent && !first[e.ID] {
			turns = append(turns, e)
		}
	}
	// Every change is in some turn, and some turn has what it was before.
	held := map[string][]string{}
	files := map[string][]store.File{}
	for _, e := range turns {
		fs, err := st.Files(e.ID, false)
		if err != nil {
			fail("files of turn %s: %v", e.ID, err)
		}
		files[e.ID] = fs
		for _, f := range fs {
			got := "<absent>"
			if f.Pre.Kind == store.ImageContent {
				b, err := st.ReadImage(f.Pre)
				if err != nil {
					fail("turn %s, %s: %v", e.ID, f.Path, err)
				}
				got = string(b)
			}
			held[f.Path] = append(held[f.Path], got)
		}
	}
	for _, p := range names {
		a, inA := after[p]
		b, inB := before[p]
		if a == b && inA == inB {
			continue
		}
		want := b
		if !inB {
			want = "<absent>"
		}
		if len(held[p]) == 0 {
			fail("%s changed (%q → %q) but is in no turn", p, b, a)
		}
		if !slices.Contains(held[p], want) {
			fail("%s: no turn holds what it was before both (%q), only %q", p, want, held[p])
		}
	}
	// A revert of one turn keeps the other session's sealed edits.
	for _, e := range turns {
		if len(files[e.ID]) == 0 {
			continue
		}
		session := ""
		if e.Source != nil {
			session = e.Source.Agent
		}
		p, err := st.PlanRevert(e.ID, store.RevertOptions{})
		res := apply("the revert of turn "+e.ID, p, err)
		failed := map[string]bool{}
		for _, f := range res.Failed {
			failed[f.Path] = true
		}
		for path, w := range last {
			if !w.edit || w.session == session || failed[path] {
				continue
			}
			if got, _ := disk(path); got != w.data {
				fail("reverting %s's turn %s took %s's edit of %s out silently: %q, want %q", session, e.ID, w.session, path, got, w.data)
			}
		}
		if fmt.Sprint(snap()) == fmt.Sprint(after) && len(res.Restored)+len(res.Deleted) == 0 {
			continue // it changed nothing, and logged no operation to undo
		}
		u, err := st.PlanUndo(false)
		apply("the undo of the revert of turn "+e.ID, u, err)
		if got := snap(); fmt.Sprint(got) != fmt.Sprint(after) {
			fail("after undoing the revert of turn %s:\n%v\nwant\n%v", e.ID, got, after)
		}
	}
	// Rewinding both sessions' turns gives back the folder before both,
	// and its undo the folder after.
	if len(turns) == 0 {
		return
	}
	p, err := st.PlanRewind(turns[0].ID)
	apply("the rewind to turn "+turns[0].ID, p, err)
	if got := snap(); fmt.Sprint(got) != fmt.Sprint(before) {
		fail("after rewinding to turn %s:\n%v\nwant the folder before both\n%v", turns[0].ID, got, before)
	}
	u, err := st.PlanUndo(false)
	apply("the undo of the rewind", u, err)
	if got := snap(); fmt.Sprint(got) != fmt.Sprint(after) {
		fail("after undoing the rewind to turn %s:\n%v\nwant\n%v", turns[0].ID, got, after)
	}
}
