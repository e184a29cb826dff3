package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A rewind every path of which failed shows what it failed, and why, in
// every view — as a rewind that failed some paths does — while its turn
// stays active and there is nothing to undo; the same rewind again, once
// the path can be put back, clears the failure.
func TestRewindAllFailedShowsFailures(t *testing.T) {
	root := t.TempDir()
	writeText(t, root, "f", "before\n")
	ckptOK(t, root, "capture", "--turn", "1", "f")
	writeText(t, root, "f", "x\n")
	ckptOK(t, root, "seal", "--turn", "1", "f")
	removePath(t, root, "f")
	if err := os.Mkdir(filepath.Join(root, "f"), 0o755); err != nil {
		t.Fatal(err)
	}

	o := ckptOp(t, root, exitPartial, "rewind", "1", "--yes", "--json")
	if len(o.Failed) != 1 || o.Failed[0].Path != "f" || o.Failed[0].Reason == "" {
		t.Fatalf("rewind failed %+v, want f with a reason", o.Failed)
	}
	reason := o.Failed[0].Reason

	r := ckptOK(t, root, "log", "--json")
	var es []struct {
		Turn   string `json:"turn"`
		State  string `json:"state"`
		Failed []struct {
			Path   string `json:"path"`
			Reason string `json:"reason"`
		} `json:"failed"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &es); err != nil {
		t.Fatalf("log --json: %v\n%s", err, r)
	}
	for _, e := range es {
		switch e.Turn {
		case o.Op:
			if e.State != "failed" || len(e.Failed) != 1 || e.Failed[0].Path != "f" || e.Failed[0].Reason != reason {
				t.Errorf("log --json %s: state %q failed %+v; want failed, f: %q", e.Turn, e.State, e.Failed, reason)
			}
		case "1":
			if e.State != "active" {
				t.Errorf("log --json turn 1: state %q, want active", e.State)
			}
		}
	}
	if out := ckptOK(t, root, "log").Stdout; !strings.Contains(out, "1 path failed") {
		t.Errorf("log does not say the rewind failed a path:\n%s", out)
	}
	r = ckptOK(t, root, "show", "1", "--json")
	var s struct {
		Files []struct {
			Path   string `json:"path"`
			Status string `json:"status"`
			Reason string `json:"reason"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatalf("show --json: %v\n%s", err, r)
	}
	if len(s.Files) != 1 || s.Files[0].Status != "failed" || s.Files[0].Reason != reason {
		t.Errorf("show 1 --json: %+v; want f failed: %q", s.Files, reason)
	}
	// It changed nothing: there is nothing to undo.
	if r := ckpt(t, root, "undo", "--yes"); r.Code == 0 {
		t.Errorf("undo after a rewind that changed nothing succeeded\n%s", r)
	}

	// Running it again, once it can, puts f back and clears the failure.
	if err := os.Remove(filepath.Join(root, "f")); err != nil {
		t.Fatal(err)
	}
	o2 := ckptOp(t, root, 0, "rewind", "1", "--yes", "--json")
	if len(o2.Failed) != 0 || readText(t, root, "f") != "before\n" {
		t.Fatalf("rewind again: failed %+v, f %q", o2.Failed, readText(t, root, "f"))
	}
	if got := ckptShow(t, root, "1").statuses()["f"]; got != "unchanged" {
		t.Errorf("show 1 after the retry: f %s, want unchanged", got)
	}
	if out := ckptOK(t, root, "log", "--json").Stdout; strings.Contains(out, `"failed": [`) {
		t.Errorf("log --json still lists failures after the retry:\n%s", out)
	}
}
