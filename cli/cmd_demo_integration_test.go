package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestDemo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	r := ckptDo(t, ckptCall{Dir: t.TempDir()}, "demo", "--no-ui", "--dir", dir)
	if r.Code != 0 || !strings.Contains(r.Stdout, dir) {
		t.Fatalf("demo --no-ui --dir: want exit 0 and the folder's path\n%s", r)
	}
	es := ckptLog(t, dir)
	agents, hand := 0, 0
	for _, e := range es {
		if e.Kind == "agent" {
			agents++
			hand += e.HandEdited
		}
	}
	if agents < 3 || hand < 1 {
		t.Errorf("demo: %d agent turns, %d files changed since the agent; want at least 3 and 1", agents, hand)
	}
	statuses := map[string]bool{}
	for _, e := range es {
		for _, f := range ckptShow(t, dir, e.Turn).Files {
			statuses[f.Status] = true
		}
	}
	for _, s := range []string{"created", "deleted", "hand_edited"} {
		if !statuses[s] {
			t.Errorf("demo has no file %s (statuses %v)", s, statuses)
		}
	}
	if !pathExists(filepath.Join(dir, ".env")) {
		t.Errorf("demo project has no .env")
	}
	ckptOK(t, dir, "verify")
}

// TestDemoConversation: the demo's turns carry a sample session, so c in
// the UI and show --conversation have something to show a newcomer.
func TestDemoConversation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	ckptOK(t, "", "demo", "--dir", dir, "--no-ui")
	out := ckptOK(t, dir, "show", "3", "--conversation").Stdout
	for _, want := range []string{"read the port and keys from config", "Added src/config.js", "ok     Write  src/config.js", "failed Bash   npm test"} {
		if !strings.Contains(out, want) {
			t.Errorf("show 3 --conversation lacks %q:\n%s", want, out)
		}
	}
}
