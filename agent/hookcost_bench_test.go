package agent

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// hookTurn plays Claude Code's hook events in process against one project:
// a prompt, then Pre/Post pairs of an Edit, each on a file of its own.
type hookTurn struct {
	root  string
	calls int
}

func (h *hookTurn) event(tb testing.TB, ev string) {
	err := Hook("claude", bytes.NewReader([]byte(ev)), &bytes.Buffer{}, HookOptions{Root: h.root, Getenv: func(string) string { return "" }})
	if err != nil {
		tb.Fatal(err)
	}
}

func (h *hookTurn) prompt(tb testing.TB) {
	h.event(tb, fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":"bench","cwd":%q,"prompt":"a big refactor"}`, h.root))
	h.calls = 0
}

// pair is one Edit: its PreToolUse, the write, its PostToolUse.
func (h *hookTurn) pair(tb testing.TB) {
	h.calls++
	p := filepath.Join(h.root, "src", fmt.Sprintf("d%02d", h.calls%50), fmt.Sprintf("f%05d.go", h.calls))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("package x\n// before\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	in := fmt.Sprintf(`"session_id":"bench","cwd":%q,"tool_name":"Edit","tool_use_id":"t%d","tool_input":{"file_path":%q,"old_string":"before","new_string":"after"}`, h.root, h.calls, p)
	h.event(tb, `{"hook_event_name":"PreToolUse",`+in+`}`)
	if err := os.WriteFile(p, []byte("package x\n// after\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	h.event(tb, `{"hook_event_name":"PostToolUse",`+in+`}`)
}

// BenchmarkHookPairInTurn is the cost of one Pre/Post pair of an edit
// tool, in process (store opened per event, as a hook process does), at
// call 10 and at call 5,000 of one turn: the cost per call must not grow
// with the turn (call5000 within 1.5x of call10). CKPT_BENCH_CALLS sets
// the later call instead of 5,000.
func BenchmarkHookPairInTurn(b *testing.B) {
	late := 5000
	if n, err := fmt.Sscan(os.Getenv("CKPT_BENCH_CALLS"), &late); n != 1 || err != nil {
		late = 5000
	}
	for _, at := range []int{10, late} {
		b.Run(fmt.Sprintf("call%d", at), func(b *testing.B) {
			h := &hookTurn{root: b.TempDir()}
			h.prompt(b)
			for b.Loop() {
				// Each timed pair is call number at of its turn (give or
				// take the timed ones, a few hundred at most, past a few
				// thousand).
				if h.calls >= at+at/10 || h.calls < at-1 {
					b.StopTimer()
					if h.calls >= at-1 {
						h.prompt(b)
					}
					for h.calls < at-1 {
						h.pair(b)
					}
					b.StartTimer()
				}
				h.pair(b)
			}
		})
	}
}
