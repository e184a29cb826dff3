package harness

import (
	"os"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/agent"
)

// TestPinsMatchTestedVersions: the versions the script installs are the
// ones `ckpt doctor` calls tested.
func TestPinsMatchTestedVersions(t *testing.T) {
	b, err := os.ReadFile("../scripts/real-agents.sh")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(strings.Trim(strings.TrimSpace(l), `"`))
		if len(f) == 4 && agent.Known(f[0]) {
			got[f[0]] = f[2]
		}
	}
	for name, v := range agent.TestedVersions {
		if got[name] != v {
			t.Errorf("scripts/real-agents.sh pins %s %q; agent.TestedVersions says %q", name, got[name], v)
		}
	}
	if len(got) != len(agent.TestedVersions) {
		t.Errorf("scripts/real-agents.sh pins %v; agent.TestedVersions %v", got, agent.TestedVersions)
	}
}

// TestScenarioFromRecords: the proxy's records become a replayable
// scenario with the tool's writes as applies and the run's paths hidden.
func TestScenarioFromRecords(t *testing.T) {
	run := "/tmp/x/run"
	recs := []hookRecord{
		{At: 1, Event: []byte(`{"cwd":"/tmp/x/run/project","hook_event_name":"PreToolUse"}`), Tree: map[string]entry{"a": {Content: "1", Mode: 0o644}}},
		{At: 2, Event: []byte(`{"cwd":"/tmp/x/run/project","t":"/tmp/x/run/home/t"}`), Tree: map[string]entry{"a": {Content: "2", Mode: 0o644}, "b": {Content: "3", Mode: 0o644}}},
		{At: 3, Event: []byte(`{}`), Tree: map[string]entry{"b": {Content: "3", Mode: 0o644}}},
	}
	got := string(scenario(recs, run, "n"))
	want := `{"note":"n"}
{"setup":{"a":"1"}}
{"event":{"cwd":"{{ROOT}}","hook_event_name":"PreToolUse"}}
{"apply":{"a":"2","b":"3"}}
{"event":{"cwd":"{{ROOT}}","t":"/home/user/t"}}
{"apply":{"a":null}}
{"event":{}}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
