package agent

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"testing"
	"time"
)

// hookTurn plays Claude Code's hook events in process against one project:
// a prompt, then Pre/Post pairs of an Edit, each on a file of its own.
type hookTurn struct {
	root    string
	session string // "bench" when empty
	calls   int
	// files bounds the files the pairs edit (each call a new one when 0):
	// a turn of many calls over few files grows by seals, not paths.
	files int
}

func (h *hookTurn) sid() string {
	if h.session == "" {
		return "bench"
	}
	return h.session
}

func (h *hookTurn) event(tb testing.TB, ev string) {
	err := Hook("claude", bytes.NewReader([]byte(ev)), &bytes.Buffer{}, HookOptions{Root: h.root, Getenv: func(string) string { return "" }})
	if err != nil {
		tb.Fatal(err)
	}
}

func (h *hookTurn) prompt(tb testing.TB) {
	h.event(tb, fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":%q,"cwd":%q,"prompt":"a big refactor"}`, h.sid(), h.root))
	h.calls = 0
}

// pair is one Edit: its PreToolUse, the write, its PostToolUse.
func (h *hookTurn) pair(tb testing.TB) {
	h.calls++
	n := h.calls
	if h.files > 0 {
		n %= h.files
	}
	p := filepath.Join(h.root, "src", h.sid(), fmt.Sprintf("d%02d", n%50), fmt.Sprintf("f%05d.go", n))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("package x\n// before\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	in := fmt.Sprintf(`"session_id":%q,"cwd":%q,"tool_name":"Edit","tool_use_id":"t%d","tool_input":{"file_path":%q,"old_string":"before","new_string":"after"}`, h.sid(), h.root, h.calls, p)
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

// shell is one Bash call: its PreToolUse, a command that rewrites a file,
// its PostToolUse.
func (h *hookTurn) shell(tb testing.TB) {
	h.calls++
	p := filepath.Join(h.root, "out", h.sid()+".txt")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	cmd := fmt.Sprintf("echo %d > out/%s.txt", h.calls, h.sid())
	in := fmt.Sprintf(`"session_id":%q,"cwd":%q,"tool_name":"Bash","tool_use_id":"s%d","tool_input":{"command":%q}`, h.sid(), h.root, h.calls, cmd)
	h.event(tb, `{"hook_event_name":"PreToolUse",`+in+`}`)
	if err := os.WriteFile(p, []byte(fmt.Sprintln(h.calls)), 0o644); err != nil {
		tb.Fatal(err)
	}
	h.event(tb, `{"hook_event_name":"PostToolUse",`+in+`,"tool_response":"ok"}`)
}

// BenchmarkHookShellRatio is BenchmarkHookPairRatio for a shell call:
// two sessions' Bash calls side by side, one at call 10 of its turn, the
// other after 5,000 edit calls over 50 files in its own (its turn file
// holds thousands of records by then). The sweep around a command reads
// what the turn holds of the paths it changed; it must not read the
// whole turn to do so.
func BenchmarkHookShellRatio(b *testing.B) {
	twoTurnsRatio(b, 50, (*hookTurn).shell)
}

// twoTurnsRatio runs ratioLoop over call in two sessions' turns in one
// project, each editing files files (0: a new one each call): one kept
// near call 10 of its turn (a new prompt every 10 calls), the other first
// taken to call late-1 of its turn, late being CKPT_BENCH_CALLS or 5,000.
func twoTurnsRatio(b *testing.B, files int, call func(*hookTurn, testing.TB)) {
	late := 5000
	if n, err := fmt.Sscan(os.Getenv("CKPT_BENCH_CALLS"), &late); n != 1 || err != nil {
		late = 5000
	}
	root := b.TempDir()
	early := &hookTurn{root: root, session: "early", files: files}
	long := &hookTurn{root: root, session: "late", files: files}
	long.prompt(b)
	for long.calls < late-1 {
		long.pair(b)
	}
	ratioLoop(b, late, func() {
		if early.calls == 0 || early.calls >= 10 {
			early.prompt(b)
			for early.calls < 9 {
				early.pair(b)
			}
		}
	}, func() { call(early, b) }, func() { call(long, b) })
}

// BenchmarkHookPairRatio measures the same as BenchmarkHookPairInTurn, but
// both calls side by side in one run: two sessions in one project, one
// kept near call 10 of its turn (a new prompt every 10 calls), the other
// taken to call 5,000 of its turn first. Each iteration times one pair of
// each, one after the other, so a slow moment of the disk (a hook's
// barrier is a syncfs, which waits on everything the machine has written)
// falls on both alike. It reports the median pair at each call, their
// ratio, and the median, smallest and largest ratio over rounds of 20
// iterations. CKPT_BENCH_CALLS sets the later call instead of 5,000.
// Profile the later calls alone with
//
//	go test ./agent -run '^$' -bench HookPairRatio -benchtime 200x -cpuprofile cpu.out
//	go tool pprof -tagfocus call=late agent.test cpu.out (or call=early)
func BenchmarkHookPairRatio(b *testing.B) {
	twoTurnsRatio(b, 0, (*hookTurn).pair)
}

// ratioLoop times call10 and callLate one after the other each
// iteration (after setup, untimed), labelled early and late for a CPU
// profile, and reports their medians, their ratio and the ratio's
// median, smallest and largest over rounds of 20 iterations.
func ratioLoop(b *testing.B, late int, setup, call10, callLate func()) {
	ctx := context.Background()
	timed := func(call func(), label string) time.Duration {
		start := time.Now()
		pprof.Do(ctx, pprof.Labels("call", label), func(context.Context) { call() })
		return time.Since(start)
	}
	var at10, atLate []time.Duration
	for b.Loop() {
		setup()
		at10 = append(at10, timed(call10, "early"))
		atLate = append(atLate, timed(callLate, "late"))
	}
	m10, mLate := median(at10), median(atLate)
	b.ReportMetric(float64(m10.Microseconds())/1000, "ms/call10")
	b.ReportMetric(float64(mLate.Microseconds())/1000, fmt.Sprintf("ms/call%d", late))
	b.ReportMetric(float64(mLate)/float64(m10), "ratio")
	const round = 20
	var ratios []float64
	for i := 0; i+round <= len(at10); i += round {
		ratios = append(ratios, float64(median(atLate[i:i+round]))/float64(median(at10[i:i+round])))
	}
	if len(ratios) > 0 {
		slices.Sort(ratios)
		b.ReportMetric(ratios[len(ratios)/2], "round-ratio-median")
		b.ReportMetric(ratios[0], "round-ratio-min")
		b.ReportMetric(ratios[len(ratios)-1], "round-ratio-max")
	}
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
