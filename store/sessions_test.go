package store

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestSessionFileLines: a session's file takes a line per turn opened and
// answers with the newest whole line; a line still being written does not
// count, and a file past sessionMax starts over with its newest line.
func TestSessionFileLines(t *testing.T) {
	root, s := ignoreProject(t, map[string]string{"a.txt": "a\n"})
	if _, ok := s.SessionTurn("claude:x"); ok {
		t.Fatal("a session nothing recorded has a turn")
	}
	for _, id := range []string{"7", "8", "8.2", "9"} {
		if err := s.SetSessionTurn("claude:x", id); err != nil {
			t.Fatal(err)
		}
		if got, ok := s.SessionTurn("claude:x"); !ok || got != id {
			t.Fatalf("after %s: SessionTurn = %q, %v", id, got, ok)
		}
	}
	p := filepath.Join(root, storeDir, filepath.FromSlash(sessionFile("claude:x")))
	if b, _ := os.ReadFile(p); string(b) != "7\n8\n8.2\n9\n" {
		t.Errorf("session file %q", b)
	}
	// A writer cut off mid-line.
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("1")
	f.Close()
	if got, _ := s.SessionTurn("claude:x"); got != "9" {
		t.Errorf("with a partial line: SessionTurn = %q, want 9", got)
	}
	// The next line starts on a line of its own.
	if err := s.SetSessionTurn("claude:x", "10"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.SessionTurn("claude:x"); got != "10" {
		t.Errorf("after a partial line: SessionTurn = %q, want 10", got)
	}
	for i := 0; i < sessionMax/4; i++ {
		if err := s.SetSessionTurn("claude:x", strconv.Itoa(100+i)); err != nil {
			t.Fatal(err)
		}
	}
	want := strconv.Itoa(100 + sessionMax/4 - 1)
	if got, _ := s.SessionTurn("claude:x"); got != want {
		t.Errorf("SessionTurn = %q, want %s", got, want)
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() > sessionMax+16 {
		t.Errorf("session file not bounded: %v %v", fi.Size(), err)
	}
}

// TestSessionFileOlderName: a session's turn under the older file name
// (one turn id, as an older ckpt writes it) was written last and wins;
// writing the session removes it, so that an older ckpt, which reads only
// that name, finds no turn rather than misreading the lines.
func TestSessionFileOlderName(t *testing.T) {
	root, s := ignoreProject(t, map[string]string{"a.txt": "a\n"})
	if err := s.SetSessionTurn("claude:x", "7"); err != nil {
		t.Fatal(err)
	}
	legacy := filepath.Join(root, storeDir, filepath.FromSlash(legacySessionFile("claude:x")))
	if err := os.WriteFile(legacy, []byte("8\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.SessionTurn("claude:x"); got != "8" {
		t.Errorf("with an older ckpt's file: SessionTurn = %q, want 8", got)
	}
	if err := s.SetSessionTurn("claude:x", "9"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Errorf("the older name is still there: %v", err)
	}
	if got, _ := s.SessionTurn("claude:x"); got != "9" {
		t.Errorf("SessionTurn = %q, want 9", got)
	}
}

func TestLastLine(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "7": "", "7\n": "7", "7\n8": "7", "7\n8\n": "8", "7\n8\n\n": "8",
		"7\n\n": "7", "\n": "", " 9 \n": "9", "7\n1\n10\n": "10",
	} {
		if got := lastLine([]byte(in)); got != want {
			t.Errorf("lastLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOpenTurn: a session with no turn gets one, opened once however
// many calls race for it; a session with one keeps it; and a capture
// naming the session moves it on to the continuation of a rewound turn.
func TestOpenTurn(t *testing.T) {
	root, s := ignoreProject(t, map[string]string{"a.txt": "a\n"})
	meta := TurnMeta{Label: "edits", Source: &Source{Agent: "claude", Session: "x"}}
	got := make(chan string, 8)
	for range cap(got) {
		go func() {
			s2 := openStore(t, root)
			defer s2.Close()
			turn, err := s2.OpenTurn("claude:x", meta)
			if err != nil {
				t.Error(err)
			}
			got <- string(turn)
		}()
	}
	first := <-got
	for range cap(got) - 1 {
		if turn := <-got; turn != first {
			t.Fatalf("parallel OpenTurn calls opened %q and %q", first, turn)
		}
	}
	if turn, ok := s.SessionTurn("claude:x"); !ok || turn != first {
		t.Fatalf("SessionTurn = %q, %v; want %q", turn, ok, first)
	}
	if turn, err := s.OpenTurn("claude:x", TurnMeta{Label: "other"}); err != nil || turn != TurnID(first) {
		t.Fatalf("OpenTurn with a turn open = %q, %v; want %q", turn, err, first)
	}

	a := filepath.Join(root, "a.txt")
	if _, err := s.Capture(TurnID(first), TurnMeta{Session: "claude:x"}, []string{a}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(a, []byte("b\n"), 0o644)
	rewind(t, s, first)
	used, err := s.Capture(TurnID(first), TurnMeta{Session: "claude:x"}, []string{a})
	if err != nil {
		t.Fatal(err)
	}
	if want := TurnID(first + ".2"); used != want {
		t.Fatalf("capture after a rewind went to %q, want %q", used, want)
	}
	if turn, _ := s.SessionTurn("claude:x"); turn != used.String() {
		t.Fatalf("the session's open turn is %q after the capture moved on to %q", turn, used)
	}
}

// TestBeginWrite: a file tool's step before a write is one call that
// opens the session's turn when it has none (many parallel calls open one,
// and each one's file is captured in it), joins the turn the session has,
// and moves on to a continuation when that turn was rewound; the step
// after the write seals in the session's turn, and a session with none is
// ErrNoOpenTurn.
func TestBeginWrite(t *testing.T) {
	files := map[string]string{}
	for i := range 8 {
		files["f"+strconv.Itoa(i)] = "0\n"
	}
	root, s := ignoreProject(t, files)
	src := &Source{Agent: "claude", Session: "x"}
	meta := TurnMeta{Source: src, Session: "claude:x"}
	if _, err := s.BeginWrite(TurnMeta{Source: src}, "edits", []string{filepath.Join(root, "f0")}); err == nil {
		t.Fatal("a write without a session was taken")
	}
	got := make(chan TurnID, len(files))
	for i := range cap(got) {
		go func() {
			s2 := openStore(t, root)
			turn, err := s2.BeginWrite(meta, "edits", []string{filepath.Join(root, "f"+strconv.Itoa(i))})
			if err != nil {
				t.Error(err)
			}
			got <- turn
		}()
	}
	first := <-got
	for range cap(got) - 1 {
		if turn := <-got; turn != first {
			t.Fatalf("parallel BeginWrite calls went to turns %q and %q", first, turn)
		}
	}
	if turn, ok := s.SessionTurn("claude:x"); !ok || TurnID(turn) != first {
		t.Fatalf("SessionTurn = %q, %v; want %q", turn, ok, first)
	}
	log, err := s.Log(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 || log[0].ID != first.String() || log[0].Label != "edits" {
		t.Fatalf("log %+v; want the one turn %s, labelled edits", log, first)
	}
	if fs, err := s.Files(first.String(), false); err != nil || len(fs) != len(files) {
		t.Fatalf("turn %s holds %d files (%v); want %d", first, len(fs), err, len(files))
	}
	a := filepath.Join(root, "f0")
	os.WriteFile(a, []byte("1\n"), 0o644)
	if turn, err := s.EndWrite("claude:x", []string{a}); err != nil || turn != first {
		t.Fatalf("EndWrite = %q, %v; want %q", turn, err, first)
	}
	if _, err := s.EndWrite("claude:other", []string{a}); !errors.Is(err, ErrNoOpenTurn) {
		t.Fatalf("EndWrite in a session with no turn: %v, want ErrNoOpenTurn", err)
	}
	if turn, err := s.BeginWrite(meta, "unused", []string{a}); err != nil || turn != first {
		t.Fatalf("BeginWrite with a turn open = %q, %v; want %q", turn, err, first)
	}
	rewind(t, s, first.String())
	used, err := s.BeginWrite(meta, "unused", []string{a})
	if want := TurnID(first.String() + ".2"); err != nil || used != want {
		t.Fatalf("BeginWrite after a rewind = %q, %v; want %q", used, err, want)
	}
	if turn, _ := s.SessionTurn("claude:x"); turn != used.String() {
		t.Fatalf("the session's open turn is %q after the write moved on to %q", turn, used)
	}
}

// TestStartTurn: a prompt's turn is opened and recorded for its session
// in one call, and a write of the session then goes to it; a session that
// had a turn moves on to the new one.
func TestStartTurn(t *testing.T) {
	root, s := ignoreProject(t, map[string]string{"a.txt": "a\n"})
	src := &Source{Agent: "claude", Session: "x"}
	if _, err := s.StartTurn(TurnMeta{Label: "go", Source: src}); err == nil {
		t.Fatal("a turn without a session was started")
	}
	meta := TurnMeta{Label: "go", Source: src, Session: "claude:x"}
	first, err := s.StartTurn(meta)
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.StartTurn(meta)
	if err != nil || second == first {
		t.Fatalf("a second prompt: turn %q, %v; want a new one after %q", second, err, first)
	}
	if turn, ok := s.SessionTurn("claude:x"); !ok || TurnID(turn) != second {
		t.Fatalf("SessionTurn = %q, %v; want %q", turn, ok, second)
	}
	if turn, err := s.BeginWrite(meta, "unused", []string{filepath.Join(root, "a.txt")}); err != nil || turn != second {
		t.Fatalf("BeginWrite after the prompt = %q, %v; want %q", turn, err, second)
	}
}
