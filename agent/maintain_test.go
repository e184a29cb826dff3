package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The background pass starts at a turn's end and at a turn's start (for
// agents with no end-of-turn event), waiting for quiet when a turn is
// starting; never when it is not due, when one runs or waits already,
// or when the project's config turns retention off.
func TestMaintenanceTriggers(t *testing.T) {
	var started [][]string
	defer func(p func(string, ...string) error, b func() string) { startProcess, ckptBinary = p, b }(startProcess, ckptBinary)
	startProcess = func(exe string, args ...string) error {
		started = append(started, append([]string{exe}, args...))
		return nil
	}
	ckptBinary = func() string { return "/opt/ckpt" }
	root := t.TempDir()
	call := func(in string) {
		t.Helper()
		in = strings.ReplaceAll(in, "ROOT", root)
		if err := Hook("claude", strings.NewReader(in), &bytes.Buffer{}, HookOptions{Root: root, Getenv: func(string) string { return "" }}); err != nil {
			t.Fatal(err)
		}
	}
	start := `{"hook_event_name":"UserPromptSubmit","session_id":"s","cwd":"ROOT","prompt":"edit a"}`
	stop := `{"hook_event_name":"Stop","session_id":"s","cwd":"ROOT"}`
	call(start)
	if len(started) != 0 {
		t.Fatalf("a pass started in a store made just now: %q", started)
	}
	store := filepath.Join(root, ".osfoundry", "checkpoints")
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(filepath.Join(store, "FORMAT"), old, old); err != nil {
		t.Fatal(err)
	}
	expect := func(what string, want ...string) {
		t.Helper()
		if len(want) == 0 && len(started) > 0 || len(want) > 0 && (len(started) != 1 || !slices.Equal(started[0], want)) {
			t.Errorf("%s: started %q, want %q", what, started, want)
		}
		started = nil
	}
	call(start)
	expect("turn start", "/opt/ckpt", "--root", root, "maintain", "--when-quiet", "20s")
	call(stop)
	expect("turn end", "/opt/ckpt", "--root", root, "maintain", "--when-quiet", "0s")

	l, err := os.OpenFile(filepath.Join(store, "maintain.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(l.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	call(start)
	call(stop)
	expect("a pass holding maintain.lock")
	l.Close()

	cfg := filepath.Join(root, ".osfoundry", "ckpt.json")
	os.WriteFile(cfg, []byte("{\n  // no background pass\n  \"retention\": {\"keep\": 5, \"auto\": false, /* by hand */},\n}\n"), 0o600)
	call(start)
	call(stop)
	expect(`"auto": false`)
	os.WriteFile(cfg, []byte(`{"retention": {"auto": true}}`), 0o600)
	call(stop)
	expect(`"auto": true`, "/opt/ckpt", "--root", root, "maintain", "--when-quiet", "0s")

	os.WriteFile(filepath.Join(store, "retained"), []byte("now\n"), 0o600)
	call(start)
	call(stop)
	expect("a pass within the hour")
}
