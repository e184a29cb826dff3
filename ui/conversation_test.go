package ui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/transcript"
)

// recordedConversation reads an agent's recorded transcript (package
// transcript's testdata) as the CLI's store adapter does.
func recordedConversation(t *testing.T, agent, file string, w transcript.Want) *Conversation {
	t.Helper()
	c, err := transcript.Read(agent, filepath.Join("..", "transcript", "testdata", file), w)
	if err != nil {
		t.Fatal(err)
	}
	out := &Conversation{Prompt: c.Prompt, Reply: c.Reply, From: c.Path}
	for _, k := range c.Calls {
		out.Calls = append(out.Calls, ToolCall{Name: k.Name, Target: k.Target, State: string(k.State)})
	}
	return out
}

// TestConversationPane: c shows the selected turn's prompt, reply and
// tool calls in the diff's place, from each agent's recorded transcript,
// and follows the cursor; a turn without one says why and nothing else
// breaks.
func TestConversationPane(t *testing.T) {
	harness := transcript.Want{Label: "Edit the files for the ckpt harness"}
	shell := transcript.Want{Label: "Write hello.txt, then run a shell command."}
	for _, c := range []struct {
		agent string
		want  transcript.Want
		calls []string
		file  string // "": AGENT.jsonl
	}{
		// Kept from the real agents' runs in the harness.
		{"claude", harness, []string{"✓ Write  /home/user/project/new.txt", "✓ Bash  printf 'sea\\n' > b.txt"}, "claude-real.jsonl"},
		{"codex", harness, []string{"✓ apply_patch  new.txt, a.txt", "✓ exec_command  printf 'sea\\n' > b.txt"}, "codex-real.jsonl"},
		{"gemini", harness, []string{"✓ write_file  /home/user/project/new.txt", "✓ run_shell_command  printf"}, "gemini-real.jsonl"},
		{"claude", harness, []string{"✓ Write  /home/user/project/new.txt", "✗ Bash  make check"}, ""},
		{"codex", harness, []string{"✓ apply_patch  new.txt, a.txt", "✗ shell  cat missing.txt"}, ""},
		{"gemini", harness, []string{"✓ replace  a.txt", "✗ run_shell_command  false"}, ""},
		{"qwen", shell, []string{"✓ write_file  /home/user/project/hello.txt", "✓ run_shell_command  echo shell-line"}, ""},
		{"copilot", shell, []string{"✓ create  /home/user/project/hello.txt", "✓ bash  echo shell-line"}, ""},
	} {
		if c.file == "" {
			c.file = c.agent + ".jsonl"
		}
		t.Run(c.file, func(t *testing.T) {
			f := sample()
			conv := recordedConversation(t, c.agent, c.file, c.want)
			f.convs = map[string]*Conversation{"3": conv}
			m := testModel(t, f, 160, 40)
			press(t, m, kp("c"))
			s := plain(m)
			mustContain(t, s, "Conversation of turn 3", "Prompt", strings.Split(conv.Prompt, "\n")[0], "Reply",
				strings.Split(conv.Reply, "\n")[0], "Tool calls")
			mustContain(t, s, c.calls...)
			press(t, m, kp("j")) // turn 2 has none
			mustContain(t, plain(m), "Conversation of turn 2", "No conversation to show", "named no transcript")
			press(t, m, kp("c"))
			if strings.Contains(plain(m), "Conversation of turn") {
				t.Error("c did not go back to the diff")
			}
		})
	}
}

// TestConversationHostile: a prompt with escape sequences is shown
// escaped, and a long reply wraps inside the pane.
func TestConversationHostile(t *testing.T) {
	f := sample()
	f.convs = map[string]*Conversation{"3": {Prompt: "clear \x1b[2J\x1b]0;pwned\x07 me", Reply: strings.Repeat("word ", 200),
		Calls: []ToolCall{{Name: "Bash\x1b[31m", Target: "rm -rf \x1b[H", State: "failed"}}}}
	m := testModel(t, f, 100, 30)
	press(t, m, kp("c"))
	s := screen(m)
	if strings.Contains(s, "\x1b[2J") || strings.Contains(s, "\x07") || strings.Contains(s, "\x1b[H") {
		t.Fatalf("a control sequence reached the screen: %q", s)
	}
	for i, l := range strings.Split(s, "\n") {
		if ansiWidth(l) > 100 {
			t.Fatalf("line %d is wider than the screen", i)
		}
	}
}

// TestJumpToTurn: : takes a turn id and moves the cursor there, past a
// filter that hid it; an unknown id says so.
func TestJumpToTurn(t *testing.T) {
	m := testModel(t, sample(), 120, 30)
	press(t, m, keys("/", "d", "a", "r", "k", "enter")...) // only turn 1 matches
	press(t, m, keys(":", "3", "enter")...)
	if e := m.selected(); e == nil || e.ID != "3" {
		t.Fatalf("selected %+v, want turn 3", e)
	}
	press(t, m, keys(":", "9", "9", "enter")...)
	mustContain(t, plain(m), "no turn 99")
}

// TestHideEmptyTurns: H hides the turns that changed no file and says
// how many; H again shows them.
func TestHideEmptyTurns(t *testing.T) {
	f := sample()
	f.turn("4", "what does this repo do?", t0.Add(2*60*60*1e9))
	m := testModel(t, f, 120, 30)
	mustContain(t, plain(m), "what does this repo do?")
	press(t, m, kp("H"))
	s := plain(m)
	if strings.Contains(s, "what does this repo do?") {
		t.Fatal("H left the empty turn")
	}
	mustContain(t, s, "1 empty turn hidden (H)")
	press(t, m, kp("H"))
	mustContain(t, plain(m), "what does this repo do?")
}

// TestWrapLongLines: w wraps a long line onto more screen lines instead
// of cutting it, and 0 and $ jump to the lines' start and end.
func TestWrapLongLines(t *testing.T) {
	m := testModel(t, longFake(), 160, 30)
	press(t, m, keys("tab", "enter", "s")...)
	press(t, m, kp("$"))
	if m.diff.left == 0 {
		t.Fatal("$ did not scroll to the longest line's end")
	}
	press(t, m, kp("0"))
	if m.diff.left != 0 {
		t.Fatal("0 did not go back to the start")
	}
	cut := plain(m)
	press(t, m, kp("w"))
	wrapped := plain(m)
	if !m.wrap || !strings.Contains(wrapped, "wrapped") || wrapped == cut {
		t.Fatalf("w did not wrap:\n%s", wrapped)
	}
	for i, l := range strings.Split(screen(m), "\n") {
		if ansiWidth(l) > 160 {
			t.Fatalf("line %d is wider than the screen", i)
		}
	}
}

// TestMouseToggle: M hands the mouse back to the terminal and takes it
// again.
func TestMouseToggle(t *testing.T) {
	m := testModel(t, sample(), 120, 30)
	press(t, m, kp("M"))
	if m.View().MouseMode != 0 {
		t.Fatal("M left mouse capture on")
	}
	press(t, m, kp("M"))
	if m.View().MouseMode == 0 {
		t.Fatal("M did not turn it back on")
	}
}

// TestHunkCounterWhenItFits: a diff that fits on screen counts from its
// first hunk, and n and N move the counter and the highlight, though
// nothing scrolls.
func TestHunkCounterWhenItFits(t *testing.T) {
	f := newFake()
	var a, b strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&a, "line %d\n", i)
		if i == 1 || i == 16 {
			fmt.Fprintf(&b, "changed %d\n", i)
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	f.disk["two.txt"] = []byte(a.String())
	f.write("1", "two hunks", t0, "two.txt", []byte(b.String()))
	m := testModel(t, f, 120, 40)
	press(t, m, keys("tab", "enter")...)
	mustContain(t, plain(m), "hunk 1/2")
	press(t, m, kp("n"))
	mustContain(t, plain(m), "hunk 2/2")
	if m.diff.top != 0 {
		t.Fatalf("a diff that fits scrolled to %d", m.diff.top)
	}
	press(t, m, kp("N"))
	mustContain(t, plain(m), "hunk 1/2")
}
